"""One failure at scale (werner2023.x01): IFCA from random initialisation on planted clustered
linear regression loses a cluster in a measured fraction of seeds; Federated-Clustering recovers
the clusters in every seed.

Instance (per seed, batched as replicates R): K = 2 clusters of 10 clients, d = 100, m = 400 noise-
free samples per client, cluster optima w_1, w_2 exactly 10 apart (verify.problems.clustered_regression).
IFCA Option I (Ghosh et al. 2020, Algorithm 1: loss-value assignment, the members' gradients summed and
divided by m = N as in the paper and its reference code, gamma = 0.3) starts from theta_k ~ N(0, 3^2 I_d); Federated-Clustering (Algorithm 2, eta = 0.5, M = 10, tau = Delta/2 = 5)
starts every client from its own x_i ~ N(0, 3^2 I_d). The failure is Example 2's mechanism at scale:
when every client's loss is lower at the same initial model, that model drifts to the average of the
two optima while the other never gets a member again.

Measured (quick, 32 seeds): IFCA fails in 31/32 seeds (seed 0) and 32/32 (seed 1) with Algorithm 1's division
by m; with the division by the cluster size that this module used before (``normalize="members"``) it failed in
13/32 and 12/32, so the earlier version understated IFCA's failures. Run as its authors can run it, with 10
random restarts per seed and the lowest training loss kept, IFCA still fails in 30/32 (seed 0) and 29/32 (seed 1)
seeds: the failure is not an artefact of a single start (reported beside the claim, which is about one start).
"""
from __future__ import annotations

import numpy as np
import torch

from analytic.papers.werner2023 import PAPER
from verify import figspec
from verify.algorithms.federated_clustering import ball_equals, federated_clustering
from verify.algorithms.ifca import ifca, partition_matches
from verify.engine import Context
from verify.fit import (
    apply_assumptions,
    counterexample_verdict,
    proportion_ci,
    proportion_verdict,
)
from verify.problems.clustered_regression import ClusteredRegression, planted_clustered_regression
from verify.registry import check, register_paper, result_for
from verify.result import Assumption, Claim, Result

register_paper(PAPER)

N_PER, K, D, M_SAMPLES, SEPARATION = 10, 2, 100, 400, 10.0
INIT_SCALE = 3.0
IFCA_GAMMA, FC_ETA, FC_M = 0.3, 0.5, 10
MIN_FAILURE_RATE = 0.05  # "clearly above 0": the lower 95% Clopper-Pearson end must reach 5%
DIST_TOL = 1e-3
TITLE = "IFCA from random initialisation loses a cluster in a measured fraction of seeds; FC recovers all (K = 2, d = 100)"


def _np(t: torch.Tensor) -> np.ndarray:
    return t.detach().cpu().numpy()


def build_instance(ctx: Context, R: int):
    """The planted problem and the random initialisations (IFCA's K models, FC's N models)."""
    gen = ctx.generator("instance")
    P = planted_clustered_regression(gen, R, N_PER, K, D, M_SAMPLES, SEPARATION, dtype=ctx.dtype, device=ctx.torch_device)
    init = ctx.generator("initialisation")
    theta0 = INIT_SCALE * torch.randn(R, K, D, generator=init, dtype=ctx.dtype, device=ctx.torch_device)
    x0 = INIT_SCALE * torch.randn(R, K * N_PER, D, generator=init, dtype=ctx.dtype, device=ctx.torch_device)
    return P, theta0, x0


def with_restarts(ctx: Context, P: ClusteredRegression, restarts: int, T: int, ifca_fn=ifca):
    """IFCA as its authors run it when they can afford it: ``restarts`` random initialisations per seed
    (the same N(0, 3^2 I) law), the run with the lowest final training loss kept (the loss each client
    has at the model it picks, summed). Returns per seed: whether the kept run recovered the clusters
    ``[R]``, and whether any restart did ``[R]``."""
    R, S = P.replicates, restarts
    PS = P.repeated(S, interleave=True)
    theta0 = INIT_SCALE * torch.randn(R * S, K, D, generator=ctx.generator("restarts"), dtype=ctx.dtype,
                                      device=ctx.torch_device)
    tr = ifca_fn(PS, theta0, IFCA_GAMMA, T, option="I", record_grads=False)
    ok = partition_matches(tr.assign[-1], P.true_labels).reshape(R, S)
    train_loss = tr.client_loss[-1].sum(-1).reshape(R, S)
    kept = ok.gather(1, train_loss.argmin(1, keepdim=True)).squeeze(1)
    return kept, ok.any(1)


def collapsed(assign: torch.Tensor) -> torch.Tensor:
    """``[..., N]`` -> bool: every client picked the same model (a cluster model lost all members)."""
    return assign.amin(-1) == assign.amax(-1)


