"""fedverify search: evaluations per second of a claim's objective, batched (one call on a population of points,
as the methods make it) against one at a time (one call per instance, what an objective without a batched form
costs). Same points, same ratios (checked)."""
from __future__ import annotations

import numpy as np

from benchmarks.common import best_of, record
from verify.engine import Context
from verify.registry import get

CLAIMS = ("werner2023.c18", "buttaci2024.x01", "allouah2025.c11", "dutta2023.c10")


def _bench(check_id: str, device: str, repeat: int, points: int = 1000, single: int = 200) -> dict:
    spec = get(check_id)
    ctx = Context(device=device).for_check(check_id)
    space, obj = spec.space, spec.objective
    U = np.random.default_rng(0).random((points, space.size))
    batch = space.decode(U)
    obj.score_batch(ctx, space, space.decode(U[:2]))  # warm-up (a cached instance, imports)
    fv_s, ours = best_of(lambda: obj.score_batch(ctx, space, batch), repeat)
    rows = [space.decode(U[i:i + 1]) for i in range(single)]
    base_s, theirs = best_of(lambda: np.concatenate([obj.score_batch(ctx, space, r) for r in rows]), 1)
    rec = record(f"search_{check_id}", {"points_batched": points, "points_one_at_a_time": single, "dims": space.size},
                 "one objective call per instance", base_s * points / single, fv_s, ours[:single], theirs,
                 1e-9, ctx, repeat)
    rec["evaluations_per_s"] = {"batched": points / fv_s, "one_at_a_time": single / base_s}
    return rec


BENCHMARKS = {f"search_{cid}": (lambda device, repeat, cid=cid: _bench(cid, device, repeat)) for cid in CLAIMS}

if __name__ == "__main__":
    for cid in CLAIMS:
        r = _bench(cid, "cpu", 3)
        e = r["evaluations_per_s"]
        print(f"{cid:<18} {r['size']['dims']:>3} dims  batched {e['batched']:>10.0f} eval/s   one at a time "
              f"{e['one_at_a_time']:>8.0f} eval/s   x{r['ratio']:.0f}")
