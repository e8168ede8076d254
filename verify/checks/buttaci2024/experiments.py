"""buttaci2024 c18, c19: what the experiments' bookkeeping means, the two readings of E and Table 1.

docs/papers/buttaci2024.md §2.3 (Algorithm 1's mini-batches), 5.1-5.2 (Table 1), 6.1 (C18, C19), 7 items 14 and 17.
"""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import torch

from analytic.papers import buttaci2024 as B
from verify import figspec
from verify.algorithms.local_methods import batch_schedule, fedavg, run_local_rounds
from verify.checks.buttaci2024.common import F64, f64, says
from verify.engine import Context
from verify.fit import combine, exact_zero_verdict, family_z, identity_verdict, mc_identity_verdict
from verify.normal_draws import randn
from verify.problems.buttaci2024_logistic import sc_lr
from verify.registry import check, register_paper, result_for
from verify.result import Claim, Result, erratum

register_paper(B.PAPER)


def paper_steps(sizes: np.ndarray, E: int, reading: str, batch_size: int) -> np.ndarray:
    """Local steps per round as the paper describes them: Algorithm 1 partitions D_i into E mini-batches (E steps);
    the experiments run E epochs of mini-batches of size B (E ceil(N_i/B) steps)."""
    sizes = np.asarray(sizes)
    return np.full_like(sizes, E) if reading == "steps" else E * np.ceil(sizes / batch_size).astype(int)


C18_CLAIM = Claim(
    "Algorithm 1: each round a client partitions D_i into E mini-batches and takes one step per mini-batch (E steps, "
    "every sample once); the experiments instead run E = 10 local epochs with mini-batches of 256 (E ceil(N_i/B) "
    "steps, every sample E times). Both readings give unbiased steps, and they coincide when E = 1 and B >= N_i.",
    r"\#\text{steps}=E\ \text{(Alg. 1)}\quad\text{vs}\quad E\lceil N_i/B\rceil\ \text{(experiments)}",
    "buttaci2024, Algorithm 1; Section 6 (experimental setup, Table 2)",
    "\"steps\" = E \" (Algorithm 1) vs \" E ceil(N_i/B) \" (experiments)\"")


@check("buttaci2024.c18", "Both readings of E: E disjoint mini-batches (Algorithm 1) vs E epochs of ceil(N_i/B) steps",
       "identity", "holds", statements=("Algorithm 1", "Table 2"))