def fc_recovered(tr, P) -> torch.Tensor:
    """Per seed: every client's final ball is its true cluster and its model is within 1e-3 of w_k."""
    balls = ball_equals(tr.ball[-1], P.true_labels).all(-1)
    dist = torch.linalg.vector_norm(tr.x[-1] - P.optima(), dim=-1).amax(-1)
    return balls & (dist < DIST_TOL)


@check("werner2023.x01", TITLE, "counterexample", "reproduced", statements=("Section 1.1",))
def x01_ifca_fails_at_scale(ctx: Context, *, ifca_fn=ifca, fc=federated_clustering, restarts: int = 10) -> Result:
    """IFCA vs FC on planted clustered regression, seeds batched as replicates (quick 32, full 128).

    The claim is about one random initialisation (the failure mode of section 2.1). Beside it, IFCA is
    also run as its authors can run it, with ``restarts`` random initialisations per seed and the lowest
    training loss kept; that number is reported, labelled, and does not enter the verdict."""
    R = ctx.reps(32, 128)
    T_ifca, T_fc = ctx.pick(50, 100), ctx.pick(30, 60)
    P, theta0, x0 = build_instance(ctx, R)
    itr = ifca_fn(P, theta0, IFCA_GAMMA, T_ifca, option="I", record_grads=False)
    ok_by_round = partition_matches(itr.assign, P.true_labels)  # [T, R]
    failed = ~ok_by_round[-1]
    k_fail = int(failed.sum())
    p_fail = proportion_ci(k_fail, R)
    collapse_T = collapsed(itr.assign[-1])
    p_collapse0 = proportion_ci(int(collapsed(itr.assign[0]).sum()), R)

    # control: the same IFCA started next to the planted optima succeeds (the failure is the initialisation's)
    near = P.W + 0.1 * torch.randn(P.W.shape, generator=ctx.generator("near-oracle"), dtype=ctx.dtype, device=ctx.torch_device)
    ctr = ifca_fn(P, near, IFCA_GAMMA, T_ifca, option="I", record_grads=False)
    control_ok = bool(partition_matches(ctr.assign[-1], P.true_labels).all())

    fair_kept, fair_any = with_restarts(ctx, P, restarts, T_ifca, ifca_fn)
    p_fair_fail = proportion_ci(int((~fair_kept).sum()), R)

    ftr = fc(P, x0, FC_ETA, T_fc, SEPARATION / 2, steps=FC_M)
    rec = fc_recovered(ftr, P)
    p_fc = proportion_ci(int(rec.sum()), R)
    balls_by_round = ball_equals(ftr.ball, P.true_labels).all(-1)  # [T, R]
    v_fail, _ = proportion_verdict(k_fail, R, MIN_FAILURE_RATE, side="lower")
    failure = v_fail.passed
    repaired = int(rec.sum()) == R
    assumptions = [Assumption("control: IFCA from theta_k = w_k + N(0, 0.1^2 I) recovers the clusters in every seed", control_ok,
                              float(partition_matches(ctr.assign[-1], P.true_labels).double().mean()), "exact",
                              "shows the failures come from the initialisation, not from the implementation")]
    verdict = apply_assumptions(counterexample_verdict(failure, repaired), assumptions)

    dist_ifca = torch.linalg.vector_norm(
        itr.theta[-1].gather(1, itr.assign[-1][..., None].expand(-1, -1, D)) - P.optima(), dim=-1).mean(-1)  # [R]
    dist_fc = torch.linalg.vector_norm(ftr.x[-1] - P.optima(), dim=-1).mean(-1)
    L = P.smoothness()
    r_ifca = np.arange(1, T_ifca + 1)
    r_fc = np.arange(1, T_fc + 1)
    curve = lambda ok: [proportion_ci(int(k), R) for k in ok.sum(1)]
    ci_ifca, ci_fc = curve(ok_by_round), curve(balls_by_round)
    band = f"95% Clopper-Pearson interval, {R} seeds"
    figure = figspec.figure(
        figspec.panel("Clusters recovered by round (K=2, d=100, N=20)", "round t", "fraction of seeds", [
            figspec.interval("IFCA (Option I): assignment = true partition", r_ifca, *zip(*ci_ifca), band),
            figspec.interval("Federated-Clustering: every ball = true cluster", r_fc, *zip(*ci_fc), band)],
            xscale="log", yscale="linear"),
        figspec.panel(f"IFCA fails in {k_fail}/{R} seeds ({p_fail[0]:.2f}, 95% CI {p_fail[1]:.2f}-{p_fail[2]:.2f}); "
                      f"FC in {R - int(rec.sum())}/{R}", "seed (sorted by distance)", "mean ||x_i - w_k(i)|| at the end", [
            figspec.line("IFCA (Option I), random init", np.arange(1, R + 1), np.sort(_np(dist_ifca)), "observed"),
            figspec.line("Federated-Clustering, random init", np.arange(1, R + 1), np.sort(_np(dist_fc)), "observed"),
            figspec.line("half the separation (collapsed model)", [1, R], SEPARATION / 2, "reference")],
            xscale="linear", yscale="log"))
    return result_for(
        ctx, verdict=verdict,
        claim=Claim(
            "Loss-value clustering is sensitive to initialisation (werner2023 section 2.1 on IFCA, Fig. 1(b)); on a planted "
            "clustered linear regression with K = 2 and d = 100, IFCA from random initial models fails to recover the "
            "clusters in a clearly positive fraction of seeds, while Federated-Clustering, which clusters gradients "
            "evaluated at each client's model, recovers them in every seed.",
            r"\Pr_{\text{seed}}[\text{IFCA fails}] > 0,\quad \Pr_{\text{seed}}[\text{FC fails}] = 0",
            "werner2023 section 1 (related work: IFCA 'sensitive to initialization'), section 2.1; a check beyond the paper's examples",
            "Pr_(\"seed\")[\"IFCA fails\"] > 0, quad Pr_(\"seed\")[\"FC fails\"] = 0"),
        observed={
            "seeds": R, "N": K * N_PER, "K": K, "d": D, "m": M_SAMPLES, "separation": SEPARATION, "init_scale": INIT_SCALE,
            "T_ifca": T_ifca, "T_fc": T_fc, "ifca_gamma": IFCA_GAMMA, "fc_eta": FC_ETA, "fc_tau": SEPARATION / 2, "fc_M": FC_M,
            "ifca_failures": k_fail, "ifca_failure_fraction_(p,lo,hi)": p_fail,
            "ifca_failures_that_are_collapses": int((failed & collapse_T).sum()),
            "ifca_round1_collapse_fraction_(p,lo,hi)": p_collapse0,
            "fc_recovered_fraction_(p,lo,hi)": p_fc, "fc_first_round_all_balls_correct": _np(
                torch.where(balls_by_round.any(0), balls_by_round.to(torch.int8).argmax(0) + 1, torch.zeros_like(balls_by_round[0], dtype=torch.long))),
            "mean_distance_to_own_optimum": {"ifca_failed_seeds": float(dist_ifca[failed].mean()) if k_fail else None,
                                             "ifca_recovered_seeds": float(dist_ifca[~failed].mean()) if k_fail < R else None,
                                             "fc_all_seeds_max": float(dist_fc.max())},
            "smoothness_L_max": float(L.max()), "smoothness_L_median": float(L.median()),
            "near_oracle_ifca_control_ok": control_ok,
            "ifca_restarts": restarts,
            "ifca_with_restarts_failure_fraction_(p,lo,hi)": p_fair_fail,
            "ifca_with_restarts_seeds_where_some_restart_succeeded": int(fair_any.sum()),
        },
        predicted={"fc_recovered_fraction": 1.0, "ifca_failure_fraction_lower_ci_at_least": MIN_FAILURE_RATE,
                   "collapsed_distance_to_optimum": SEPARATION / 2},
        fit={"rule": "failure reproduced when the 95% Clopper-Pearson lower end of IFCA's failure fraction is >= "
                     f"{MIN_FAILURE_RATE:g}; repaired when FC recovers the clusters in all {R} seeds"},
        explanation=(
            f"IFCA lost a cluster in {k_fail} of {R} seeds ({p_fail[0]:.2f}, 95% CI {p_fail[1]:.2f} to {p_fail[2]:.2f}); "
            f"{int((failed & collapse_T).sum())} of these failures are collapses where every client sits on one model, "
            f"which then drifts to the average of the two optima (mean distance "
            f"{(float(dist_ifca[failed].mean()) if k_fail else float('nan')):.2f} from each client's optimum, half the "
            f"separation {SEPARATION:g}) while the other model never gets a member back. From near the planted optima the "
            f"same IFCA succeeds in every seed ({control_ok}). IFCA divides the members' gradient sum by m = N, as IFCA's "
            f"Algorithm 1 and its reference code do. Federated-Clustering recovered the clusters in "
            f"{int(rec.sum())} of {R} seeds, every client ending within {float(dist_fc.max()):.1e} of its optimum. "
            f"Run with {restarts} random restarts per seed, keeping the lowest training loss (not part of the claim, "
            f"which is about one initialisation), IFCA fails in {int((~fair_kept).sum())} of {R} seeds; some restart "
            f"succeeded in {int(fair_any.sum())} of {R}."),
        assumptions=assumptions,
        figure=figure,
        arrays={"ifca_partition_ok_by_round": _np(ok_by_round), "ifca_assign_final": _np(itr.assign[-1]),
                "ifca_assign_round1": _np(itr.assign[0]), "fc_balls_ok_by_round": _np(balls_by_round),
                "fc_recovered": _np(rec), "ifca_distance_final": _np(dist_ifca), "fc_distance_final": _np(dist_fc)},
    )

