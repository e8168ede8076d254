"""The store across seeds and grid points: layout, keys, and several processes writing one directory."""
import hashlib
import multiprocessing as mp

import numpy as np
import pytest

from verify.result import Claim, Result, Verdict
from verify.store import SWEEP_DIR, ResultStore, grid_key


def make_result(cid="werner2023.c09", tag=0.0, n=2000):
    return Result(id=cid, paper=cid.split(".")[0], title="t", claim=Claim("c", "x", "Thm 1", "x"), kind="rate",
                  verdict=Verdict.HOLDS, expected=Verdict.HOLDS, observed={"tag": float(tag)},
                  arrays={"trace": np.full(n, float(tag))})


def test_seed_zero_without_grid_is_the_top_level_file(tmp_path):
    st = ResultStore(tmp_path)
    assert st.json_path("werner2023.c09", 0, {}) == st.json_path("werner2023.c09") == tmp_path / "werner2023.c09.json"
    assert st.json_path("werner2023.c09", 3) == tmp_path / SWEEP_DIR / "werner2023.c09" / "s3.json"
    g = st.json_path("werner2023.c09", 0, {"m": 50})
    assert g.parent == tmp_path / SWEEP_DIR / "werner2023.c09" and g.name == f"s0.m=50.g{grid_key({'m': 50})}.json"
    st.save(make_result(tag=1), {"seed": 3}, seed=3)
    assert st.ids() == []  # sweep points are not top-level results
    assert st.is_done("werner2023.c09", {"seed": 3}, seed=3) and not st.is_done("werner2023.c09", {"seed": 3})
    assert st.load("werner2023.c09", seed=3).observed["tag"] == 1.0


def test_grid_key_is_stable_and_order_free():
    assert grid_key({"m": 50, "n": 100}) == grid_key({"n": 100, "m": 50})
    assert grid_key({"m": 50}) != grid_key({"m": 100}) and grid_key({}) == grid_key(None) == ""
    # pinned to its definition (sha256 of the canonical JSON), so stored keys survive releases
    assert grid_key({"n": 100, "m": 50}) == hashlib.sha256(b'{"m":50,"n":100}').hexdigest()[:10]


def test_load_points_lists_every_seed_and_grid(tmp_path):
    st = ResultStore(tmp_path)
    st.save(make_result(tag=0), {"seed": 0}, seed=0)  # the top-level file
    for s in (1, 2):
        st.save(make_result(tag=s), {"seed": s}, seed=s)
        st.save(make_result(tag=10 + s), {"seed": s}, seed=s, grid={"m": 5})
    pts, bad = st.load_points("werner2023.c09")
    assert not bad and st.swept_ids() == ["werner2023.c09"]
    assert sorted((s, tuple(g.items()), r.observed["tag"]) for s, g, r in pts) == [
        (0, (), 0.0), (1, (), 1.0), (1, (("m", 5),), 11.0), (2, (), 2.0), (2, (("m", 5),), 12.0)]
    st.json_path("werner2023.c09", 2).write_text("{broken")
    pts, bad = st.load_points("werner2023.c09")
    assert len(pts) == 4 and len(bad) == 1 and "unreadable" in bad[0][1]


def _writer(root, w, rounds):
    st = ResultStore(root)
    for k in range(rounds):
        st.save(make_result(tag=1000 * w + k), {"w": w, "k": k}, seed=w, grid={"k": k})  # its own points
        st.save(make_result(tag=1000 * w + k), {"w": w}, seed=99)  # one point every writer fights over


def _reader(root, rounds, out):
    st = ResultStore(root)
    mismatched = 0
    for _ in range(rounds):
        try:
            r = st.load("werner2023.c09", seed=99)
        except Exception:  # noqa: BLE001 - not written yet
            continue
        mismatched += int(not np.all(r.arrays["trace"] == r.observed["tag"]))
    out.put(mismatched)


def test_concurrent_writers_lose_and_corrupt_nothing(tmp_path):
    ctx = mp.get_context("fork")
    writers, rounds = 4, 15
    q = ctx.Queue()
    procs = [ctx.Process(target=_writer, args=(tmp_path, w, rounds)) for w in range(writers)]
    procs.append(ctx.Process(target=_reader, args=(tmp_path, 200, q)))
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
        assert p.exitcode == 0
    assert q.get(timeout=5) == 0  # never one writer's JSON with another's arrays
    st = ResultStore(tmp_path)
    for w in range(writers):
        for k in range(rounds):
            r = st.load("werner2023.c09", seed=w, grid={"k": k})
            assert r.observed["tag"] == 1000 * w + k and np.all(r.arrays["trace"] == 1000 * w + k)
            assert st.is_done("werner2023.c09", {"w": w, "k": k}, seed=w, grid={"k": k})
    last = st.load("werner2023.c09", seed=99)  # whole, from one of the writers' last rounds
    assert last.observed["tag"] in {1000 * w + rounds - 1 for w in range(writers)}
    assert np.all(last.arrays["trace"] == last.observed["tag"])
    assert not list(tmp_path.rglob("*.tmp"))


@pytest.mark.parametrize("seed", [1, 7])
def test_top_level_file_of_another_seed_is_not_the_sweeps_seed_zero(tmp_path, seed):
    st = ResultStore(tmp_path)
    st.save(make_result(tag=5), {"seed": seed})  # `fedverify run --seed S` as today
    assert not st.is_done("werner2023.c09", {"seed": 0}, seed=0)