def c18_local_steps(ctx: Context, *, steps_rule=paper_steps, E: int = 4, batch_size: int = 8, gamma: float = 0.05) -> Result:
    """Claim 18 on SC-LR (binary logistic regression, lambda = 0.1, d = 10, C = 10 clients with 24-60 samples):
    (i) the steps each client takes and how often each sample is used, per reading, against the paper's counts;
    (ii) every step's mini-batch gradient at a fixed point is unbiased (Monte Carlo over R shuffles);
    (iii) with E = 1 and B >= max N_i both readings equal one full-gradient step; (iv) reported: how far one round
    moves under each reading (the theory-facing checks use reading (a) only)."""
    R = ctx.reps(200, 1000)
    prob = sc_lr(ctx.generator("problem"))
    sizes = prob.sizes.cpu().numpy()
    gen = ctx.generator("shuffles")
    sched = {"steps": batch_schedule(prob.sizes, E, "steps", gen, R, dtype=F64),
             "epochs": batch_schedule(prob.sizes, E, "epochs", gen, R, batch_size=batch_size, dtype=F64)}
    valid = prob.mask.cpu().numpy()
    counts, parts = {}, []
    for reading, s in sched.items():
        taken = s.active.sum(1).cpu().numpy()  # [R, C]: steps each client actually took
        uses = s.uses.cpu().numpy()  # [R, C, N]
        expected_steps = steps_rule(sizes, E, reading, batch_size)
        expected_uses = 1 if reading == "steps" else E
        parts.append(identity_verdict(taken, np.broadcast_to(expected_steps, taken.shape), rtol=0)[0])
        parts.append(exact_zero_verdict(np.abs(uses[:, valid] - expected_uses).max() + uses[:, ~valid].max())[0])
        counts[reading] = {"steps_per_client": taken[0].tolist(), "paper_steps": np.asarray(expected_steps).tolist(),
                           "uses_per_sample": expected_uses}
    sizes_a = (sched["steps"].weights > 0).sum(-1).cpu().numpy()  # [R, E, C] batch sizes of reading (a)
    lo, hi = np.floor(sizes / E), np.ceil(sizes / E)
    parts.append(exact_zero_verdict(int(np.sum((sizes_a < lo) | (sizes_a > hi))))[0])
    # (ii) unbiasedness at a fixed point
    w = f64(ctx, np.zeros((prob.n_clients, prob.dim))) + randn(prob.n_clients, prob.dim,
                                                                         generator=ctx.generator("point"),
                                                                         dtype=F64, device=ctx.torch_device)
    full = prob.grad(w).cpu().numpy()
    unbiased = {}
    for reading, s in sched.items():
        g = prob.batch_grad(w[None, None], s.weights).cpu().numpy()  # [R, S, C, d]
        act = s.active.cpu().numpy()
        step0 = g[:, 0]  # the first step: every client takes it in both readings
        est, se = step0.mean(0), step0.std(0, ddof=1) / math.sqrt(R)
        v, info = mc_identity_verdict(est, se, full, family_z(est.size), resolution=np.inf)
        parts.append(v)
        unbiased[reading] = {"max_abs_z": info["max_abs_z"], "active_steps_first_replicate": int(act[0].sum())}
    # (iii) reduction: E = 1 and one batch of everything
    w0 = f64(ctx, np.zeros(prob.dim))
    one = {"steps": batch_schedule(prob.sizes, 1, "steps", gen, 2, dtype=F64),
           "epochs": batch_schedule(prob.sizes, 1, "epochs", gen, 2, batch_size=int(sizes.max()), dtype=F64)}
    outs = {}
    for reading, s in one.items():
        tr = run_local_rounds(lambda x, t, k, s=s: prob.batch_grad(x, s.weights[:, k]), [fedavg(gamma)], prob.weights,
                              w0, T=1, E=int(s.weights.shape[1]), R=2, active=lambda t, k, s=s: s.active[:, k])
        outs[reading] = tr.wbar[-1, 0].cpu().numpy()
    full_step = run_local_rounds(lambda x, t, k: prob.grad(x), [fedavg(gamma)], prob.weights, w0, T=1, E=1, R=1)
    target = full_step.wbar[-1, 0, 0].cpu().numpy()
    v_red, i_red = identity_verdict(np.stack([outs["steps"], outs["epochs"]]), np.broadcast_to(target, (2, 2, prob.dim)),
                                    rtol=1e-12, atol=1e-15)
    parts.append(v_red)
    # (iv) one round of each reading from the same start
    moved = {}
    for reading, s in sched.items():
        tr = run_local_rounds(lambda x, t, k, s=s: prob.batch_grad(x, s.weights[:, k]), [fedavg(gamma)], prob.weights,
                              w0, T=1, E=int(s.weights.shape[1]), R=R, active=lambda t, k, s=s: s.active[:, k])
        moved[reading] = (tr.wbar[-1, 0] - w0).norm(dim=-1).cpu().numpy()
    verdict = combine(parts)
    return result_for(
        ctx, C18_CLAIM, verdict,
        observed={"counts": counts, "unbiasedness": unbiased, "reduction_max_abs_error": i_red["max_abs_error"],
                  "distance_moved_mean": {k: float(v.mean()) for k, v in moved.items()}, "replicates": R},
        predicted={"E": E, "batch_size": batch_size, "sizes": sizes.tolist()},
        explanation=(f"{says(verdict.passed, 'Both readings behave as the paper describes them.', 'A reading departs from the paper.')} "
                     f"Reading (a) takes {min(counts['steps']['steps_per_client'])} to {max(counts['steps']['steps_per_client'])} "
                     f"steps per client (E = {E}); reading (b) takes {min(counts['epochs']['steps_per_client'])} to "
                     f"{max(counts['epochs']['steps_per_client'])} steps (B = {batch_size}) and uses every sample {E} times. Both "
                     f"give unbiased mini-batch gradients (largest |z| {max(u['max_abs_z'] for u in unbiased.values()):.2f}) "
                     f"and reduce to one full-gradient step at E = 1 (to {i_red['max_abs_error']:.1e}); one round moves the "
                     f"model {moved['epochs'].mean() / moved['steps'].mean():.1f} times further under reading (b)."),
        figure=figspec.figure(figspec.panel(
            "Steps per round under the two readings of E", "client (sorted by N_i)", "local steps",
            [figspec.line("(a) Algorithm 1: E steps", np.sort(sizes), np.full(sizes.size, E), "observed"),
             figspec.line(f"(b) experiments: E ceil(N_i/{batch_size})", np.sort(sizes),
                          np.sort(np.asarray(counts["epochs"]["steps_per_client"])), "observed")],
            xscale="linear", yscale="linear")),
    )


