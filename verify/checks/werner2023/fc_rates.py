"""werner2023 checks c20-c24: Federated-Clustering's rates (Theorem 3.3, eq. (118)), its gap to the
ground-truth clustering (Fig. 3) and its robustness to Byzantine clients (section 4.4).

Our reading: docs/papers/werner2023.md §2.3, 3.3, 5.1, 5.6, 6.5 and 7 (A7). Default problem of
docs/papers/werner2023.md §6.5: clustered quadratics f_i(x) = 1/2 ||x - x*_k||^2 (L = mu = 1, A = D = 0), optima Delta = 20
apart, d = 10, gradient noise sigma = 1 per sample, eta = 1/L, tau = sqrt(delta rho Delta) with
rho = sigma/sqrt|B|. Where the claim is one of Theorem 3.3's rates, the Threshold-Clustering steps M
satisfy the theorem's eq. (22), and to keep that affordable the rate checks use K = 2 clusters
(delta = 1/2, so (22) asks about 20 steps rather than 40 with delta = 1/4).
"""
from __future__ import annotations

import math

import numpy as np
import torch

from analytic.bounds import Bound
from analytic.constants.clustering import a2_quadratics
from analytic.papers import werner2023 as W
from verify import figspec
from verify.algorithms.clustering_baselines import baseline
from verify.algorithms.federated_clustering import ShrunkQuantileRadius, StrictQuantileRadius, fc_round, federated_clustering_run
from verify.algorithms.ifca import ifca
from verify.attacks.werner2023_attacks import EDGE_OF_BALL, Byzantine
from verify.engine import Context
from verify.fit import apply_assumptions, bound_verdict, combine, controlled, median_verdict, proportion_verdict, rate_verdict
from verify.normal_draws import randn
from verify.problems.clustered_quadratics import clustered_quadratics
from verify.problems.clustered_regression import paper_synthetic_regression
from verify.problems.points import random_unit
from verify.registry import check, register_paper, result_for
from verify.result import Assumption, Claim, Result, remark
from verify.strength import aside

register_paper(W.PAPER)

D_DIM, SIGMA, DELTA = 10, 1.0, 20.0


def _np(t) -> np.ndarray:
    return t.detach().cpu().numpy()


def _tc_steps(B_max: float, delta: float) -> int:
    """Threshold-Clustering steps satisfying eq. (22) for the largest batch."""
    return max(10, math.ceil(W.fc_steps_required(SIGMA, B_max, DELTA, delta)))


def _theory_tau(delta: float, B: torch.Tensor) -> torch.Tensor:
    """tau = sqrt(delta rho Delta), rho = sigma / sqrt|B| (docs/papers/werner2023.md §6.5), per replicate."""
    return torch.sqrt(delta * (SIGMA / torch.sqrt(B)) * DELTA)


def _fc_assumptions(*, steps: int, B_max: float, delta: float, beta: float = 0.0, A2: float = 0.0, D2: float = 0.0,
                    sigma: float = SIGMA) -> list[Assumption]:
    need_l = W.fc_steps_required(sigma, B_max, DELTA, delta)
    need_sep = W.fc_separation_required(A2, D2, sigma, delta)
    return [
        Assumption("steps l >= eq. (22)", steps >= need_l, steps, "exact", f"required {need_l:.1f} for |B| = {B_max:g}"),
        Assumption("separation Delta >= max(1,A^4) max(1,D^2) sigma/delta (constant 1)", DELTA >= need_sep, DELTA, "exact",
                   f"required {need_sep:.3g}; A^2 = {A2:g}, D^2 = {D2:g} exact (planted)"),
        Assumption("eta <= 1/L", True, 1.0, "exact", "eta = 1/L"),
        Assumption("beta <= delta", beta <= delta, beta, "exact", f"delta = {delta:.3g}"),
    ]


@check("werner2023.c20", "Federated-Clustering with full batches: (1/T) sum ||grad f_i||^2 falls as 1/T for every client",
       "rate", "holds", statements=("Theorem 3.3",))
