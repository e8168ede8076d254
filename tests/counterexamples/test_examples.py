"""Every toy counterexample check (werner2023.c01-c08, x01) at quick fidelity reaches its expected
verdict; planted wrong algorithms must not; the stored Results draw their figures."""
from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from counterexamples import (
    at_scale_ifca,
    example1_myopic,
    example2_ifca,
    example3_cfl,
    figures,
)
from verify import registry
from verify.algorithms.federated_clustering import federated_clustering
from verify.algorithms.ifca import ifca
from verify.algorithms.myopic import myopic_clustering
from verify.engine import Context
from verify.result import Result, Verdict
from verify.testing import run_quick

IDS = [f"werner2023.c0{i}" for i in range(1, 9)] + ["werner2023.x01"]
NOT_REPRODUCED = {Verdict.NOT_REPRODUCED, Verdict.INCONCLUSIVE}


def quick(check_id: str) -> Result:
    return run_quick(check_id)  # shared with tests/test_all_checks.py


@pytest.mark.parametrize("check_id", IDS)
def test_check_reaches_expected_verdict(check_id):
    spec = registry.get(check_id)
    assert spec.kind == "counterexample" and spec.expected == Verdict.REPRODUCED
    res = quick(check_id)
    assert res.verdict == res.expected, (res.verdict, res.explanation, res.assumptions)
    assert res.figure and res.explanation and res.arrays
    json.loads(res.to_json())  # plain data
    assert all(isinstance(v, np.ndarray) for v in res.arrays.values())


def ctx(check_id: str, **kw) -> Context:
    return Context(fidelity="quick", **kw).for_check(check_id)


# -- the numbers the spec pins down -----------------------------------------------------------
def test_c01_numbers():
    o = quick("werner2023.c01").observed
    assert np.allclose(o["x_after_round_1"], [[1, 1, 2]] * 3, atol=1e-12)
    assert o["first_round_grouping_2_and_3"] == [2, 2, 2]
    assert o["partitions_eta_0.5_rounds_1_to_6"][:2] == ["{1, 2}, {3}", "{1}, {2, 3}"]
    assert np.all(np.asarray(o["x_T"])[:, 1:] == [1.0, 2.0])


def test_c03_controls_and_paper_eta_finding():
    res = quick("werner2023.c03")
    xc = np.asarray(res.observed["controls_x_T"])
    assert np.allclose(xc[1::3, 2], 13 / 9) and np.allclose(xc[2::3], 9 / 7) and np.allclose(xc[0::3, 1], 1.0)
    assert np.all(np.asarray(res.observed["paper_eta_max_abs_x2_last_rounds"]) > 1e-3)
    assert "eta = 0.5" in res.finding and "does not bring client 2" in res.finding
    assert res.finding.kind == "erratum" and not res.finding.missing()
    assert "Section 3.1.3" in res.finding.paper_says and "fractions" in res.finding.second_argument.lower()


def test_c07_errata_and_probability():
    res = quick("werner2023.c07")
    for p, lo, hi in res.observed["p_separate_(p,lo,hi)"].values():
        assert abs(p - 0.5) < 0.02 and lo < 0.5 < hi
    for counts in res.observed["partition_counts"].values():
        assert counts["{1, 2} | {3}"] == 0 and counts["{1, 3} | {2}"] > 4000
    assert "1/3, not 1/4" in res.finding and "{1, 3} | {2}, not {1, 2} | {3}" in res.finding
    assert res.finding.kind == "erratum" and not res.finding.missing()
    assert "line ~137" in res.finding.paper_says and "-1/4" in res.finding.witness
    lo_fedavg, hi_fedavg = res.observed["cfl_fedavg_phase_mean_model_(mean,lo,hi)"][1:]
    assert lo_fedavg < 1 / 3 + 0.01 and hi_fedavg > 1 / 3 - 0.01


def test_c08_batch_finding():
    res = quick("werner2023.c08")
    f = res.observed["mean_frac_rounds_ball2_is_23"]
    assert f["|B|=1, tau=0.25"] == f["|B|=1, tau=0.4"] == 0.0
    assert f["|B|=16, tau=0.25"] >= 0.95 and f["|B|=64, tau=0.25"] >= 0.95
    assert "|B| = 1" in res.finding and "0 of" in res.finding