C19_CLAIM = Claim(
    "Table 1 (paper lines 277-288), 'Rounds to converge (speedup)': every printed speedup is rounds(FedAvg)/"
    "rounds(method) printed to one decimal; and the text (line 314): 'having beta = 0.5 quite significantly hastens "
    "convergence by 30 rounds and yields a 1.6 times speedup compared with FedAvg' (FEMNIST imbalanced, convex: 80 -> 50).",
    r"\text{speedup}=\frac{\text{rounds}_{\rm FedAvg}}{\text{rounds}_{\rm method}},\quad 80/50=1.6",
    "buttaci2024, Table 1 and Section 6",
    "\"speedup\" = \"rounds\"_\"FedAvg\" / \"rounds\"_\"method\", 80/50 = 1.6")


def _table1(ctx: Context, claim: Claim, *, rounding, threshold: float, printed: dict, excused: tuple) -> Result:
    """Synthetic accuracy curves that first reach the threshold at Table 1's round counts (two shapes: linear and
    saturating) must give those counts back through the rounds-to-threshold rule; the speedups rounds(FedAvg)/
    rounds(method), printed with ``rounding``, must match every ``printed`` cell except the ``excused`` ones; and the
    text's 30 rounds and 1.6x."""
    rounds = np.array([r for r in B.TABLE1_ROUNDS.values()])  # [8, 4]
    t = np.arange(1, 201)
    linear = threshold + 0.002 * (t[None, None, :] - rounds[..., None])
    tau = 40.0
    shape = (1 - np.exp(-t[None, None, :] / tau)) / (1 - np.exp(-rounds[..., None] / tau))
    saturating = threshold * shape  # increasing, equal to the threshold exactly at the table's round
    recovered = [B.rounds_to_threshold(c, threshold) for c in (linear, saturating)]
    v_rec = combine(identity_verdict(r, rounds, rtol=0)[0] for r in recovered)
    keys = list(B.TABLE1_ROUNDS)
    speed = B.table1_speedups(rule=rounding)
    mismatches = []
    for key, cell in speed.items():
        shown = np.asarray(printed[key])
        for j in np.flatnonzero(np.abs(cell["printed_by_rule"] - shown) > 1e-9):
            mismatches.append({"method": key[0], "convex": key[1], "setting": B.TABLE1_SETTINGS[j],
                               "ratio": float(cell["ratio"][j]), "rule": float(cell["printed_by_rule"][j]),
                               "printed": float(shown[j])})
    excused_cells = {(k[0], k[1], B.TABLE1_SETTINGS[j]) for k, j in excused}
    unexplained = [m for m in mismatches if (m["method"], m["convex"], m["setting"]) not in excused_cells]
    v_cells, _ = exact_zero_verdict(len(unexplained))
    femnist = B.TABLE1_ROUNDS[("FedAvg", True)][3], B.TABLE1_ROUNDS[("beta=0.5", True)][3]
    v_text, _ = identity_verdict([femnist[0] - femnist[1], float(rounding(femnist[0] / femnist[1]))], [30, 1.6], rtol=0,
                                 atol=1e-12)
    verdict = combine([v_rec, v_cells, v_text])
    ratios = np.array([speed[k]["ratio"] for k in keys if k in speed]).ravel()
    printed_all = np.array([printed[k] for k in keys if k in speed]).ravel()
    # the exact second argument for a mismatching cell: which one-decimal value is nearest to the exact ratio, and
    # which rounding rules (half-up, floor, ceiling) give back all the other cells
    exact = []
    for m in unexplained:
        key = (m["method"], m["convex"])
        j = B.TABLE1_SETTINGS.index(m["setting"])
        num, den = B.TABLE1_ROUNDS[("FedAvg", key[1])][j], B.TABLE1_ROUNDS[key][j]
        r = Fraction(num, den)
        lo, hi = Fraction(math.floor(r * 10), 10), Fraction(math.floor(r * 10) + 1, 10)
        nearest = lo if r - lo < hi - r else hi
        mid = lo + Fraction(1, 20)
        exact.append({"cell": f"{m['setting']}, {m['method']}, convex={m['convex']}", "ratio": f"{num}/{den}",
                      "minus_midpoint": f"{num}/{den} - {mid} = {r - mid}",
                      "distance_to_printed": str(abs(r - Fraction(m["printed"]).limit_denominator(100))),
                      "nearest_one_decimal": float(nearest), "printed": m["printed"]})
    rules = {"half-up": B.round_half_up, "floor": lambda v: np.floor(np.asarray(v) * 10 + 1e-9) / 10,
             "ceiling": lambda v: np.ceil(np.asarray(v) * 10 - 1e-9) / 10}
    rule_misses = {}
    for name, rule in rules.items():
        rule_misses[name] = sum(int(np.sum(np.abs(rule(speed[k]["ratio"]) - np.asarray(printed[k])) > 1e-9))
                                for k in speed)
    finding = ""
    if not verdict.passed and unexplained and v_rec.passed and v_text.passed:
        e0 = exact[0]
        finding = erratum(
            f"Table 1 prints a speedup that its own round counts do not give: {e0['cell']}, {e0['ratio']} rounds is "
            f"printed {e0['printed']:.1f}x; to one decimal it is {e0['nearest_one_decimal']:.1f}x.",
            paper_says=("Table 1 (paper lines 277-288), 'Rounds to converge (speedup)': CIFAR10 imbalanced, convex, "
                        "FedAvg '36.53 / 20 (1.0x)' (line 281) and Ours{0.9} '36.67 / 19 (1.0x)' (line 283)."),
            correction=(f"{e0['ratio']} = {float(Fraction(e0['ratio'])):.4f}, printed to one decimal as every other cell "
                        f"is: {e0['nearest_one_decimal']:.1f}x."),
            witness=(f"{len(unexplained)} of {ratios.size} cells disagree with round-half-up to one decimal: "
                     + "; ".join(f"{m['setting']}, {m['method']}, convex={m['convex']}: ratio {m['ratio']:.4f}, "
                                 f"printed {m['printed']:.1f}, rule {m['rule']:.1f}" for m in unexplained) + "."),
            second_argument=(f"Exact rational arithmetic: {e0['ratio']} lies {e0['distance_to_printed']} from the "
                             f"printed {e0['printed']:.1f} and is nearest to {e0['nearest_one_decimal']:.1f} "
                             f"({e0['minus_midpoint']}, the sign deciding which side of the midpoint it lies). No single rounding rule "
                             f"reproduces the table: cells missed by half-up {rule_misses['half-up']}, by floor "
                             f"{rule_misses['floor']}, by ceiling {rule_misses['ceiling']}."),
        )
    return result_for(
        ctx, claim, verdict,
        observed={"mismatches": mismatches, "unexplained": unexplained, "femnist_rounds_saved": femnist[0] - femnist[1],
                  "femnist_speedup": femnist[0] / femnist[1], "exact": exact, "rule_misses": rule_misses},
        predicted={"known_quirk": "CIFAR10 imbalanced, convex, beta = 0.9: 20/19 = 1.053 printed as 1.0",
                   "excused": [f"{k[0]}, convex={k[1]}, {B.TABLE1_SETTINGS[j]}" for k, j in excused]},
        explanation=(f"Both curve shapes {says(v_rec.passed, 'give', 'do not give')} the table's round counts back. Of the "
                     f"{ratios.size} speedups, {ratios.size - len(mismatches)} match their printed value under the rounding rule; "
                     f"{len(unexplained)} do not{' (besides the excused cell)' if excused else ''}. "
                     f"The headline 80 -> 50 rounds is {femnist[0] - femnist[1]} rounds saved and a "
                     f"{float(rounding(femnist[0] / femnist[1])):.1f}x speedup."),
        finding=finding if finding else ("Table 1 prints 20/19 = 1.053 (CIFAR10 imbalanced, convex, beta = 0.9) as 1.0x "
                                         "while every other cell follows round-half-up to one decimal (1.1x); c19 "
                                         "carries it, with its five fields." if excused and mismatches else ""),
        figure=figspec.figure(figspec.panel(
            "Table 1 speedups: printed vs rounds(FedAvg)/rounds(method)", "exact ratio", "printed speedup",
            [figspec.line("Table 1 cells", ratios, printed_all, "observed"),
             figspec.line("rounding rule", np.sort(ratios), rounding(np.sort(ratios)), "bound"),
             figspec.line("printed = ratio", np.sort(ratios), np.sort(ratios), "reference")],
            xscale="linear", yscale="linear")),
    )