def c20_full_batch(ctx: Context, *, theory: Bound = W.FULL_BATCH, Ts=(10, 20, 40, 80, 160, 320), kappa: float = 4.0,
                   tol: float = 0.1, min_ball: float = 0.99) -> Result:
    """docs/papers/werner2023.md §6.5 claim 20: sigma = 0, tau = Delta/2, eta = 1/L, M = 10 on clustered quadratics whose Hessians have
    spectra in [1, kappa] (A^2 > 0, exact); every client's slope of the running average in T must lie within
    theory's exponent +- tol, and each ball must be the true cluster in >= 99% of (client, round) pairs (a diagnostic of
    how FC gets there, run aside: it does not speak for the verdict's strength).
    The paper's synthetic regression (quantile radius q = 0.25) is run beside it and reported.

    What the 1/T slope says: any run whose squared gradients are summable has a running average C/T, so the slope alone
    is automatic for every convergent run. The claim's content is that every client's sum is finite, i.e. FC converges
    to each client's own stationary point although the clients' optima differ. Control: FedAvg, the same
    clients without clustering, converges to the global optimum, where ||grad f_i|| stays of order Delta; its running
    average does not fall (slope ~0) and must violate the claim (verify.fit.controlled)."""
    R = ctx.reps(4, 16)
    Ts = np.asarray(Ts)
    T = int(Ts.max())
    prob = clustered_quadratics(ctx.generator("quadratics"), R, 4, 4, D_DIM, DELTA, hessian="planted", mu=1.0, L=kappa,
                                dtype=ctx.dtype, device=ctx.torch_device)
    x0 = torch.zeros(R, prob.n_clients, D_DIM, dtype=ctx.dtype, device=ctx.torch_device)
    run = federated_clustering_run(prob, x0, 1.0 / kappa, T, DELTA / 2)
    Y = _np(run.running_mean())[Ts - 1]  # [P, R, N]
    rows = Y.reshape(Ts.size, -1).T  # one row per (instance, client), each an exact curve
    rng = ctx.numpy_rng("bootstrap")
    verdicts, slopes = [], []
    for y in rows:  # every client's own slope (the claim is per client)
        v, f = rate_verdict(Ts, y[None], theory, param="T", values={"F": 1.0}, tol=tol, rng=rng, deterministic=True)
        verdicts.append(v), slopes.append(f["slope"])
    slopes = np.array(slopes)
    ok = _np(run.ball_ok)
    with aside():  # how FC converges (its balls), not the rate claimed: a diagnostic beside the verdict
        v_ball, ball = proportion_verdict(int(ok.sum()), ok.size, min_ball)
    fa = baseline("fedavg", prob, x0, 1.0 / kappa, T)
    Yc = _np(fa.running_mean())[Ts - 1].reshape(Ts.size, -1).T
    with aside():  # the control is not the claim
        v_ctrl, f_ctrl = rate_verdict(Ts, Yc.mean(0, keepdims=True), theory, param="T", values={"F": 1.0}, tol=tol,
                                      deterministic=True)
    control_field = {"what": "FedAvg (the same clients, no clustering), full batch, eta = 1/L", "verdict": v_ctrl.value,
                     "detail": f"slope of the clients' mean running average {f_ctrl['slope']:.3f} in T (claimed -1 +- {tol:g}): "
                               "FedAvg's gradients do not vanish, it converges to the global optimum"}

    reg = paper_synthetic_regression(ctx.generator("regression"), 2, 4, 4, D_DIM, 9, dtype=ctx.dtype, device=ctx.torch_device)
    L_cluster = reg.smoothness().reshape(2, 4, 4).amax(2).repeat_interleave(4, 1)
    xr0 = reg.optima() + 0.1 * randn(reg.optima().shape, generator=ctx.generator("regression init"), dtype=ctx.dtype,
                                           device=ctx.torch_device)
    rrun = federated_clustering_run(reg, xr0, 1.0 / L_cluster, T, ShrunkQuantileRadius(0.25))
    Yr = _np(rrun.running_mean())[Ts - 1].reshape(Ts.size, -1).T
    reg_slopes = np.polyfit(np.log10(Ts), np.log10(Yr.T), 1)[0]
    H = reg.H.reshape(2, 4, 4, D_DIM, D_DIM).mean(2)
    lam = torch.linalg.eigvalsh(H)
    reg_kappa = _np(lam[..., -1] / lam[..., 0])
    A2 = a2_quadratics(_np(prob.hessians()[0]), _np(prob.x_star[0]), np.asarray(prob.true_labels))
    assumptions = [Assumption("full batch: sigma = 0, so eq. (22) asks l >= 1", True, 0.0, "exact", "deterministic gradients"),
                   Assumption("eta <= 1/L", True, 1.0 / kappa, "exact", f"L = {kappa:g} planted"),
                   Assumption("A^2 finite (clients of a cluster share the optimum)", math.isfinite(A2.value), A2.value, "exact", A2.how)]
    verdict = apply_assumptions(controlled(combine(verdicts + [v_ball]), v_ctrl), assumptions)
    fig_rng = ctx.numpy_rng("figure")
    return result_for(
        ctx,
        Claim(theory.statement, r"\frac{1}{T}\sum_{t=1}^T\|\nabla f_i(x_{i,t-1})\|^2=\Theta(1/T)", theory.source, theory.typst),
        verdict,
        observed={"T": Ts, "slopes_per_client": slopes, "slope_min": float(slopes.min()), "slope_max": float(slopes.max()),
                  "ball_correct_fraction_(p,lo,hi)": [ball["rate"], *ball["ci"]], "A2_exact_instance0": A2.value,
                  "instances": R, "clients": prob.n_clients, "kappa": kappa,
                  "regression_slopes_per_client": reg_slopes, "regression_cluster_condition_numbers": reg_kappa,
                  "regression_ball_correct_fraction": float(_np(rrun.ball_ok).mean())},
        predicted={"exponent": -1.0, "tolerance": tol, "ball_correct_at_least": min_ball},
        fit={"rule": "every client's slope within -1 +- tol (exact curves); ball = true cluster in >= 99% of (client, round)",
             "slope_range": [float(slopes.min()), float(slopes.max())], "control": f_ctrl},
        control=control_field,
        explanation=(f"On clustered quadratics with L/mu = {kappa:g} (A^2 = {A2.value:.3g}) every one of {slopes.size} clients' "
                     f"running average falls with slope between {slopes.min():.3f} and {slopes.max():.3f} in T, and the balls are "
                     f"the true clusters in {100 * ball['rate']:.2f}% of (client, round) pairs. On the paper's regression (reported, "
                     f"not judged: cluster-average condition numbers up to {reg_kappa.max():.0f} need T far beyond {T} before the "
                     f"cumulative sum settles) the slopes lie between {reg_slopes.min():.2f} and {reg_slopes.max():.2f}. "
                     f"The 1/T slope itself is automatic for any run that converges; what it shows here is that every "
                     f"client converges: control, {control_field['detail']} ({v_ctrl.value})."),
        assumptions=assumptions,
        figure=figspec.figure(
            figspec.panel(rf"Clustered quadratics, full batch ($L/\mu={kappa:g}$)", "T (rounds)",
                          r"$\frac{1}{T}\sum_t\|\nabla f_i(x_{i,t-1})\|^2$",
                          [figspec.observed("Federated-Clustering (instances x clients)", Ts, rows, rng=fig_rng),
                           figspec.line(r"$\propto 1/T$", Ts, rows.mean(0)[0] * Ts[0] / Ts, "bound")]),
            figspec.panel("Paper's synthetic regression, full batch (reported)", "T (rounds)",
                          r"$\frac{1}{T}\sum_t\|\nabla f_i(x_{i,t-1})\|^2$",
                          [figspec.observed("Federated-Clustering, quantile radius", Ts, Yr, rng=fig_rng),
                           figspec.line(r"$\propto 1/T$", Ts, Yr.mean(0)[0] * Ts[0] / Ts, "reference")])),
        arrays={"running_mean": Y, "regression_running_mean": Yr},
    )


FLOOR_K = 2


@check("werner2023.c21", "Fixed batch, eq. (118): Federated-Clustering's floor falls as sigma^2/(n_i |B|)", "rate", "holds",
       statements=("Theorem 3.3", "eq. (118)"))