def test_x01_fractions_with_intervals():
    o = quick("werner2023.x01").observed
    _, lo, hi = o["ifca_failure_fraction_(p,lo,hi)"]
    assert lo >= 0.05 and hi < 1.0
    assert o["fc_recovered_fraction_(p,lo,hi)"][0] == 1.0
    assert o["ifca_failures_that_are_collapses"] == o["ifca_failures"]
    # IFCA as its authors can run it (10 restarts, lowest training loss kept) still fails in most seeds:
    # the failure is not an artefact of a single start (30/32 at seed 0)
    p, lo, _ = o["ifca_with_restarts_failure_fraction_(p,lo,hi)"]
    assert o["ifca_restarts"] == 10 and lo >= 0.5
    assert o["ifca_with_restarts_seeds_where_some_restart_succeeded"] >= round((1 - p) * o["seeds"])


def test_x01_restarts_keep_the_lowest_training_loss():
    """The kept restart is the one of lowest training loss: with one restart it is that run itself, and
    a restart law that always starts at the planted optima is kept and succeeds."""
    from counterexamples.at_scale_ifca import build_instance, with_restarts
    from verify.algorithms.ifca import ifca

    ctx = Context().for_check("werner2023.x01")
    P, _, _ = build_instance(ctx, 4)
    kept, any_ok = with_restarts(ctx, P, 1, 20)
    assert torch.equal(kept, any_ok)

    def from_optima_once(problem, theta0, gamma, T, **kw):  # restart 0 of each seed starts at the optima
        theta0 = theta0.clone()
        theta0[::3] = problem.W[::3]
        return ifca(problem, theta0, gamma, T, **kw)

    kept, any_ok = with_restarts(ctx, P, 3, 20, from_optima_once)
    assert bool(kept.all()) and bool(any_ok.all())


# -- planted failures: a wrong algorithm must not reproduce -------------------------------------
def myopic_posing_as_fc(problem, x0, eta, T, radius, **kw):
    """Myopic-Clustering wearing FC's signature: it must fail the 'repaired' test."""
    tr = myopic_clustering(problem, x0, eta, 2, T)
    same = tr.labels[..., :, None] == tr.labels[..., None, :]
    tr.ball, tr.v, tr.own_grad, tr.pair_grads = same, tr.centers, tr.grads, None
    return tr


def fc_posing_as_myopic(problem, x0, eta, K, T):
    """Federated-Clustering wearing Myopic's signature: the 'failing' algorithm then does not fail."""
    from verify.algorithms.myopic import MyopicTrace

    tr = federated_clustering(problem, x0, eta, T, 0.5 / eta, steps=10)
    labels = (~tr.ball[..., 0]).long()  # cluster = "my ball holds client 1" or not
    return MyopicTrace(tr.x, tr.own_grad, labels, tr.v[:, :, :K], tr.losses)


def test_c01_planted_repair_is_myopic():
    assert example1_myopic.c01_myopic_misassigns(ctx("werner2023.c01"), fc=myopic_posing_as_fc).verdict == Verdict.NOT_REPRODUCED


def test_c01_planted_failing_algorithm_is_fc():
    assert example1_myopic.c01_myopic_misassigns(ctx("werner2023.c01"), myopic=fc_posing_as_myopic).verdict == Verdict.NOT_REPRODUCED


def test_c02_planted_repair_is_myopic():
    def fake(problem, x0, eta, T, radius, **kw):
        tr = myopic_posing_as_fc(problem, x0, eta, T, radius)
        tr.pair_grads = all_pairs_grads(problem, tr.x[:-1])
        return tr

    assert example1_myopic.c02_myopic_collapse(ctx("werner2023.c02"), fc=fake).verdict == Verdict.NOT_REPRODUCED


def all_pairs_grads(problem, xs):
    from verify.problems.base import all_pairs

    return torch.stack([problem.grad(all_pairs(x)) for x in xs])  # test only: loop over rounds


def test_c03_planted_local_only_fc():
    local = lambda problem, x0, eta, T, radius, **kw: federated_clustering(problem, x0, eta, T, 0.0, steps=kw.get("steps", 10))
    assert example1_myopic.c03_fc_escapes(ctx("werner2023.c03"), fc=local).verdict in NOT_REPRODUCED