@check("buttaci2024.c19", "Table 1 as printed: every speedup is rounds(FedAvg)/rounds(method) to one decimal",
       "erratum", "violated", statements=("Table 1",))
def c19_table1(ctx: Context, *, rounding=B.round_half_up, threshold: float = 0.75,
               printed: dict = B.TABLE1_PRINTED) -> Result:
    """Table 1 as printed (Claim 19, 7 item 17): every printed speedup must be the ratio of the printed round counts,
    rounded to one decimal (``rounding``, round-half-up as the other cells); the rounds-to-threshold rule must give
    the counts back from curves; the text's '30 rounds and a 1.6 times speedup'. No cell is excused."""
    return _table1(ctx, C19_CLAIM, rounding=rounding, threshold=threshold, printed=printed, excused=())


X03_CLAIM = Claim(
    "Table 1 with its one inconsistent cell set aside (20/19 printed 1.0x, the erratum of c19): every other speedup is "
    "rounds(FedAvg)/rounds(method) rounded half-up to one decimal, and the text's 'beta = 0.5 ... hastens convergence by "
    "30 rounds and yields a 1.6 times speedup' (FEMNIST imbalanced, convex: 80 -> 50) follows from the counts.",
    C19_CLAIM.latex, "buttaci2024, Table 1 and Section 6 (line 314)", C19_CLAIM.typst)


@check("buttaci2024.x03", "Table 1 apart from its one inconsistent cell: the speedups follow from the round counts",
       "identity", "holds", statements=("Table 1",))
def x03_table1_repaired(ctx: Context, *, rounding=B.round_half_up, threshold: float = 0.75,
                        printed: dict = B.TABLE1_PRINTED) -> Result:
    """The repair of c19: the same comparison with the cell of docs/papers/buttaci2024.md §7 item 17 (B.TABLE1_KNOWN_QUIRK) excused."""
    return _table1(ctx, X03_CLAIM, rounding=rounding, threshold=threshold, printed=printed,
                   excused=(B.TABLE1_KNOWN_QUIRK,))