def c21_fixed_batch_floor(ctx: Context, *, theory: Bound = W.FC_FLOOR, ns=(4, 16, 64), batches=(1, 4, 16, 64),
                          T: int = 8, eta: float = 0.5, tol: float = 0.15) -> Result:
    """docs/papers/werner2023.md §6.5 claim 21: the floor (average of ||grad f_i||^2 over the last half of the rounds) against n_i
    and |B|: slopes within -1 +- 0.15; K = 2 clusters (see module).

    Out of the one-step regime: with eta = 1/L = 1/mu every round lands on the cluster's batch-gradient mean,
    so the floor would be one round's clustering noise, with no dynamics. Here eta = ``eta`` / L = 1/2 (Theorem 3.3
    allows any eta <= 1/L): the error contracts by (1 - eta)^2 = 1/4 per round and the floor is the stationary sum of
    every past round's noise, eta/(2 - eta) times one round's (1/3). The runs start at the clients' optima (the
    stationary regime does not depend on the start) so that the floor builds up as 1 - 4^-t: after T/2 = 4 rounds it
    is within 0.4% of stationary, and the last half of T = 8 rounds measures it.

    Control: that the floor falls with n_i is the collaboration within a cluster. Local training (each
    client alone, same batches and step) has the floor sigma^2/|B| whatever n_i, so its slope in n_i is ~0 and must
    violate the claim (verify.fit.controlled)."""
    R = ctx.reps(5, 20)
    ns, Bs = np.asarray(ns), np.asarray(batches, dtype=float)
    delta = 1.0 / FLOOR_K
    steps = _tc_steps(Bs.max(), delta)
    floors = np.empty((R, ns.size, Bs.size))
    local = np.empty((R, ns.size, Bs.size))
    ball_ok = []
    B = torch.tensor(Bs, dtype=ctx.dtype, device=ctx.torch_device).repeat(R)  # replicate-major, batch sizes inner
    for a, n in enumerate(ns):  # one batched run per cluster size (the problem's shape changes)
        prob = clustered_quadratics(ctx.generator(f"problem n={n}"), R * Bs.size, FLOOR_K, int(n), D_DIM, DELTA, sigma=SIGMA,
                                    dtype=ctx.dtype, device=ctx.torch_device)
        x0 = prob.optima().clone()
        run = federated_clustering_run(prob, x0, eta, T, _theory_tau(delta, B), steps=steps, batch_size=B,
                                       generator=ctx.generator(f"noise n={n}"))
        floors[:, a] = _np(run.grad_sq[T // 2:].mean((0, 2))).reshape(R, Bs.size)
        ball_ok.append(float(_np(run.ball_ok).mean()))
        loc = baseline("local", prob, x0, eta, T, batch_size=B, generator=ctx.generator(f"local noise n={n}"))
        local[:, a] = _np(loc.grad_sq[T // 2:].mean((0, 2))).reshape(R, Bs.size)
    Yn = (floors * Bs[None, None, :]).mean(2)  # pool batch sizes: floor x |B| against n
    YB = (floors * ns[None, :, None]).mean(1)  # pool cluster sizes: floor x n against |B|
    rng = ctx.numpy_rng("bootstrap")
    v_n, fit_n = rate_verdict(ns, Yn, theory, param="n", values={"sigma": SIGMA, "B": 1.0}, tol=tol, rng=rng)
    v_B, fit_B = rate_verdict(Bs, YB, theory, param="B", values={"sigma": SIGMA, "n": 1.0}, tol=tol, rng=rng)
    with aside():  # the control is not the claim
        v_ctrl, f_ctrl = rate_verdict(ns, (local * Bs[None, None, :]).mean(2), theory, param="n",
                                      values={"sigma": SIGMA, "B": 1.0}, tol=tol, rng=rng)
    control_field = {"what": f"local training (no collaboration), the same batches and step eta = {eta:g}/L",
                     "verdict": v_ctrl.value,
                     "detail": f"slope of the floor in n_i {f_ctrl['slope']:.3f} (CI {f_ctrl['slope_ci'][0]:.3f} to "
                               f"{f_ctrl['slope_ci'][1]:.3f}) against -1"}
    C = floors / (eta / (2 - eta) * SIGMA**2 / (ns[None, :, None] * Bs[None, None, :]))
    assumptions = _fc_assumptions(steps=steps, B_max=Bs.max(), delta=delta)
    assumptions[2] = Assumption("eta <= 1/L", eta <= 1.0, eta, "exact", f"eta = {eta:g}/L: out of the one-step regime")
    verdict = apply_assumptions(controlled(combine([v_n, v_B]), v_ctrl), assumptions)
    fig_rng = ctx.numpy_rng("figure")
    return result_for(
        ctx,
        Claim(theory.statement, r"\text{floor}\approx C\,\frac{\sigma^2}{n_i|B|}", theory.source, theory.typst),
        verdict,
        observed={"n_i": ns, "batch": Bs, "floor_mean": floors.mean(0), "floor_over_stationary_sigma2_over_nB": C.mean(0),
                  "eta": eta, "local_floor_mean": local.mean(0),
                  "slope_n": fit_n["slope"], "slope_n_ci": fit_n["slope_ci"], "slope_B": fit_B["slope"],
                  "slope_B_ci": fit_B["slope_ci"], "ball_correct_fraction_by_n": ball_ok, "replicates": R, "T": T,
                  "tc_steps": steps, "K": FLOOR_K},
        predicted={"exponent_n": fit_n["predicted_exponent"], "exponent_B": fit_B["predicted_exponent"], "tolerance": tol,
                   "floor_eq_118": W.FC_FIXED_BATCH(F=0.0, eta=1.0, T=1.0, A2=0.0, sigma=SIGMA, n=ns[:, None], B=Bs[None, :],
                                                    Delta=DELTA, beta=0.0)},
        fit={"n": fit_n, "B": fit_B, "control": f_ctrl},
        control=control_field,
        explanation=(f"The floor falls with slope {fit_n['slope']:.3f} (95% CI {fit_n['slope_ci'][0]:.3f} to "
                     f"{fit_n['slope_ci'][1]:.3f}) in n_i and {fit_B['slope']:.3f} ({fit_B['slope_ci'][0]:.3f} to "
                     f"{fit_B['slope_ci'][1]:.3f}) in |B|, against -1, with eta = {eta:g}/L (the floor is a stationary sum "
                     f"over rounds, not one round's noise); floor / (eta/(2 - eta) sigma^2/(n_i |B|)) lies between "
                     f"{C.mean(0).min():.2f} and {C.mean(0).max():.2f}: the stationary variance of the iterate driven by the "
                     f"cluster's batch-gradient mean, as the first term of eq. (118) says. Control: {control_field['detail']} "
                     f"({v_ctrl.value})."),
        assumptions=assumptions,
        figure=figspec.figure(
            figspec.panel("Floor vs cluster size (pooled over |B|)", r"$n_i$", r"floor $\times|B|$",
                          [figspec.observed("Federated-Clustering", ns, Yn, rng=fig_rng),
                           figspec.line(r"$\sigma^2/n_i$", ns, SIGMA**2 / ns, "bound")]),
            figspec.panel("Floor vs batch size (pooled over n_i)", r"$|B|$", r"floor $\times n_i$",
                          [figspec.observed("Federated-Clustering", Bs, YB, rng=fig_rng),
                           figspec.line(r"$\sigma^2/|B|$", Bs, SIGMA**2 / Bs, "bound")])),
        arrays={"floors": floors},
    )


GROW_K, GROW_N = 2, 4


def _growing_batch_runs(ctx: Context, Ts: np.ndarray, R: int, c: float, steps: int, byzantine_count: int,
                        method: str = "fc"):
    """One run of length max(T) whose replicates use |B| = c T_r for their own T_r (the first T_r rounds of
    replicate r are exactly a run of length T_r): running means ``[R, P]`` at T_r, per grid point. ``method``: "fc"
    (Federated-Clustering) or "fedavg" (the control: the same clients and batches, no clustering, no attack)."""
    P = Ts.size
    delta = GROW_N / (GROW_K * GROW_N + byzantine_count)
    B = torch.tensor(np.tile(c * Ts, R), dtype=ctx.dtype, device=ctx.torch_device)
    prob = clustered_quadratics(ctx.generator(f"problem b={byzantine_count}"), R * P, GROW_K, GROW_N, D_DIM, DELTA,
                                sigma=SIGMA, dtype=ctx.dtype, device=ctx.torch_device)
    x0 = prob.optima() + 0.1 * randn(prob.optima().shape, generator=ctx.generator(f"init b={byzantine_count}"),
                                           dtype=ctx.dtype, device=ctx.torch_device)
    byz = None
    if byzantine_count:
        u = random_unit(R * P, D_DIM, ctx.generator("attack direction"), ctx.dtype)
        byz = Byzantine(EDGE_OF_BALL, byzantine_count, direction=u)
    if method == "fedavg":
        run = baseline("fedavg", prob, x0, 1.0, int(Ts.max()), batch_size=B, generator=ctx.generator("fedavg noise"))
    else:
        run = federated_clustering_run(prob, x0, 1.0, int(Ts.max()), _theory_tau(delta, B), steps=steps, batch_size=B,
                                       generator=ctx.generator(f"noise b={byzantine_count}"), byzantine=byz)
    rm = _np(run.running_mean().mean(-1))  # [T, R*P]
    idx = np.tile(np.arange(P), R)
    return rm[Ts[idx] - 1, np.arange(R * P)].reshape(R, P), delta


@check("werner2023.c22", "Theorem 3.3 with |B| = T: at least the T^{-1/2} rate, with and without edge-of-ball attackers",
       "rate", "holds", statements=("Theorem 3.3",))
def c22_growing_batch(ctx: Context, *, theory: Bound = W.THM_3_3_GROWING_BATCH, Ts=(4, 16, 64, 256), c: float = 1.0,
                      tol: float = 0.1) -> Result:
    """docs/papers/werner2023.md §6.5 claim 22: |B| = c T (the batch (121) needs), running average at T; slope <= -1/2 + tol (bound
    type; [derived] about -1 with beta = 0). Also with one edge-of-ball attacker per cluster ball
    (beta = delta/4), whose beta rho Delta term decays only as T^{-1/2}. Clients start at x*_k + N(0, 0.1^2 I)
    so that the noise and attack terms, not the initial gap, dominate.

    Control: with a batch growing like T any stochastic method that converges shows such a rate; what FC adds
    is convergence for every client of every cluster. FedAvg (the same clients and batches, no clustering) converges to
    the global optimum, where ||grad f_i|| stays of order Delta: its running average does not fall and must violate the
    rate (verify.fit.controlled)."""
    R = ctx.reps(4, 16)
    Ts = np.asarray(Ts)
    steps = _tc_steps(c * Ts.max(), GROW_N / (GROW_K * GROW_N + 1))
    Y0, delta0 = _growing_batch_runs(ctx, Ts, R, c, steps, 0)
    Yb, delta_b = _growing_batch_runs(ctx, Ts, R, c, steps, 1)
    beta = 1.0 / (GROW_K * GROW_N + 1)
    rng = ctx.numpy_rng("bootstrap")
    at = {"sigma": SIGMA, "n": GROW_N, "Delta": DELTA, "beta": 0.0}
    v0, fit0 = rate_verdict(Ts, Y0, theory, param="T", values=at, tol=tol, rng=rng)
    vb, fitb = rate_verdict(Ts, Yb, theory, param="T", values={**at, "beta": beta}, tol=tol, rng=rng)
    Yc, _ = _growing_batch_runs(ctx, Ts, R, c, steps, 0, method="fedavg")
    with aside():  # the control is not the claim
        v_ctrl, f_ctrl = rate_verdict(Ts, Yc, theory, param="T", values=at, tol=tol, rng=rng)
    control = {"what": f"FedAvg (no clustering), the same clients and batches |B| = {c:g} T", "verdict": v_ctrl.value,
               "detail": f"slope {f_ctrl['slope']:.3f} in T (CI {f_ctrl['slope_ci'][0]:.3f} to {f_ctrl['slope_ci'][1]:.3f}) "
                         f"against <= {f_ctrl['predicted_exponent']:g} + {tol:g}"}
    assumptions = _fc_assumptions(steps=steps, B_max=c * Ts.max(), delta=delta_b, beta=beta)
    verdict = apply_assumptions(controlled(combine([v0, vb]), v_ctrl), assumptions)
    fig_rng = ctx.numpy_rng("figure")
    return result_for(
        ctx,
        Claim(theory.statement, r"\frac{1}{T}\sum_t\mathbb{E}\|\nabla f_i\|^2=O(T^{-1/2}),\ |B|=cT", theory.source, theory.typst),
        verdict,
        observed={"T": Ts, "batch": c * Ts, "beta0_mean": Y0.mean(0), "slope_beta0": fit0["slope"], "slope_beta0_ci": fit0["slope_ci"],
                  "edge_of_ball_mean": Yb.mean(0), "slope_edge_of_ball": fitb["slope"], "slope_edge_of_ball_ci": fitb["slope_ci"],
                  "beta": beta, "delta": delta_b, "tc_steps": steps, "replicates": R},
        predicted={"exponent": fit0["predicted_exponent"], "tolerance": tol},
        fit={"beta0": fit0, "edge_of_ball": fitb, "control": f_ctrl},
        control=control,
        explanation=(f"With |B| = {c:g} T the running average falls with slope {fit0['slope']:.2f} (95% CI {fit0['slope_ci'][0]:.2f} "
                     f"to {fit0['slope_ci'][1]:.2f}) without attackers -- faster than the T^(-1/2) of eq. (23), as the proof's own "
                     f"terms predict -- and {fitb['slope']:.2f} ({fitb['slope_ci'][0]:.2f} to {fitb['slope_ci'][1]:.2f}) with an "
                     f"edge-of-ball attacker (beta = delta/4), whose beta rho Delta term decays as |B|^(-1/2) = T^(-1/2). "
                     f"Control: FedAvg's {control['detail']} ({v_ctrl.value})."),
        assumptions=assumptions,
        figure=figspec.figure(figspec.panel(r"Growing batch $|B|=T$", "T (rounds)", r"$\frac{1}{T}\sum_t\|\nabla f_i\|^2$",
                                            [figspec.observed(r"$\beta=0$", Ts, Y0, rng=fig_rng),
                                             figspec.observed(r"edge-of-ball, $\beta=\delta/4$", Ts, Yb, rng=fig_rng),
                                             figspec.line(r"$\propto T^{-1/2}$", Ts, Yb.mean(0)[0] * np.sqrt(Ts[0] / Ts), "bound")])),
        arrays={"beta0": Y0, "edge_of_ball": Yb},
    )


GAP_SETTINGS = ((4, 4), (4, 16), (16, 4))
GAP_ETAS = (3.0, 10.0, 30.0)  # steps c / L_max tuned on this grid ("grid search", section 4.1); momentum is stable to 38 / L
CODE_MOMENTUM = 0.9  # the reference code's default --beta: m <- (1 - beta) v + beta m, x <- x - eta m (FC, GT, Local, Global)
GAP_METHODS = ("FC", "GT", "Local", "IFCA", "FedAvg")


def _momentum_run(update, x0: torch.Tensor, eta: torch.Tensor, T: int, beta: float) -> torch.Tensor:
    """x <- x - eta m, m <- (1 - beta) v(x) + beta m, m_0 = v(x_0) (the reference code's MomentumBuffer)."""
    x, m = x0.clone(), None
    for _ in range(T):
        v = update(x)
        m = v if m is None else (1 - beta) * v + beta * m
        x = x - eta[:, None, None] * m
    return x


FIG3_METHODS = ("FC", "GT", "Local", "FedAvg", "IFCA")


def _fig3_setting(ctx: Context, K: int, n: int, R: int, T: int, steps: int, etas, beta: float,
                  radius_rule: str = "strict", methods=FIG3_METHODS) -> dict:
    """Final mean_i ||x_i - x*_k(i)|| per replicate of FC, GT, Local, FedAvg and IFCA on the paper's regression, each at
    the step of ``etas`` with the lowest median over the replicates (section 4.1: "We tune the learning rate separately
    for each algorithm through grid search"), plus the chosen steps. ``methods``: those to run (none of them draws
    random numbers, so a subset gives its methods the same numbers as the whole set)."""
    N, E = K * n, len(etas)
    prob = paper_synthetic_regression(ctx.generator(f"data K={K} n={n}"), R, K, n, D_DIM, 9, dtype=ctx.dtype,
                                      device=ctx.torch_device)
    theta0 = prob.W + 0.1 * randn(prob.W.shape, generator=ctx.generator(f"init K={K} n={n}"), dtype=ctx.dtype,
                                        device=ctx.torch_device)
    lab = torch.as_tensor(prob.true_labels, device=theta0.device)
    big = prob.repeated(E)
    L_max = float(prob.smoothness().amax())  # the largest client curvature of the setting (cluster K-1: entries of mean K-1)
    steps_grid = [c / L_max for c in etas]
    eta = torch.tensor(steps_grid, dtype=ctx.dtype, device=ctx.torch_device).repeat_interleave(R)  # [E*R]
    x0 = theta0[:, lab].repeat(E, 1, 1)
    opt = big.optima()
    onehot = torch.nn.functional.one_hot(lab).to(ctx.dtype)
    size = onehot.sum(0)[None, :, None]
    radius = StrictQuantileRadius(n / N) if radius_rule == "strict" else ShrunkQuantileRadius(n / N, shrink=1.0)
    updates = {
        "FC": lambda x: fc_round(big, x, radius, steps)[0],
        "GT": lambda x: (torch.einsum("rnd,nk->rkd", big.grad(x), onehot) / size)[:, lab],
        "Local": big.grad,
        "FedAvg": lambda x: big.grad(x).mean(1, keepdim=True).expand_as(x),
    }
    err = {}
    for name, upd in updates.items():
        if name not in methods:
            continue
        xT = _momentum_run(upd, x0 if name != "FedAvg" else x0.mean(1, keepdim=True).expand_as(x0), eta, T, beta)
        err[name] = torch.linalg.vector_norm(xT - opt, dim=-1).mean(-1)
    if "IFCA" in methods:
        # the code's IFCA: no momentum, the members' sum / N
        it = ifca(big, theta0.repeat(E, 1, 1), eta, T, option="I", record_grads=False)
        models = it.theta[-1].gather(1, it.assign[-1][..., None].expand(-1, -1, D_DIM))
        err["IFCA"] = torch.linalg.vector_norm(models - opt, dim=-1).mean(1)
    res, chosen = {}, {}
    for name, e in err.items():
        Y = np.nan_to_num(_np(e).reshape(E, R), nan=np.inf)
        best = int(np.argmin(np.median(Y, 1)))
        res[name], chosen[name] = Y[best], float(steps_grid[best])
    res["eta"] = chosen
    return res


@check("werner2023.c23", "Fig. 3: FC's gap to ground truth shrinks from n_i = 4 to 16; FC beats Local, IFCA and FedAvg",
       "bound", "inconclusive",
       no_control="the claim is itself a comparison: FC against Local, IFCA and FedAvg (and the ground-truth oracle) in one "
                  "harness, each at its own tuned step; the baselines are its controls", statements=("Fig. 3",))
def c23_gap_to_ground_truth(ctx: Context, *, settings=GAP_SETTINGS, T: int | None = None, steps: int = 10, margin: float = 0.0,
                            etas=GAP_ETAS, beta: float = CODE_MOMENTUM) -> Result:
    """Fig. 3 (section 4.1) with its own set-up, taken from the paper and, where it is silent, from the reference code
    (github.com/liehe/PRFL, synthetic/): the paper's regression (d = 10, n = 9 samples, x*_k = 100 b_k); every method
    starts from the code's oracle start x*_k + N(0, 0.1^2 I); FC, GT, Local and Global (FedAvg) use the code's momentum
    (beta = 0.9, m <- 0.1 v + 0.9 m, x <- x - eta m), IFCA the code's plain step with the members' gradient sum divided
    by N; FC runs l = 10 Threshold-Clustering steps ("we run Threshold-Clustering for l = 10 rounds") with the
    synthetic code's radius, the distance at sorted index floor(N q), q = n_i/N, and its strict test "<"; every
    method's step is tuned on the grid ``etas`` / L_max (L_max the setting's largest client curvature; "We tune the
    learning rate separately for each algorithm through grid search"), the step with the lowest median final error;
    T rounds (quick 60, full 800: the code runs 800-1000).
    Metric (the code's): final mean_i ||x_i - x*_k(i)||. The caption's claim: "When n_i is small, the ground-truth
    outperforms our algorithm, but this difference vanishes with increasing n_i", judged on the relative gap FC/GT - 1
    (the distance between the curves on Fig. 3's log axis): its median change from (4, 4) to (4, 16) below ``margin``
    (distribution-free interval of the median), and "Our algorithm outperforms the non-oracle baselines in all cases":
    FC's error below Local's, IFCA's and Global's in every setting.

    Why ``inconclusive`` is expected at quick fidelity: Fig. 3 gives no numbers, learning rates or round count, and
    with a shared optimum and no label noise FC with correct balls steps along (1 - (3/4)^10) grad fbar_k +
    (3/4)^10 grad f_i, whose zero is x*_k as GT's is: both converge linearly to the same point, and the relative gap
    at a fixed round is set by each dataset's conditioning and by the tuned steps (FC and GT may pick different grid
    points), which spread it over tens of percentage points from dataset to dataset, while the caption's effect is a
    few points. Eight datasets cannot place the median change of the gap on either side of 0 (at 40 rounds the gap is
    0.1-0.3% at (4, 4) and its 99% interval excluded 0 at one root seed and not at the next); deciding it needs on
    the order of a hundred datasets at the code's 800-1000 rounds (full fidelity runs 32 at 800). The comparison with
    the baselines is decided (it is part of the verdict). An earlier version of this check ran 30 rounds at
    eta = 1/L without momentum and expected ``violated``; that set-up was not Fig. 3's and could not convict it.
    """
    T = ctx.pick(60, 800) if T is None else T
    R = ctx.reps(8, 32)
    res = {(K, n): _fig3_setting(ctx, K, n, R, T, steps, etas, beta) for K, n in settings}
    rng = ctx.numpy_rng("bootstrap")
    gap = {s: r["FC"] - r["GT"] for s, r in res.items()}
    rel = {s: r["FC"] / r["GT"] - 1 for s, r in res.items()}  # the gap on Fig. 3's log axis, free of each dataset's scale
    v_shrink, shrink = median_verdict(rel[settings[1]] - rel[settings[0]], margin, side="upper")
    beats, margins, undecided = [], {}, []
    for s, r in res.items():
        for other in ("Local", "IFCA", "FedAvg"):
            v, info = bound_verdict((r["FC"] - r[other])[:, None], 0.0, side="upper", rng=rng)
            beats.append(v)
            if not v.passed:
                undecided.append(f"{other} at ({s[0]},{s[1]})")
            margins[f"{s[0]},{s[1]} FC-{other}"] = float(info["mean"][0])
    v_beats = combine(beats)
    verdict = combine([v_shrink, v_beats])
    # the literal reading of Algorithm 3's test ("<=" the quantile distance) on the first setting, as a remark
    lit = _fig3_setting(ctx, *settings[0], R, T, steps, etas, beta, radius_rule="inclusive", methods=("FC",))
    labels = [f"({K},{n})" for K, n in settings]
    x = np.arange(1, len(settings) + 1)
    med_rel = {s: float(np.median(rel[s])) for s in res}
    fig_rng = ctx.numpy_rng("figure")
    remark_text = (
        f"Algorithm 3 read literally (its update (24) keeps z_i when ||z_i - v|| <= tau) with the percentile radius of the "
        f"experiments (sections 4.2, 4.5; the code's q = n_i/N for Fig. 3) "
        f"(tau = the distance at sorted index floor(N n_i/N)) admits that point, the nearest client of another cluster: "
        f"at {labels[0]} FC's final error is then {float(np.median(lit['FC'])):.3g} (median; best step {lit['eta']['FC']:g}) "
        f"against {float(np.median(res[settings[0]]['FC'])):.3g} with the reference code's strict '<'. The literal rule "
        f"needs a radius below the quantile distance (the MNIST code multiplies it by 0.99).")
    return result_for(
        ctx,
        Claim("Fig. 3: \"When n_i is small, the ground-truth outperforms our algorithm, but this difference vanishes with "
              "increasing n_i\"; \"Our algorithm outperforms the non-oracle baselines in all cases\" (Local, IFCA, Global), "
              "in the settings (K, n_i) = (4, 4), (4, 16), (16, 4), each method's learning rate tuned by grid search.",
              r"\mathrm{gap}(4,16)<\mathrm{gap}(4,4),\quad \mathrm{FC}<\{\mathrm{Local},\mathrm{IFCA},\mathrm{FedAvg}\}",
              "werner2023, section 4.1 (text and Fig. 3 caption); set-up from the reference code (PRFL synthetic/)",
              "\"gap\"(4,16) < \"gap\"(4,4), quad \"FC\" < {\"Local\", \"IFCA\", \"FedAvg\"}"),
        verdict,
        observed={"settings": labels, **{f"{m}_median_by_setting": [float(np.median(res[s][m])) for s in res] for m in GAP_METHODS},
                  "tuned_step_by_setting": {labels[i]: res[s]["eta"] for i, s in enumerate(res)},
                  "gap_median_by_setting": [float(np.median(gap[s])) for s in res],
                  "relative_gap_median_by_setting": [med_rel[s] for s in res],
                  "relative_gap_difference_(4,16)-(4,4)_median_ci": [shrink["median"], *shrink["ci"]],
                  "fc_minus_baseline_mean": margins,
                  "literal_inclusive_radius_FC_median_first_setting": float(np.median(lit["FC"])),
                  "replicates": R, "T": T, "tc_steps": steps, "momentum": beta, "step_grid_times_L_max": list(etas)},
        predicted={"relative_gap_difference_below": margin, "fc_minus_baseline_below": 0.0},
        fit={"shrink": v_shrink.value, "fc_beats_baselines": v_beats.value},
        explanation=(f"With Fig. 3's set-up (momentum {beta:g}, {T} rounds, oracle start, steps tuned per method on {list(etas)} / L_max) "
                     f"FC's error is {100 * med_rel[settings[0]]:.2f}% above GT's at {labels[0]} and {100 * med_rel[settings[1]]:.2f}% "
                     f"at {labels[1]} (medians over {R} datasets; change {100 * shrink['median']:.2f} points, "
                     f"{100 * shrink['coverage']:.0f}% interval {100 * shrink['ci'][0]:.2f} to {100 * shrink['ci'][1]:.2f}): the "
                     f"gap {'shrinks' if v_shrink.passed else ('grows' if shrink['ci'][0] > margin else 'cannot be told to shrink or grow: the datasets spread it too widely')} as n_i grows; at {labels[2]} it is "
                     f"{100 * med_rel[settings[2]]:.1f}%. "
                     + ("FC beats Local, IFCA and Global in every setting." if v_beats.passed else
                        f"FC beats Local, IFCA and Global except against {', '.join(undecided)}, where the interval of the "
                        "difference does not lie below 0.")),
        finding=remark(remark_text),
        figure=figspec.figure(
            figspec.panel("Final distance to the cluster optimum (paper's regression, tuned steps)", f"setting: {', '.join(f'{i} = {l}' for i, l in zip(x, labels))}",
                          r"mean$_i\|x_i-x^*_{k(i)}\|$",
                          [figspec.observed(m, x, np.stack([res[s][m] for s in res], 1), rng=fig_rng) for m in GAP_METHODS], xscale="linear"),
            figspec.panel("FC's gap to ground truth, relative", f"setting: {', '.join(f'{i} = {l}' for i, l in zip(x, labels))}",
                          "FC / GT - 1",
                          [figspec.line("median per setting", x, [med_rel[s] for s in res], "observed")],
                          xscale="linear")),
        arrays={f"{m}_{K}_{n}": res[(K, n)][m] for K, n in settings for m in GAP_METHODS},
    )


BYZ_K, BYZ_N = 4, 4
BYZ_BETAS = (0.05, 0.1, 0.2)
BYZ_ATTACKS = {"large_gaussian": {"mean": 1e6, "std": 200.0}, "bit_flip": {"reference": 0}, EDGE_OF_BALL: {}}


def _byzantine_count(beta: float, n_good: int) -> int:
    """b with b/(n_good + b) closest to beta."""
    return max(1, round(beta * n_good / (1 - beta)))


@check("werner2023.c24", "Section 4.4: Federated-Clustering stays within 10x of its attack-free floor; FedAvg blows up",
       "bound", "holds", statements=("Fig. 6",))
def c24_byzantine_robustness(ctx: Context, *, betas=BYZ_BETAS, fc_factor: Bound = W.FC_BYZANTINE_FACTOR,
                             fedavg_factor: Bound = W.FEDAVG_BYZANTINE_FACTOR, T: int = 12,
                             judged=("large_gaussian", "bit_flip")) -> Result:
    """docs/papers/werner2023.md §5.6 and 6.5 check 24 on the 6.5 quadratics (K = 4, n_i = 4 good clients per cluster): b Byzantine
    clients (beta = b/(N + b) near 0.05, 0.1, 0.2) run the large-Gaussian (N(1e6, 200^2) coordinates) or
    bit-flip (-g of good client 0) attack. Metric: ||grad f_i||^2 of the good clients averaged over the last
    half of the rounds. FC's must stay within ``fc_factor`` x its beta = 0 value (same seeds), FedAvg's must
    exceed ``fedavg_factor`` x its own under the large attack. The edge-of-ball attack (the threat model's
    worst case) is run and reported beside them.

    Control: FedAvg, the unprotected average, under the same large attack must violate FC's criterion
    (floor <= ``fc_factor`` x its attack-free floor) (verify.fit.controlled); the paper's second statement, that FedAvg
    degrades by ``fedavg_factor`` (10^6) or more, stays part of the claim."""
    R = ctx.reps(10, 40)
    n_good = BYZ_K * BYZ_N
    prob = clustered_quadratics(ctx.generator("problem"), R, BYZ_K, BYZ_N, D_DIM, DELTA, sigma=SIGMA, dtype=ctx.dtype,
                                device=ctx.torch_device)
    x0 = torch.zeros(R, n_good, D_DIM, dtype=ctx.dtype, device=ctx.torch_device)
    u = random_unit(R, D_DIM, ctx.generator("attack direction"), ctx.dtype)

    def floor(run) -> np.ndarray:
        return _np(run.grad_sq[T // 2:].mean((0, 2)))

    def fc(b: int, attack: str | None) -> np.ndarray:
        delta = BYZ_N / (n_good + b)
        byz = None if attack is None else Byzantine(attack, b, BYZ_ATTACKS[attack], u if attack == EDGE_OF_BALL else None)
        return floor(federated_clustering_run(prob, x0, 1.0, T, math.sqrt(delta * SIGMA * DELTA),
                                              generator=ctx.generator(f"fc noise b={b} {attack}"), byzantine=byz))

    def fedavg(b: int, attack: str | None) -> np.ndarray:
        byz = None if attack is None else Byzantine(attack, b, BYZ_ATTACKS[attack])
        return floor(baseline("fedavg", prob, x0, 1.0, T, generator=ctx.generator(f"fedavg noise b={b} {attack}"), byzantine=byz))

    counts = [_byzantine_count(b, n_good) for b in betas]
    beta_real = np.array([b / (n_good + b) for b in counts])
    fc0, fa0 = fc(0, None), fedavg(0, None)
    fc_ratio = {a: np.stack([fc(b, a) / fc0 for b in counts], 1) for a in BYZ_ATTACKS}
    fa_large = np.stack([fedavg(b, "large_gaussian") / fa0 for b in counts], 1)
    rng = ctx.numpy_rng("bootstrap")
    fc_f, fa_f = float(fc_factor()), float(fedavg_factor())
    parts, worst = [], {}
    for a in judged:
        v, info = bound_verdict(fc_ratio[a], fc_f, side="upper", rng=rng)
        parts.append(v), worst.__setitem__(a, float(info["mean"].max()))
    v_fa, fa_info = bound_verdict(np.log10(fa_large), math.log10(fa_f), side="lower", rng=rng)
    parts.append(v_fa)
    with aside():  # the control is not the claim
        v_ctrl, ctrl_info = bound_verdict(np.log10(fa_large), math.log10(fc_f), side="upper", rng=rng)
    control = {"what": "FedAvg (the plain average, no clustering) under the large-Gaussian attack, the same runs",
               "verdict": v_ctrl.value,
               "detail": f"floor 10^{ctrl_info['mean'].min():.1f} x its attack-free floor or more, against FC's {fc_f:g} x"}
    edge_excess = (fc_ratio[EDGE_OF_BALL] - 1) * fc0[:, None]
    tau2 = np.array([(BYZ_N / (n_good + b)) * SIGMA * DELTA for b in counts])
    delta_real = np.array([BYZ_N / (n_good + b) for b in counts])
    fig_rng = ctx.numpy_rng("figure")
    return result_for(
        ctx,
        Claim("Section 4.4 (Fig. 6): under 'very large gradients' and 'bit-flipping' attacks Federated-Clustering keeps its "
              "accuracy while the global model (FedAvg) degrades seriously (Definition 1: Err <= E_1 + beta E_2).",
              r"\mathrm{FC}_\beta\le 10\,\mathrm{FC}_0,\quad \mathrm{FedAvg}_\beta\ge 10^6\,\mathrm{FedAvg}_0",
              "werner2023, section 4.4, Fig. 6, Definition 1",
              "\"FC\"_beta <= 10 \"FC\"_0, quad \"FedAvg\"_beta >= 10^6 \"FedAvg\"_0"),
        controlled(combine(parts), v_ctrl),
        observed={"beta": beta_real, "byzantine_counts": counts, "fc_floor_beta0": float(fc0.mean()),
                  **{f"fc_ratio_{a}": fc_ratio[a].mean(0) for a in BYZ_ATTACKS},
                  "fedavg_floor_beta0": float(fa0.mean()), "fedavg_log10_ratio_large": np.log10(fa_large).mean(0),
                  "edge_of_ball_excess": edge_excess.mean(0), "replicates": R, "T": T},
        predicted={"fc_factor": fc_f, "fedavg_factor": fa_f,
                   "edge_of_ball_fixed_point_excess_(beta/delta)^2_tau^2": (beta_real / delta_real) ** 2 * tau2,
                   "byzantine_term_beta_sigma_Delta": beta_real * SIGMA * DELTA},
        fit={"fc_worst_mean_ratio": worst, "fedavg_log10_ratio_min": float(fa_info["mean"].min()),
             "judged_attacks": list(judged)},
        control=control,
        explanation=(f"Federated-Clustering's floor grows at most {max(worst.values()):.2f}x under the large and bit-flip attacks "
                     f"(beta up to {beta_real.max():.2f}): the large vectors never enter a ball and the flipped gradients sit Delta "
                     f"away from every other cluster's. FedAvg's floor grows by 10^{fa_info['mean'].min():.1f} or more under the "
                     f"large attack. The edge-of-ball attacker, the threat model's worst case, adds "
                     f"{', '.join(f'{e:.2g}' for e in edge_excess.mean(0))} (fixed-point prediction (beta/delta)^2 tau^2 = "
                     f"{', '.join(f'{p:.2g}' for p in (beta_real / delta_real) ** 2 * tau2)})."),
        assumptions=[Assumption("beta <= delta", bool(np.all(beta_real <= delta_real + 1e-12)), float(beta_real.max()), "exact",
                                f"delta = n_i/(N + b) = {delta_real.min():.3g} at the largest beta")],
        figure=figspec.figure(
            figspec.panel("Federated-Clustering: floor / attack-free floor", r"$\beta$", "ratio",
                          [figspec.observed(a.replace("_", " "), beta_real, fc_ratio[a], rng=fig_rng) for a in BYZ_ATTACKS]
                          + [figspec.line(f"{fc_f:g}x", beta_real, fc_f, "bound")]),
            figspec.panel("FedAvg under the large attack: log10(floor / attack-free floor)", r"$\beta$", "log10 ratio",
                          [figspec.observed("FedAvg, large Gaussian", beta_real, np.log10(fa_large), rng=fig_rng),
                           figspec.line(f"{fa_f:g}x", beta_real, math.log10(fa_f), "bound")], yscale="linear")),
        arrays={**{f"fc_ratio_{a}": fc_ratio[a] for a in BYZ_ATTACKS}, "fedavg_ratio_large": fa_large},
    )