def test_c04_c05_c06_planted_collapsing_fc():
    collapsing = lambda problem, x0, eta, T, radius, **kw: federated_clustering(problem, x0, eta, T, 2.5, steps=10)
    for evaluate, cid in ((example2_ifca.c04_ifca_option1_stuck, "werner2023.c04"), (example2_ifca.c05_ifca_option2_hypcluster_stuck, "werner2023.c05"),
                          (example2_ifca.c06_fc_solves_example2, "werner2023.c06")):
        assert evaluate(ctx(cid), fc=collapsing).verdict == Verdict.NOT_REPRODUCED, cid


def test_c04_planted_ifca_that_does_not_fail():
    def well_started(problem, theta0, gamma, T, **kw):  # ignores the paper's initialisation
        return ifca(problem, torch.tensor([[[-1.0], [1.0]]], dtype=theta0.dtype).expand_as(theta0).clone(), gamma, T, **kw)

    assert example2_ifca.c04_ifca_option1_stuck(ctx("werner2023.c04"), ifca_fn=well_started).verdict == Verdict.NOT_REPRODUCED


def test_c07_planted_oracle_bipartition():
    def oracle(S, members):  # always the true split {1} | {2, 3}
        side = torch.zeros_like(members)
        side[:, 1:] = True
        return side & members

    assert example3_cfl.c07_cfl_splits_2_and_3(ctx("werner2023.c07"), bipartition=oracle).verdict == Verdict.NOT_REPRODUCED


def test_c08_planted_fc_with_hidden_batching():
    def batched(problem, x0, eta, T, radius, **kw):
        kw["batch_size"] = 64
        return federated_clustering(problem, x0, eta, T, radius, **kw)

    assert example3_cfl.c08_fc_needs_batching(ctx("werner2023.c08"), fc=batched).verdict == Verdict.NOT_REPRODUCED


def test_x01_planted_ifca_that_never_fails():
    def oracle_init(P, theta0, gamma, T, **kw):
        return ifca(P, P.W.clone(), gamma, T, **kw)

    res = at_scale_ifca.x01_ifca_fails_at_scale(ctx("werner2023.x01", replicates=10), ifca_fn=oracle_init)
    assert res.verdict == Verdict.NOT_REPRODUCED
    assert res.observed["ifca_failures"] == 0


def test_x01_planted_fc_that_is_ifca():
    def ifca_as_fc(P, x0, eta, T, radius, **kw):
        itr = ifca(P, x0[:, :2].clone(), 0.3, T, option="I", record_grads=False)
        lab = itr.assign
        tr = type("T", (), {})()
        tr.ball = lab[..., :, None] == lab[..., None, :]
        tr.x = torch.stack([th.gather(1, a[..., None].expand(-1, -1, th.shape[-1])) for th, a in zip(itr.theta[1:], lab)])
        return tr

    res = at_scale_ifca.x01_ifca_fails_at_scale(ctx("werner2023.x01", replicates=10), fc=ifca_as_fc)
    assert res.verdict in NOT_REPRODUCED


# -- determinism and seeds --------------------------------------------------------------------
def test_same_seed_same_numbers_other_seed_other_draws():
    a = example3_cfl.c07_cfl_splits_2_and_3(ctx("werner2023.c07", seed=5))
    b = example3_cfl.c07_cfl_splits_2_and_3(ctx("werner2023.c07", seed=5))
    c = example3_cfl.c07_cfl_splits_2_and_3(ctx("werner2023.c07", seed=6))
    assert a.observed["partition_counts"] == b.observed["partition_counts"]
    assert a.observed["partition_counts"] != c.observed["partition_counts"]


# -- stored results draw their figures ------------------------------------------------------------
@pytest.mark.parametrize("check_id,draw", [("werner2023.c01", figures.draw_example1), ("werner2023.c04", figures.draw_example2),
                                           ("werner2023.c05", figures.draw_example2), ("werner2023.c07", figures.draw_example3)])
def test_draw_functions_work_from_stored_results(tmp_path, check_id, draw):
    from verify.store import ResultStore

    store = ResultStore(tmp_path / "results")
    store.save(quick(check_id))
    doc = json.loads(store.json_path(check_id).read_text())
    with np.load(store.npz_path(check_id)) as z:
        arrays = {k: z[k] for k in z.files}
    stored = Result.from_dict(doc["result"], arrays)
    png = draw(stored, tmp_path / f"{check_id}.png")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert stored.figure["draw"].startswith("counterexamples.figures:")
    from PIL import Image

    with Image.open(png) as im:
        assert im.size[0] >= 900  # ~6.5 in at 150 dpi
        assert np.asarray(im.convert("L")).std() > 10  # not blank
