"""su2022 checks c06-c11, c18, c19, x01: the concentration and subspace lemmas behind Phase 1.

docs/papers/su2022.md §6 B (C6-C11, C18, C19). Lemmas 3, 6 and 14 are checked by their leading-order rates
(their xi terms carry log^3 N factors that dominate at any simulable size, so only the exponent of
the leading term is testable). Propositions 1-2 are checked as printed with the hidden constant set to 1,
and on the exponent of the variable each one's rate is about: m in Proposition 1, ell in (19), read
from the bound's leading term (``verify.fit.leading_rate``) and matched from both sides by the worst case over
anchors, which attains it; one constant fitted on a calibration sweep and held fixed on the other sweeps
(``verify.fit.held_out_constant_verdict``) is reported beside them. Lemma 15 is checked on its exponents.
Lemma 4 and Lemma 5 have explicit constants and are checked as stated: c08 Lemma 4 as printed (tanh,
an erratum), x01 with tan (GVL13 Theorem 8.2.2).

Propositions 1-2 are statements about one Phase-1 iteration at a given theta_{i,t}; they are
evaluated at anchor models theta = theta*_z + g u spread over the range a Phase-1 trajectory visits
(g from eps Delta to the start's distance), with fresh S_t as the algorithm draws them.
"""
from __future__ import annotations

import math

import numpy as np
import torch

from analytic.bounds import Bound
from analytic.papers import su2022 as S
from verify import figspec
from verify.algorithms.moment_descent import (
    FedMDConfig,
    cluster_residuals,
    expected_moment,
    fedmd,
    nested_residual_moments,
    power_iteration,
)
from verify.algorithms.orthogonal_iteration import orth, orthogonal_iteration, random_orthonormal, subspace_distance
from verify.checks.su2022.common import (EPS, claim, exponent_verdict, model, numpy, quantile_verdict, unit_constant_verdict,
                                         verdict_words)
from verify.engine import Context
from verify.fit import (
    apply_assumptions,
    combine,
    deterministic_verdict,
    exact_zero_verdict,
    held_out_constant_verdict,
    leading_rate,
    power_law,
    proportion_verdict,
    rate_verdict,
)
from verify.normal_draws import randn
from verify.registry import check, result_for
from verify.result import Assumption, Result, erratum
from verify.strength import aside


def _opnorm(A: torch.Tensor) -> np.ndarray:
    return numpy(torch.linalg.matrix_norm(A, ord=2))


def _around(mod, labels: torch.Tensor, distances, generator: torch.Generator) -> torch.Tensor:
    """Anchor models theta*_{z} + g u with random unit u, one per (replicate, anchor): ``[R, H, d]``."""
    R, H = labels.shape
    own = torch.gather(mod.theta, 1, labels[..., None].expand(R, H, mod.d))
    u = randn(R, H, mod.d, generator=generator, dtype=own.dtype, device=own.device)
    g = torch.as_tensor(distances, dtype=own.dtype, device=own.device).reshape(1, -1, 1).expand(R, H, 1)
    return own + g * u / torch.linalg.vector_norm(u, dim=-1, keepdim=True)


def _farthest(mod, theta: torch.Tensor) -> torch.Tensor:
    """delta = max_j ||theta*_j - theta|| per anchor, ``[R, H]``."""
    return torch.linalg.vector_norm(mod.theta[:, None] - theta[:, :, None], dim=-1).amax(-1)


@check("su2022.c06", "Lemma 3: ||Y - E[Y]|| / (delta^2 + sigma^2) falls as sqrt(d/m)", "rate", "holds",
       no_control="a concentration property of the residual moment Y of the data (Lemma 3), not of an algorithm",
       statements=("Lemma 3",))
def c06_lemma3(ctx: Context, *, theory: Bound = S.LEMMA_3_LEADING,
               theory_d: Bound = power_law("d", 1.0, "upper", "xi_1 in d: (d/m) log^3 N dominates as d grows"),
               ms=(1000, 3000, 10000, 30000), ds=(5, 10, 20, 40), m_fixed: int = 5000, d_fixed: int = 10,
               tol: float = 0.1) -> Result:
    """Claim 6: theta fixed (theta = 0), Monte Carlo Y over m at d = 10 and over d at m = 5000, in the regime
    m >= 10 d log N; rank E[Y] <= k exactly. In m the leading term sqrt(d log N / m) is tight (slope in
    [-0.6, -0.4]); in d, xi_1's exponent is 1/2 for d << m but 1 as d grows ((d/m) log^3 N), so the
    test in d is the bound's: slope <= 1 (our reading (docs/papers/su2022.md) [0.4, 0.6] is reported, not required)."""
    R = ctx.reps(8, 32)
    ms, ds = np.asarray(ms), np.asarray(ds)
    dev_m, rank_rel = None, []

    def deviation(d: int, mlist, stream: str):
        mod = model(ctx, stream, R, d=d)
        gen = ctx.generator(stream + "/S_t")
        theta = torch.zeros(R, 1, d, dtype=ctx.dtype, device=ctx.torch_device)
        X, y, _ = mod.points(mod.labels(int(mlist[-1]), gen), 2, gen)
        Ys = nested_residual_moments(X[:, :, 0], y[:, :, 0], X[:, :, 1], y[:, :, 1], theta, mlist)
        EY = expected_moment(mod, theta)
        scale = _farthest(mod, theta)[:, 0] ** 2 + mod.sigma**2
        sv = torch.linalg.svdvals(EY[:, 0])
        rank_rel.append(float((sv[:, mod.k] / sv[:, 0]).amax()))
        return np.stack([_opnorm(Yi[:, 0] - EY[:, 0]) / numpy(scale) for Yi in Ys], axis=1)

    dev_m = deviation(d_fixed, ms, "m-sweep")
    dev_d = np.concatenate([deviation(int(d), [m_fixed], f"d={d}") for d in ds], axis=1)
    rng = ctx.numpy_rng("bootstrap")
    v_m, fit_m = rate_verdict(ms, dev_m, theory, param="m", values={"delta": 1.0, "sigma": 0.0, "d": d_fixed}, tol=tol, rng=rng)
    v_d, fit_d = rate_verdict(ds, dev_d, theory_d, param="d", tol=tol, rng=rng)
    v_rank, _ = exact_zero_verdict(max(rank_rel), atol=1e-12)
    regime = [float(m) >= 10 * d * math.log(2 * m) for m, d in [(ms.min(), d_fixed), (m_fixed, ds.max())]]
    assumptions = [Assumption("regime m >= 10 d log N (N = 2m points)", all(regime), float(ms.min()), "exact",
                              f"smallest m {ms.min()} at d = {d_fixed}; m = {m_fixed} at d = {ds.max()}")]
    verdict = apply_assumptions(combine([v_m, v_d, v_rank]), assumptions)
    fig_rng = ctx.numpy_rng("figure")
    lead_m = np.sqrt(d_fixed / ms) * dev_m.mean(0)[0] / np.sqrt(d_fixed / ms[0])
    lead_d = np.sqrt(ds / m_fixed) * dev_d.mean(0)[0] / np.sqrt(ds[0] / m_fixed)
    return result_for(
        ctx,
        claim(S.LEMMA_3, r"\|Y_t-\mathbb{E}Y_t\|_2\lesssim(\delta_t^2+\sigma^2)\xi_1,\ \xi_1\approx\sqrt{d\log N/m}"),
        verdict,
        observed={"m": ms, "deviation_over_scale_m": dev_m.mean(0), "d": ds, "deviation_over_scale_d": dev_d.mean(0),
                  "sigma_k+1_of_EY_relative": max(rank_rel), "replicates": R},
        predicted={"exponent_m": fit_m["predicted_exponent"], "exponent_d": fit_d["predicted_exponent"], "tolerance": tol},
        fit={"m": fit_m, "d": fit_d},
        explanation=verdict_words(
            verdict,
            f"The deviation of Y from its mean, in units of delta^2 + sigma^2, falls with slope {fit_m['slope']:.2f} in m "
            f"(CI {fit_m['slope_ci'][0]:.2f} to {fit_m['slope_ci'][1]:.2f}), the -1/2 of xi_1's leading term, and rises "
            f"with slope {fit_d['slope']:.2f} in d (CI {fit_d['slope_ci'][0]:.2f} to {fit_d['slope_ci'][1]:.2f}; the leading "
            "term sqrt(d/m) gives 1/2, the bound allows up to 1); E[Y] has rank <= k exactly "
            f"(sigma_(k+1)/sigma_1 = {max(rank_rel):.1e}).",
            f"The slopes {fit_m['slope']:.2f} (m) and {fit_d['slope']:.2f} (d), or the rank of E[Y], disagree with the "
            "stated rate.",
            f"The slopes {fit_m['slope']:.2f} (m) and {fit_d['slope']:.2f} (d) cannot be placed inside or outside the "
            "window at this number of replicates, or the regime assumption failed."),
        assumptions=assumptions,
        figure=figspec.figure(
            figspec.panel(rf"$\|Y-\mathbb{{E}}Y\|/(\delta^2+\sigma^2)$ vs $m$ ($d={d_fixed}$)", "m", "deviation",
                          [figspec.observed("measured", ms, dev_m, rng=fig_rng), figspec.line(r"$\propto\sqrt{d/m}$", ms, lead_m, "bound")]),
            figspec.panel(rf"vs $d$ ($m={m_fixed}$)", "d", "deviation",
                          [figspec.observed("measured", ds, dev_d, rng=fig_rng), figspec.line(r"$\propto\sqrt{d/m}$", ds, lead_d, "bound")])),
        arrays={"deviation_m": dev_m, "deviation_d": dev_d},
    )


@check("su2022.c07", "Lemma 6: the anchor's k x k moment deviates as sqrt(k/ell)", "rate", "holds",
       no_control="a concentration property of the anchor's k x k moment (Lemma 6), not of an algorithm",
       statements=("Lemma 6",))
def c07_lemma6(ctx: Context, *, theory: Bound = S.LEMMA_6_LEADING,
               theory_k: Bound = power_law("k", 1.0, "upper", "xi_2 in k: (k/ell) log^3 N dominates as k grows"),
               ells=(20, 63, 200, 632, 2000), ks=(2, 3, 5, 8), ell_fixed: int = 500, d: int = 10, e_norm: float = 0.5,
               tol: float = 0.1) -> Result:
    """Claim 7: ||A - E A|| / (||e||^2 + sigma^2) against ell (leading term sqrt(k/ell): slope in [-0.6, -0.4])
    and against k, the dimension of U; U a fixed orthonormal d x k, the anchor at distance ||e|| = 0.5.
    In k the bound's exponent is 1 ((k/ell) log^3 N); our reading (docs/papers/su2022.md) window [0.3, 0.7] is reported: the
    operator norm of a small k x k random matrix grows faster than sqrt(k) (about k^0.8 from k = 2 to 8)."""
    R = ctx.reps(50, 200)
    ells, ks = np.asarray(ells), np.asarray(ks)
    mod = model(ctx, "model", R, k=2, d=d)
    gen = ctx.generator("anchor")
    labels = torch.zeros(R, 1, dtype=torch.long, device=ctx.torch_device)
    theta = _around(mod, labels, [e_norm], gen)
    e = cluster_residuals(mod, theta)[:, 0, 0]  # Sigma_0 (theta*_0 - theta)

    def deviations(k: int, ell_list, stream: str) -> np.ndarray:
        g = ctx.generator(stream)
        U = random_orthonormal((R,), d, k, g, ctx.dtype)
        X, y, _ = mod.points(labels, 2 * int(ell_list[-1]), g)
        eps = (y[:, 0] - (X[:, 0] @ theta[:, 0, :, None])[..., 0])[..., None] * X[:, 0]
        pe = eps @ U  # [R, 2 ell_max, k]
        half = int(ell_list[-1])
        outer = torch.cumsum(pe[:, :half, :, None] * pe[:, half:, None, :], dim=1)
        EA = (U.transpose(1, 2) @ e[..., None]) @ (e[:, None, :] @ U)
        return np.stack([_opnorm(outer[:, ell - 1] / ell - EA) for ell in ell_list], axis=1) / (e_norm**2 + mod.sigma**2)

    dev_ell = deviations(3, ells, "ell-sweep")
    dev_k = np.concatenate([deviations(int(k), [ell_fixed], f"k={k}") for k in ks], axis=1)
    rng = ctx.numpy_rng("bootstrap")
    at = {"e_norm": 1.0, "sigma": 0.0}
    v_l, fit_l = rate_verdict(ells, dev_ell, theory, param="ell", values={**at, "k": 3}, tol=tol, rng=rng)
    v_k, fit_k = rate_verdict(ks, dev_k, theory_k, param="k", tol=tol, rng=rng)
    verdict = combine([v_l, v_k])
    fig_rng = ctx.numpy_rng("figure")
    return result_for(
        ctx,
        claim(S.LEMMA_6, r"\|A_t-\mathbb{E}A_t\|_2\lesssim(\|\theta^*_j-\theta_t\|^2+\sigma^2)\xi_2,\ \xi_2\approx\sqrt{k\log N/\ell}"),
        verdict,
        observed={"ell": ells, "deviation_ell": dev_ell.mean(0), "k": ks, "deviation_k": dev_k.mean(0), "replicates": R},
        predicted={"exponent_ell": fit_l["predicted_exponent"], "exponent_k": fit_k["predicted_exponent"]},
        fit={"ell": fit_l, "k": fit_k},
        explanation=verdict_words(
            verdict,
            f"Projected onto k dimensions, the anchor's moment deviates with slope {fit_l['slope']:.2f} in ell (CI "
            f"{fit_l['slope_ci'][0]:.2f} to {fit_l['slope_ci'][1]:.2f}), the -1/2 of xi_2's leading term, and with slope "
            f"{fit_k['slope']:.2f} in k (within the bound's exponent 1; a window of 0.3 to 0.7 would assume sqrt(k), which small "
            "k x k random matrices exceed): Omega~(k) local points suffice, independently of d.",
            f"The slopes {fit_l['slope']:.2f} (ell) and {fit_k['slope']:.2f} (k) contradict the stated rate.",
            f"The slopes {fit_l['slope']:.2f} (ell) and {fit_k['slope']:.2f} (k) are not resolved at this replicate count."),
        figure=figspec.figure(
            figspec.panel(r"$\|A-\mathbb{E}A\|/(\|e\|^2+\sigma^2)$ vs $\ell$ ($k=3$)", r"$\ell$", "deviation",
                          [figspec.observed("measured", ells, dev_ell, rng=fig_rng),
                           figspec.line(r"$\propto\sqrt{k/\ell}$", ells, dev_ell.mean(0)[0] * np.sqrt(ells[0] / ells), "bound")]),
            figspec.panel(rf"vs $k$ ($\ell={ell_fixed}$)", "k", "deviation",
                          [figspec.observed("measured", ks, dev_k, rng=fig_rng),
                           figspec.line(r"$\propto\sqrt{k/\ell}$", ks, dev_k.mean(0)[0] * np.sqrt(ks / ks[0]), "bound")])),
        arrays={"deviation_ell": dev_ell, "deviation_k": dev_k},
    )


def _lemma4_runs(ctx: Context, gaps, d: int, k: int, iterations: int, quick_reps: int = 100):
    """Orthogonal iteration on Y Y^T for Y = U diag(lambda) U^T with lambda_{k+1}/lambda_k = gap (ratio gap^2 per
    multiplication by Y Y^T, the Y of Lemma 4): the subspace distances ``D [G, R, T]`` and the angles gamma
    ``[G, R]`` with cos(gamma) = sigma_min(U_1^T Q_0) of the actual starts."""
    R = ctx.reps(quick_reps, 400)
    gen = ctx.generator("spectra")
    dists, angles = [], []
    for gap in gaps:
        U = random_orthonormal((R,), d, d, gen, ctx.dtype)
        top = torch.tensor([1.0, 0.95, 0.9][:k] + [0.9] * max(0, k - 3), dtype=ctx.dtype, device=ctx.torch_device)[:k]
        rest = top[-1] * gap * torch.linspace(1.0, 0.5, d - k, dtype=ctx.dtype, device=ctx.torch_device)
        Y = (U * torch.cat([top, rest])) @ U.transpose(1, 2)
        U1 = U[:, :, :k]
        Q = random_orthonormal((R,), d, k, gen, ctx.dtype)
        cos = torch.linalg.svdvals(U1.transpose(1, 2) @ Q)[:, -1]
        angles.append(numpy(torch.arccos(cos.clamp(max=1.0))))
        rows = []
        for _ in range(iterations):
            Q = orth(Y @ (Y.transpose(1, 2) @ Q))
            rows.append(numpy(subspace_distance(Q, U1)))
        dists.append(np.stack(rows, axis=1))
    return np.stack(dists), np.stack(angles), R


def _lemma4_bounds(theory: Bound, gaps, angles: np.ndarray, iterations: int) -> np.ndarray:
    ts = np.arange(1, iterations + 1)
    return np.stack([np.broadcast_to(np.asarray(theory(gamma_angle=angles[i][:, None], ratio=g**2, t=ts[None, :]), dtype=float),
                                      (angles.shape[1], iterations)) for i, g in enumerate(gaps)])


def _lemma4_panels(ctx, gaps, D, B, label):
    ts = np.arange(1, D.shape[-1] + 1)
    return [figspec.panel(rf"$\lambda_{{k+1}}/\lambda_k={g:g}$", "t (multiplications by $YY^T$)", r"$\|Q_tQ_t^\top-U_1U_1^\top\|$",
                          [figspec.observed("measured", ts, np.maximum(D[i], 1e-16), rng=ctx.numpy_rng("figure")),
                           figspec.line(label + " (mean over $Q_0$)", ts, B[i].mean(0), "bound")],
                          xscale="linear") for i, g in enumerate(gaps)]


def lemma4_witness() -> dict:
    """The smallest instance of Lemma 4 in closed form (d = 2, k = 1): Y = diag(1, r), Q_0 = (cos g, sin g). After t
    multiplications by Y, Q_t is along (cos g, r^t sin g), so ||Q_t Q_t^T - e_1 e_1^T|| = r^t tan g / sqrt(1 + r^(2t) tan^2 g)
    >= r^t sin g. At g = pi/4, r = 1/2, t = 1 the exact distance is 1/sqrt(5); sympy evaluates it against the printed
    tanh(pi/4)/2 and the repaired tan(pi/4)/2 = 1/2 to 30 digits."""
    import sympy as sp

    g, r, t = sp.pi / 4, sp.Rational(1, 2), 1
    dist = sp.nsimplify(r**t * sp.tan(g) / sp.sqrt(1 + r ** (2 * t) * sp.tan(g) ** 2))
    printed, repaired = sp.tanh(g) * r**t, sp.tan(g) * r**t
    return {"distance": str(dist), "distance_value": float(sp.N(dist, 30)), "printed_bound": float(sp.N(printed, 30)),
            "repaired_bound": float(sp.N(repaired, 30)), "printed_violated": bool(sp.N(dist - printed, 30) > 0),
            "repaired_holds": bool(sp.N(repaired - dist, 30) >= 0)}


@check("su2022.c08", "Lemma 4 as printed: orthogonal iteration converges as tanh(theta) |lambda_{k+1}/lambda_k|^t",
       "erratum", "violated", statements=("Lemma 4",))
def c08_lemma4(ctx: Context, *, theory: Bound = S.LEMMA_4_PRINTED, gaps=(0.5, 0.8, 0.95), d: int = 20, k: int = 3,
               iterations: int = 40, floor: float = 1e-10, rtol: float = 1e-9) -> Result:
    """Lemma 4 as printed (paper line ~492): ||Q_t Q_t^T - U_1 U_1^T||_2 <= tanh(theta) |lambda_{k+1}/lambda_k|^t for all t,
    theta read as the angle gamma of cos(gamma) = sigma_min(U_1^T Q_0). Measured as in Claim 8 (Y = U diag(lambda) U^T,
    orthogonal iteration on Y Y^T, gamma from the actual Q_0) at every (start, t) where the bound exceeds 1e-10.
    Expected violated: in the closed-form d = 2 instance (``lemma4_witness``) the distance is >= r^t sin(gamma), and
    sin > tanh on (0, pi/2]. The repaired tan(gamma) is su2022.x01."""
    D, angles, R = _lemma4_runs(ctx, gaps, d, k, iterations, quick_reps=30)  # the failure is decisive: 30 starts suffice
    B = _lemma4_bounds(theory, gaps, angles, iterations)
    mask = B >= floor
    verdict, info = deterministic_verdict(D[mask], B[mask], rtol=rtol)
    share = float(np.mean(D[mask] > B[mask] * (1 + rtol)))
    w = lemma4_witness()
    i, r_, t_ = np.unravel_index(int(np.argmax(np.where(mask, D / np.where(B > 0, B, 1), 0))), D.shape)
    witness_run = {"gap": float(gaps[i]), "gamma": float(angles[i, r_]), "t": int(t_ + 1), "distance": float(D[i, r_, t_]),
                   "printed_bound": float(B[i, r_, t_])}
    finding = None
    if not verdict.passed:
        finding = erratum(
            f"Lemma 4 as printed (tanh) fails in {share:.0%} of the {int(mask.sum())} (start, t) pairs; with tan(gamma) "
            "(GVL13 Theorem 8.2.2) it holds in every pair (su2022.x01).",
            paper_says="Lemma 4 (Appendix A.1, paper line ~492): \"Assume |lambda_k| > |lambda_{k+1}| and cos(gamma) = "
                       "sigma_min(U_1^T Q_0) ... Then ||Q_t Q_t^T - U_1 U_1^T||_2 <= tanh(theta) |lambda_{k+1}/lambda_k|^t, for all t.\"",
            correction="||Q_t Q_t^T - U_1 U_1^T||_2 <= tan(gamma) |lambda_{k+1}/lambda_k|^t (GVL13 Theorem 8.2.2); the printed "
                       "tanh(theta) has the wrong function and an undefined angle. Lemma 5's proof repeats it (\"tanh(gamma) = "
                       "O(N^10 d)\"), where only tan(gamma) can be large.",
            witness=f"d = 2, k = 1, Y = diag(1, 1/2), Q_0 = (cos pi/4, sin pi/4), t = 1: the distance is exactly {w['distance']} = "
                    f"{w['distance_value']:.6f} > tanh(pi/4)/2 = {w['printed_bound']:.6f} (tan(pi/4)/2 = {w['repaired_bound']:.2f} "
                    f"holds). In the runs: gap {witness_run['gap']}, gamma = {witness_run['gamma']:.3f}, t = {witness_run['t']}: "
                    f"distance {witness_run['distance']:.4f} against the printed {witness_run['printed_bound']:.4f}.",
            second_argument="Closed form, independent of the simulation: for Y = diag(1, r), Q_0 = (cos g, sin g), Q_t is along "
                            "(cos g, r^t sin g), so the distance is r^t tan g / sqrt(1 + r^(2t) tan^2 g) >= r^t tan g cos g = r^t sin g. "
                            "And sin x > tanh x on (0, pi/2]: f(x) = sin x cosh x - sinh x has f(0) = 0, f(pi/2) = e^(-pi/2) > 0, and "
                            "f'(x) = cosh x sin x (tanh x - tan(x/2)) changes sign once (tanh x - tan(x/2) is concave, 0 at 0 with "
                            "slope 1/2), so f rises then falls and stays > 0. Hence the printed bound fails at every t and every "
                            "start angle in this instance; sympy's exact evaluation at g = pi/4, r = 1/2, t = 1 gives 1/sqrt(5) - "
                            "tanh(pi/4)/2 > 0 (30 digits).")
    return result_for(
        ctx,
        claim(theory, r"\|Q_tQ_t^\top-U_1U_1^\top\|_2\le\tanh(\theta)\,|\lambda_{k+1}/\lambda_k|^t\ \ \forall t\ \text{(as printed)}"),
        verdict,
        observed={"gaps": list(gaps), "comparisons": int(mask.sum()), "violations": info["violations"],
                  "violation_share": share, "worst_ratio_to_bound": info["worst_ratio"], "replicates": R,
                  "witness_run": witness_run, "closed_form_witness": w},
        predicted={"floor": floor},
        fit={"worst_ratio": info["worst_ratio"], "violation_share": share},
        explanation=verdict_words(
            verdict,
            f"In all {int(mask.sum())} (start, t) pairs above the floor the distance stays below {theory.name} "
            f"(largest ratio {info['worst_ratio']:.3f}).",
            f"{info['violations']} of {int(mask.sum())} (start, t) pairs ({share:.0%}) exceed the printed tanh bound (largest "
            f"ratio {info['worst_ratio']:.3f}): the subspace distance is at least r^t sin(gamma) and sin > tanh, so Lemma 4 "
            "needs tan(gamma) (x01).",
            "A non-finite distance appeared."),
        finding=finding,
        figure=figspec.figure(*_lemma4_panels(ctx, gaps, D, B, r"$\tanh\gamma\,|\lambda_{k+1}/\lambda_k|^{2t}$ (printed)")),
        arrays={"distance": D},
    )


@check("su2022.x01", "Lemma 4 repaired: orthogonal iteration converges as tan(gamma) |lambda_{k+1}/lambda_k|^t", "bound", "holds",
       no_control="a deterministic convergence bound of orthogonal iteration on a fixed matrix; the printed tanh form (c08) is the comparison that fails",
       statements=("Lemma 4",))
def x01_lemma4_tan(ctx: Context, *, theory: Bound = S.LEMMA_4, gaps=(0.5, 0.8, 0.95), d: int = 20, k: int = 3,
                   iterations: int = 40, floor: float = 1e-10, rtol: float = 1e-9) -> Result:
    """Claim 8 with E14's repair: Y = U diag(lambda) U^T with lambda_{k+1}/lambda_k = gap; orthogonal iteration on
    Y Y^T (ratio gap^2 per multiplication); ||Q_t Q_t^T - U_1 U_1^T|| <= tan(gamma) gap^(2t) with cos(gamma) =
    sigma_min(U_1^T Q_0) from the actual Q_0, at every t where the bound exceeds 1e-10 (GVL13 Theorem 8.2.2).
    The printed tanh is su2022.c08."""
    D, angles, R = _lemma4_runs(ctx, gaps, d, k, iterations)
    B = _lemma4_bounds(theory, gaps, angles, iterations)
    mask = B >= floor
    verdict, info = deterministic_verdict(D[mask], B[mask], rtol=rtol)
    return result_for(
        ctx,
        claim(theory, r"\|Q_tQ_t^\top-U_1U_1^\top\|_2\le\tan(\gamma)\,|\lambda_{k+1}/\lambda_k|^t"),
        verdict,
        observed={"gaps": list(gaps), "final_distance_mean": D[:, :, -1].mean(1), "comparisons": int(mask.sum()),
                  "violations": info["violations"], "worst_ratio_to_bound": info["worst_ratio"], "replicates": R},
        predicted={"floor": floor},
        fit={"worst_ratio": info["worst_ratio"]},
        explanation=verdict_words(
            verdict,
            f"In all {int(mask.sum())} (start, t) pairs above the floor the subspace distance stays below tan(gamma) "
            f"|lambda_(k+1)/lambda_k|^t (largest ratio {info['worst_ratio']:.3f}): Lemma 4 holds with tan, not the printed "
            "tanh (c08).",
            f"{info['violations']} of {int(mask.sum())} (start, t) pairs exceed {theory.name} (largest ratio "
            f"{info['worst_ratio']:.3f}): the stated rate is too fast.",
            "A non-finite distance appeared."),
        figure=figspec.figure(*_lemma4_panels(ctx, gaps, D, B, r"$\tan\gamma\,|\lambda_{k+1}/\lambda_k|^{2t}$")),
        arrays={"distance": D},
    )


@check("su2022.c09", "Lemma 5 (gap-free): ||(I - Q Q^T) x_i|| <= 3 sqrt(eps) after k log(dNH/eps) iterations", "bound", "holds",
       no_control="a property of orthogonal iteration's output against a stated bound; the bound's constant 3 is what is tested",
       statements=("Lemma 5",))
def c09_lemma5(ctx: Context, *, theory: Bound = S.LEMMA_5, eps_ops=(1e-4, 1e-3, 1e-2, 1e-1), d: int = 20, k: int = 3,
               N: int = 10000, threshold: float = 0.99) -> Result:
    """Claim 9: M = sum_i x_i x_i^T + E with ||E|| = eps exactly (E random, asymmetric) and x_i with equal
    norms, one norm sqrt(eps) (no gap), or random norms; after t = ceil(k log(d N H / eps)) iterations
    on M M^T, max_i ||(I - Q Q^T) x_i|| <= 3 sqrt(eps) in at least 99% of trials."""
    R = ctx.reps(200, 800)
    gen = ctx.generator("instances")
    ok_counts, trials, worst, rows, ratios = 0, 0, [], [], []
    for variant in ("equal norms", "one norm sqrt(eps)", "random norms"):
        for eps_op in eps_ops:
            X = random_orthonormal((R,), d, k, gen, ctx.dtype)  # directions x_i / ||x_i||
            if variant == "equal norms":
                norms = torch.ones(R, k, dtype=ctx.dtype, device=ctx.torch_device)
            elif variant == "random norms":
                norms = 0.1 + 0.9 * torch.rand(R, k, generator=gen, dtype=ctx.dtype, device=ctx.torch_device)
            else:
                norms = torch.ones(R, k, dtype=ctx.dtype, device=ctx.torch_device)
                norms[:, -1] = math.sqrt(eps_op)
            Xs = X * norms[:, None, :]  # columns x_i
            E = randn(R, d, d, generator=gen, dtype=ctx.dtype, device=ctx.torch_device)
            E = eps_op * E / torch.linalg.matrix_norm(E, ord=2)[:, None, None]
            M = Xs @ Xs.transpose(1, 2) + E
            H = float(norms.amax())
            t = math.ceil(k * math.log(d * N * H / eps_op))
            Q = orthogonal_iteration(M, random_orthonormal((R,), d, k, gen, ctx.dtype), t)
            resid = torch.linalg.vector_norm(Xs - Q @ (Q.transpose(1, 2) @ Xs), dim=1).amax(-1)
            bound = float(theory(eps_op=eps_op))
            ok = int((resid <= bound).sum())
            ok_counts, trials = ok_counts + ok, trials + R
            worst.append(float((resid / bound).amax()))
            ratios.append(numpy(resid) / bound)
            rows.append({"variant": variant, "eps": eps_op, "iterations": t, "share_within": ok / R,
                         "max_residual_over_bound": worst[-1]})
    with aside():  # the same claim as a share, reported; the verdict reads the quantile, which the theory drives
        _, info = proportion_verdict(ok_counts, trials, threshold, side="lower")
    verdict, qinfo = quantile_verdict(np.concatenate(ratios), threshold)
    info["quantile_of_residual_over_bound"] = qinfo
    x = np.arange(1, len(rows) + 1)
    shares = np.array([r["share_within"] for r in rows])
    return result_for(
        ctx,
        claim(theory, r"\|Q_tQ_t^\top x_i-x_i\|_2\le3\sqrt{\epsilon},\ t\ge Ck\log(dNH/\epsilon)"),
        verdict,
        observed={"configurations": rows, "within_bound": ok_counts, "trials": trials,
                  "quantile_99_of_ratio": qinfo["estimate"], "quantile_99_ci": qinfo["ci"]},
        predicted={"threshold_share": threshold},
        fit=info,
        explanation=verdict_words(
            verdict,
            f"{ok_counts} of {trials} trials end with every x_i within 3 sqrt(eps) of the estimated subspace (95% CI of "
            f"the share {info['ci'][0]:.4f} to {info['ci'][1]:.4f}), including the gap-free case where one ||x_i||^2 "
            f"equals the perturbation; the largest residual is {max(worst):.2f} of the bound, the 99% quantile of "
            f"residual/bound {qinfo['estimate']:.3f} (CI {qinfo['ci'][0]:.3f} to {qinfo['ci'][1]:.3f}).",
            f"Only {ok_counts} of {trials} trials stay within the bound: the constant or the iteration count is wrong.",
            f"{ok_counts} of {trials} trials stay within the bound; the interval {info['ci'][0]:.4f} to "
            f"{info['ci'][1]:.4f} does not decide the 99% claim."),
        figure=figspec.figure(figspec.panel(
            "Share of trials within $3\\sqrt{\\epsilon}$", "configuration #", "share", 
            [figspec.observed("measured share", x, shares[None]),
             figspec.line("99%", x, threshold, "bound")], xscale="linear", yscale="linear")),
    )


def _prop1_points(ctx: Context, stream: str, R: int, theory: Bound, *, k: int, d: int, ms, p=None,
                  distances=(0.1, 0.3, 1.0), T1: int = 60, noise: bool = False):
    """Projection residuals ||(I - U U^T) Sigma_j e_j||^2 [P, R, H, k] and Prop. 1's shape
    (delta^2 + sigma^2) xi_1 / p_j for one sweep over nested pools of m fresh clients; with ``noise`` also
    ||Y - E Y|| [P, R, H] (the noise level of Lemma 3 that the residual is set by), delta^2 + sigma^2 [R, H] and
    p [R, k]."""
    mod = model(ctx, stream, R, k=k, d=d, p=p)
    gen = ctx.generator(stream + "/S_t")
    labels = mod.labels(len(distances), gen)
    theta = _around(mod, labels, distances, gen)
    X, y, _ = mod.points(mod.labels(int(ms[-1]), gen), 2, gen)
    Ys = nested_residual_moments(X[:, :, 0], y[:, :, 0], X[:, :, 1], y[:, :, 1], theta, ms)
    Q0 = random_orthonormal((R, len(distances)), d, k, gen, ctx.dtype)
    res = cluster_residuals(mod, theta)  # [R, H, k, d]
    delta = numpy(_farthest(mod, theta))[..., None]  # [R, H, 1]
    EY = expected_moment(mod, theta) if noise else None
    out, shape, eps = [], [], []
    for m, Y in zip(ms, Ys):
        U = orthogonal_iteration(Y, Q0, T1 // 2)
        out.append(numpy(((res - (res @ U) @ U.transpose(-1, -2)) ** 2).sum(-1)))
        shape.append(np.asarray(theory(delta=delta, sigma=mod.sigma, d=d, m=m, N=2 * m, p=numpy(mod.p)[:, None, :]), dtype=float)
                     * np.ones_like(out[-1]))
        if noise:
            eps.append(numpy(torch.linalg.matrix_norm(Y - EY, ord=2)))
    if noise:
        return np.stack(out), np.stack(shape), np.stack(eps), delta[..., 0] ** 2 + mod.sigma**2, numpy(mod.p)
    return np.stack(out), np.stack(shape)


#: Anchor distances of c10's m sweep: six distances from 0.15 to 2.5 (four random directions each), wide enough that
#: an eigen-weight of E[Y] crosses the noise level ||Y - E Y|| ~ sqrt(d/m) at every m of the sweep: near anchors
#: (the own cluster's weight p_z g^2), far ones (the clusters' spread against delta^2 ~ g^2).
PROP1_DISTANCES = tuple(float(g) for g in np.repeat(np.geomspace(0.15, 2.5, 6), 4))



def _exponent_panel(ctx: Context, title: str, xlabel: str, ylabel: str, label: str, x, worst, fit_exp: dict, *,
                    symbol: str = "m"):
    """The measured worst case against x with the stated leading exponent drawn through its first point."""
    p = fit_exp["predicted_exponent"]
    return figspec.panel(title, xlabel, ylabel,
                         [figspec.observed(label, x, worst, rng=ctx.numpy_rng("figure")),
                          figspec.line(rf"$\propto {symbol}^{{{p:g}}}$", x, worst.mean(0)[0] * (x / x[0]) ** p, "bound")])

@check("su2022.c10", "Proposition 1: the projection residual is <~ (delta^2+sigma^2) xi_1 / p_j, and its worst case falls as m^(-1/2)",
       "bound", "holds",
       no_control="a property of the estimated subspace's projection (Proposition 1) against its stated shape, not a comparison of algorithms",
       statements=("Proposition 1",))
def c10_prop1(ctx: Context, *, theory: Bound = S.PROP_1, ms=(1000, 3000, 10000, 30000, 100000), ds=(5, 20),
              p_skewed=(0.2, 0.1), m_fixed: int = 20000, margin: float = 2.0, distances=PROP1_DISTANCES,
              exponent_tol: float = 0.1, p_sweep=(0.3, 0.2, 0.12, 0.08), p_tol: float = 0.45) -> Result:
    """Claim 10: ||(I - U U^T) Sigma_j e_j||^2 <= C (delta^2 + sigma^2) xi_1 / p_j for every cluster j, e_j = theta*_j -
    theta, at anchor models theta = theta*_z + g u. Three atoms:

    1. The printed statement with its hidden constant set to 1 (one-sided; ``unit_constant_verdict``).
    2. The exponent of m, two-sided: the stated exponent is that of Proposition 1's leading term,
       ``verify.fit.leading_exponent`` (m -> oo with log N held fixed: -1/2; on any simulable grid xi_1's
       (d/m) log^3 N term dominates, a proof artifact). The measured quantity is the worst case over the anchors
       the statement covers: per replicate, the sup over anchors (``distances``: six distances g from 0.15 to 2.5,
       four random directions u each) and clusters j of the residual divided by the bound's m-free factors (its
       shape at ms[0]), over m = 1000 to 100000 (m >= 10 d log N throughout).
       Why that sup is Theta(||Y - E Y|| / p_j) and so Theta(m^(-1/2)) (attained, hence a two-sided test):
       the proof applies Lemma 5 (gap-free) to x_j = sqrt(p_j) Sigma_j e_j with ||Y - sum_j x_j x_j^T|| = eps :=
       ||Y - E Y||, so the residual is <= 9 eps / p_j at every anchor. Conversely the residual of a direction of
       eigen-weight w = p_j ||Sigma_j e_j||^2 is about eps^2/(p_j w) for w >> eps (Davis-Kahan), ||Sigma_j e_j||^2 =
       w/p_j for w << eps (the direction is lost in the noise) and of order eps/p_j where w ~ eps, which the anchors
       cross at every m (near ones: the own cluster's weight p_z g^2; far ones: the clusters' spread p Delta^2
       against delta^2 ~ g^2); so the sup over anchors is c eps / p_j with c bounded away from 0 (measured:
       ``sup_residual_over_noise`` = max over anchors of residual p_j / ||Y - E Y||, <= 9 by Lemma 5, about the
       same at every m). And eps = Theta(m^(-1/2)) at fixed d: Y - E Y is a mean
       of m i.i.d. centred matrices, so for fixed unit u, v the entry u^T (Y - E Y) v has standard deviation
       s/sqrt(m) with s > 0 and ||Y - E Y|| >= |u^T (Y - E Y) v| (CLT lower bound), while Lemma 3 gives the
       matching upper bound (measured slope of eps: ``noise_slope_m``). With fixed distances the measured slope
       would depend on g (-0.79, -0.51, -0.19 at g = 0.1, 0.3, 1 over m = 500..60000): only the sup is the rate.
    3. The exponent of p_j (the cluster's share), one-sided: k = 2, p = (p_min, 1 - p_min) for p_min in ``p_sweep``
       (0.3 to 0.08), m = m_fixed, the same anchors; per replicate the worst residual of the smallest cluster over the
       anchors, in units of (delta^2 + sigma^2) (so the Bound is evaluated with delta = 0, sigma = 1 and p per point:
       its p-shape 1/p). By the argument of 2 the sup is about eps/p_j, so the measured exponent is about -1 (-0.95 to
       -1.14 over seeds 0-3), but with 8 replicates its CI is +-0.25, too wide for a two-sided test at quick cost; so
       the claim's direction is tested: as p_min -> 0 the residual must not grow faster than 1/p (slope >= -1 -
       0.45). Seeds 0-4: CI lower ends -1.15 to -1.41 (5 of 5 ``holds``; with 0.3, seed 4 was ``inconclusive``), CI
       upper ends -0.59 to -0.93, so a bound blind to p (p^0, slope >= -0.45) is violated at each of them.
    4. Reported (``aside``): one constant C fitted on the m sweep (d = 10, k = 3, uniform p) and held fixed
       (x margin) on the d sweep and on skewed p (k = 2, p_min in p_skewed), at the same anchors.

    sigma is fixed at 0.1 (the common default): it enters only through delta^2 + sigma^2, and the anchors' delta
    (0.15 to 2.5) dominates that factor at every point, so no grid here could move the sigma^2 term."""
    R, R_held = ctx.reps(12, 32), ctx.reps(4, 16)  # the exponent's CI needs the larger m sweep
    ms = np.asarray(ms)
    cal_res, cal_shape, cal_eps, cal_scale, cal_p = _prop1_points(ctx, "m-sweep", R, theory, k=3, d=10, ms=ms, distances=distances,
                                                noise=True)
    sweeps = [(f"d={d}", _prop1_points(ctx, f"d={d}", R_held, theory, k=3, d=int(d), ms=[m_fixed],
                                       distances=distances)) for d in ds]
    sweeps += [(f"p_min={pm:g}", _prop1_points(ctx, f"p={pm}", R_held, theory, k=2, d=10, ms=[m_fixed], p=[pm, 1 - pm],
                                               distances=distances)) for pm in p_skewed]

    def sup_ratio(res, shape):  # the empirical sup over replicates, anchors and clusters, per grid point
        return (res / shape).max(axis=(1, 2, 3))

    cal = sup_ratio(cal_res, cal_shape)
    test = np.concatenate([sup_ratio(r, s) for _, (r, s) in sweeps])
    # the printed statement with C = 1, on the m sweep and on the held-out sweeps ([R, P]: sup over anchors, clusters)
    units = [unit_constant_verdict(ctx, (cal_res / cal_shape).max(axis=(2, 3)).T, theory)]
    if sweeps:
        units.append(unit_constant_verdict(ctx, np.concatenate([(r / s).max(axis=(2, 3)).T for _, (r, s) in sweeps], 1),
                                           theory, stream="bootstrap/unit-constant-held-out"))
    v_units = [v for v, _ in units if v is not None]
    info_unit = max((i for _, i in units), key=lambda i: i["worst_ratio"])
    # the worst case over anchors in units of the bound's m-free factors (its shape at the first m): [R, P]
    worst = (cal_res / cal_shape[:1]).max(axis=(2, 3)).T
    lead = leading_rate(theory, "m")
    v_exp, fit_exp = rate_verdict(ms, worst, lead, param="m", tol=exponent_tol, rng=ctx.numpy_rng("bootstrap/m-exponent"))
    eps_sup = (cal_eps / cal_scale).max(axis=2).T  # [R, P]: ||Y - E Y|| / (delta^2 + sigma^2), worst anchor
    worst_p = []  # [R, len(p_sweep)]: the smallest cluster's worst residual over anchors, in units of delta^2 + sigma^2
    for pm in p_sweep:
        res_p, _, _, scale_p, p_p = _prop1_points(ctx, f"p-sweep/p={pm}", R_held * 2, theory, k=2, d=10, ms=[m_fixed],
                                                  p=[pm, 1 - pm], distances=distances, noise=True)
        j = np.argmin(p_p, axis=1)
        worst_p.append((res_p[0][np.arange(res_p.shape[1]), :, j] / scale_p).max(1))
    worst_p = np.stack(worst_p, 1)
    v_p, fit_p = exponent_verdict(ctx, np.asarray(p_sweep, dtype=float), worst_p, theory, param="p",
                                  values={"delta": 0.0, "sigma": 1.0, "d": 10, "m": m_fixed, "N": 2 * m_fixed},
                                  tol=p_tol, tight=False, toward_zero=True)
    with aside():  # the shape across sweeps with one fitted constant, the noise level's rate, the residual norm: reported
        v_const, info = held_out_constant_verdict(cal, cal, np.ones_like(cal), test, test, np.ones_like(test), margin=margin)
        _, fit_eps = rate_verdict(ms, eps_sup, power_law("m", -0.5, "tight"), param="m", tol=exponent_tol,
                                  rng=ctx.numpy_rng("bootstrap/noise"))
        norms = np.sqrt(np.maximum(cal_res, 0)).mean(axis=(2, 3)).T  # [R, P] mean residual norm
    peak = (cal_res / cal_shape[:1]).max(axis=3).mean(axis=1).argmax(axis=1)  # [P]: the worst distance, mean over replicates
    # Lemma 5 in the proof: residual <= 9 ||Y - E Y|| / p_j at every anchor; its worst case over anchors, per m
    sup_over_noise = (cal_res * cal_p[None, :, None, :] / cal_eps[..., None]).max(axis=(2, 3)).mean(axis=1)
    verdict = combine([v_const, v_exp, v_p] + v_units)
    names = [f"m={m}" for m in ms] + [n for n, _ in sweeps]
    ratios = np.concatenate([cal, test])
    x = np.arange(1, len(names) + 1)
    ci = fit_exp["slope_ci"]
    return result_for(
        ctx,
        claim(theory, r"\|(\hat U\hat U^\top-I)\Sigma_j(\theta^*_j-\theta_t)\|^2\lesssim(\delta_t^2+\sigma^2)\xi_1/p_j"),
        verdict,
        observed={"grid": names, "sup_ratio_to_shape": ratios, "worst_case_m_sweep": worst.mean(0),
                  "noise_m_sweep": eps_sup.mean(0), "sup_residual_over_noise": sup_over_noise,
                  "worst_distance_m_sweep": [distances[int(i)] for i in peak], "anchor_distances_m_sweep": list(distances),
                  "mean_residual_norm_m_sweep": norms.mean(0), "replicates": R},
        predicted={"exponent_m": fit_exp["predicted_exponent"], "exponent_tolerance": exponent_tol,
                   "constant_fitted_on": "m sweep (d=10, k=3, uniform p)", "constant": info["constant"], "margin": margin},
        fit={"exponent_m": fit_exp, "noise_slope_m": fit_eps, "constant": info, "unit_constant": info_unit,
             "exponent_p": fit_p, "p_sweep": list(p_sweep), "worst_case_p_sweep": worst_p.mean(0)},
        explanation=verdict_words(
            verdict,
            f"Proposition 1 holds with its hidden constant set to 1 (worst residual/bound {info_unit['worst_ratio']:.3g}: the "
            f"bound exceeds the residual by {1 / info_unit['worst_ratio']:.0f}x or more, since xi_1's (d/m) log^3 N term "
            "dominates it at these m). Its rate is attained: the worst residual over anchor distances falls with slope "
            f"{fit_exp['slope']:.2f} in m (CI {ci[0]:.2f} to {ci[1]:.2f}), the {fit_exp['predicted_exponent']:g} of xi_1's "
            f"leading term sqrt((d/m) log N), because the gap-free projection (Lemma 5) loses about ||Y - EY|| / p_j: "
            f"the noise ||Y - EY|| of Lemma 3 falls with slope {fit_eps['slope']:.2f}, and the worst residual times p_j "
            f"is {sup_over_noise.min():.2f} to {sup_over_noise.max():.2f} of it at every m (Lemma 5 allows 9). One constant C = {info['constant']:.3g} (fitted on the m sweep, x{margin:g}) also covers the "
            f"held-out d and p_min sweeps. In p_min ({min(p_sweep):g} to {max(p_sweep):g}) the smallest cluster's worst "
            f"residual grows with exponent {fit_p['slope']:.2f} (CI {fit_p['slope_ci'][0]:.2f} to "
            f"{fit_p['slope_ci'][1]:.2f}): no faster than 1/p_j.",
            f"The worst residual falls with slope {fit_exp['slope']:.2f} in m (CI {ci[0]:.2f} to {ci[1]:.2f}) against the "
            f"stated {fit_exp['predicted_exponent']:g} (tolerance {exponent_tol:g}), or the constant fitted on the m sweep "
            f"({info['constant']:.3g}) does not cover the held-out sweeps (worst ratio "
            f"{info['worst_test_ratio_to_constant']:.2f}).",
            f"The slope {fit_exp['slope']:.2f} in m (CI {ci[0]:.2f} to {ci[1]:.2f}) is not resolved against "
            f"{fit_exp['predicted_exponent']:g} (tolerance {exponent_tol:g})."),
        figure=figspec.figure(
            _exponent_panel(ctx, r"Worst residual over anchors / m-free factors vs $m$", "m", "residual", "measured sup",
                            ms, worst, fit_exp),
            figspec.panel(r"Sup of residual / $((\delta^2+\sigma^2)\xi_1/p_j)$", "grid point #", "ratio",
                          [figspec.observed("empirical sup", x, ratios[None]),
                           figspec.line("held-fixed constant", x, info["constant"], "bound")], xscale="linear")),
        arrays={"residual_m_sweep": cal_res, "noise_m_sweep": cal_eps},
    )


def _step_points(ctx: Context, stream: str, R: int, *, k: int, d: int, m: int, ell: int, distances, covariance="identity",
                 p=None):
    """One Phase-1 iteration (fedmd with T = 1) from anchors at the given distances of their own centre."""
    mod = model(ctx, stream, R, k=k, d=d, p=p, covariance=covariance)
    gen = ctx.generator(stream + "/run")
    labels = mod.labels(len(distances), gen)
    theta = _around(mod, labels, distances, gen)
    cfg = FedMDConfig(m=m, ell=ell, T=1, eps=EPS)
    return mod, theta, labels, fedmd(mod, theta, labels, cfg, gen)


def _prop2_ell_errors(ctx: Context, stream: str, R: int, *, k: int, d: int, ells, distances, T2: int = 30):
    """|sigma_hat^2 - ||Sigma_z e||^2| [P, R, H] of Proposition 2 in the limit m -> oo (xi_1 = 0): U the exact top-k
    subspace of E[Y] (the span of the Sigma_j e_j, which holds Sigma_z e exactly), A_ell of eq. (2) from the first ell
    of 2 ell_max fresh pairs of the anchor (nested over ``ells``: common random numbers), sigma_hat^2 by power
    iteration on A A^T (T2 steps, Rayleigh quotient, as ``fedmd``); and the anchors' delta [R, H], sigma and p_z [R, H]
    (the values (19) is evaluated at)."""
    mod = model(ctx, stream, R, k=k, d=d)
    gen = ctx.generator(stream + "/anchor")
    labels = mod.labels(len(distances), gen)
    theta = _around(mod, labels, distances, gen)
    res = cluster_residuals(mod, theta)  # [R, H, k, d]
    U = orth(res.transpose(-1, -2))  # [R, H, d, k]: the range of E[Y]
    own = torch.gather(res, 2, labels[..., None, None].expand(R, len(distances), 1, d))[:, :, 0]  # Sigma_z e [R, H, d]
    L = int(ells[-1])
    Xa, ya, _ = mod.points(labels, 2 * L, gen)
    pe = ((ya - (Xa @ theta[..., None])[..., 0])[..., None] * Xa) @ U  # [R, H, 2L, k]: U^T eps
    outer = torch.cumsum(pe[:, :, :L, :, None] * pe[:, :, L:, None, :], dim=2)
    v0 = randn(R, len(distances), k, generator=gen, dtype=ctx.dtype, device=ctx.torch_device)
    target = (own**2).sum(-1)
    err = [numpy((power_iteration(outer[:, :, ell - 1] / ell, v0, T2)[1] - target).abs()) for ell in ells]
    return np.stack(err), {"delta": numpy(_farthest(mod, theta)), "sigma": mod.sigma, "p": numpy(torch.gather(mod.p, 1, labels))}


@check("su2022.c11", "Proposition 2 (19): |sigma_hat^2 - ||Sigma e||^2| <~ (delta^2+sigma^2)(xi_1/p + xi_2), falling as ell^(-1/2)",
       "bound", "holds",
       no_control="a property of the estimate sigma_hat^2 (Proposition 2) against its stated shape, not a comparison of algorithms",
       statements=("Proposition 2",))
def c11_prop2_estimate(ctx: Context, *, theory: Bound = S.PROP_2_19, ells=(50, 150, 500, 1500), ms=(2000, 6000, 20000),
                       d: int = 10, k: int = 3, ell_fixed: int = 150, m_fixed: int = 20000,
                       distances=(0.2, 0.5, 1.0), margin: float = 2.0, exponent_ells=(30, 100, 300, 1000, 3000),
                       exponent_distances=(2.0, 2.0, 2.0), exponent_tol: float = 0.1) -> Result:
    """Claim 11, Proposition 2 eq. (19) for one Phase-1 step (``fedmd`` with T = 1) at anchors theta*_z + g u. Atoms:

    1. The printed statement with its hidden constant set to 1 (one-sided; ``unit_constant_verdict``) on the ell
       sweep (m = 2 10^4) and the m sweep (ell = 150).
    2. The exponent of ell, two-sided. The stated exponent is that of (19)'s ell-term in the regime the
       statement is about, ``verify.fit.leading_exponent`` with m -> oo first (xi_1/p -> 0; at finite m it is a
       floor in ell) and then ell -> oo with log N fixed (xi_2's leading sqrt((k/ell) log N): -1/2; at simulable ell
       its (k/ell) log^3 N term dominates, a proof artifact). Measured in that limit: U the exact top-k subspace of
       E[Y] (the m -> oo limit of orthogonal iteration, so Proposition 1's residual is 0), sigma_hat^2 from eq. (2)'s
       A_ell and power iteration exactly as Phase 1 runs them, ell over ``exponent_ells`` (30 to 3000, nested
       draws), the worst of the anchors ``exponent_distances`` per replicate in units of (19)'s ell-free factors.
       Why the two-sided test is legitimate (the rate is attained): A_ell - E A_ell is a mean of ell i.i.d. centred
       k x k matrices, so sigma_hat^2 - ||U^T Sigma_z e||^2 = b^T (A_ell - E A_ell) b + O(||A_ell - E A_ell||^2 / ||Sigma_z
       e||^2) (b the unit top direction of E A_ell) is a CLT mean with standard deviation s / sqrt(ell), s > 0:
       E|.| = Theta(ell^(-1/2)) from both sides (Lemma 6 gives the upper side). Its scale s grows with
       ||Sigma_z e||^2 + sigma^2 while (19) scales with delta^2 + sigma^2 >= it, so the worst anchor is a far one
       (g = 2, where ||e|| is comparable to delta); every distance shows the same exponent.
    3. Reported (``aside``): one constant C fitted on the ell sweep and held fixed (x margin) on the m sweep.

    p_z is fixed here (k = 3, uniform p: 1/3 at every point), so the 1/p of (19)'s xi_1/p term is not varied by this
    check. That term is Proposition 1's residual: the projection loses ||(I - U U^T) Sigma_z e||^2 of the target, and
    its 1/p_j is tested by c10's p_min sweep. A direct sweep here (k = 2, anchors in the smallest cluster, p_min 0.3 to
    0.08, m = 2 10^4, 8 replicates) measured slopes in p_min of -0.84 and -1.00 at ell = 1500 (where xi_2 still flattens
    (19)'s own slope on the grid to -0.71) and -1.05 to -1.23 at ell = 15000 (bound -0.95), with CIs of +-0.3 at 1 to
    5 s: too wide to decide a one-sided test at quick cost, so it is not part of the verdict."""
    R = ctx.reps(6, 24)
    sup, per_rep = [], []
    for name, m, ell in [(f"ell={e}", m_fixed, e) for e in ells] + [(f"m={m}", m, ell_fixed) for m in ms]:
        mod, theta, labels, tr = _step_points(ctx, name, R, k=k, d=d, m=m, ell=ell, distances=distances)
        dev = numpy((tr.sigma_hat[0] ** 2 - tr.residual[0] ** 2).abs())
        shape = np.asarray(theory(delta=numpy(_farthest(mod, theta)), sigma=mod.sigma, d=d, m=m, N=2 * m, k=k, ell=ell,
                                  p=numpy(torch.gather(mod.p, 1, labels))), dtype=float)
        sup.append(float((dev / shape).max()))
        per_rep.append((dev / shape).reshape(R, -1).max(1))
    sup = np.asarray(sup)
    n_cal = len(ells)
    v_unit, info_unit = unit_constant_verdict(ctx, np.stack(per_rep, 1), theory)
    # the ell exponent at m -> oo: the worst anchor per replicate in units of (19)'s ell-free factors (its value at the
    # first ell and m_fixed: any ell-free normalisation leaves the slope unchanged)
    R_ell = ctx.reps(64, 256)
    e_ells = np.asarray(exponent_ells)
    err, at = _prop2_ell_errors(ctx, "ell-exponent", R_ell, k=k, d=d, ells=e_ells, distances=exponent_distances)
    norm = np.asarray(theory(**at, d=d, k=k, m=m_fixed, N=2 * m_fixed, ell=int(e_ells[0])), dtype=float)
    worst = (err / norm).max(axis=2).T  # [R_ell, P]
    lead = leading_rate(theory, "ell", first=("m",))
    v_exp, fit_exp = rate_verdict(e_ells, worst, lead, param="ell", tol=exponent_tol,
                                  rng=ctx.numpy_rng("bootstrap/ell-exponent"))
    with aside():  # one constant fitted on the ell sweep and held on the m sweep: the shape, reported
        v, info = held_out_constant_verdict(sup[:n_cal], sup[:n_cal], np.ones(n_cal), sup[n_cal:], sup[n_cal:],
                                            np.ones(len(ms)), margin=margin)
    info["unit_constant"] = info_unit
    v = combine([v, v_exp] + ([v_unit] if v_unit is not None else []))
    names = [f"ell={e}" for e in ells] + [f"m={m}" for m in ms]
    x = np.arange(1, len(names) + 1)
    ci = fit_exp["slope_ci"]
    return result_for(
        ctx,
        claim(theory, r"\big|\|\Sigma_{z}(\theta^*_{z}-\theta_t)\|^2-\hat\sigma_t^2\big|\lesssim(\delta_t^2+\sigma^2)(\xi_1/p_{z}+\xi_2)"),
        v,
        observed={"grid": names, "sup_ratio_to_shape": sup, "replicates": R, "anchor_distances": list(distances),
                  "exponent_ells": e_ells, "worst_case_ell_sweep": worst.mean(0), "exponent_replicates": R_ell,
                  "exponent_anchor_distances": list(exponent_distances)},
        predicted={"exponent_ell": fit_exp["predicted_exponent"], "exponent_tolerance": exponent_tol,
                   "constant_fitted_on": "ell sweep", "constant": info["constant"], "margin": margin},
        fit={**info, "exponent_ell": fit_exp},
        explanation=verdict_words(
            v,
            f"(19) of Proposition 2 holds even with its hidden constant set to 1 (worst error/bound "
            f"{info_unit['worst_ratio']:.3g}: the bound exceeds the error by {1 / info_unit['worst_ratio']:.0f}x or more, "
            "since xi_2's (k/ell) log^3 N term dominates it at these ell). Its rate in ell is attained: with the subspace "
            f"exact (m -> oo) the worst error falls with slope {fit_exp['slope']:.2f} in ell (CI {ci[0]:.2f} to "
            f"{ci[1]:.2f}), the {fit_exp['predicted_exponent']:g} of xi_2's leading term sqrt((k/ell) log N), as a mean "
            f"of ell fresh samples must. One constant fitted on the ell sweep ({info['constant']:.3g}, x{margin:g}) also "
            f"covers the held-out m sweep (worst {info['worst_test_ratio_to_constant']:.2f} of it).",
            f"The worst error falls with slope {fit_exp['slope']:.2f} in ell (CI {ci[0]:.2f} to {ci[1]:.2f}) against the "
            f"stated {fit_exp['predicted_exponent']:g} (tolerance {exponent_tol:g}), or the m sweep exceeds the constant "
            f"fitted on the ell sweep (worst {info['worst_test_ratio_to_constant']:.2f} of it): (19)'s shape does not "
            "follow the estimation error.",
            f"The slope {fit_exp['slope']:.2f} in ell (CI {ci[0]:.2f} to {ci[1]:.2f}) is not resolved against "
            f"{fit_exp['predicted_exponent']:g} (tolerance {exponent_tol:g}), or the calibration gave no usable constant."),
        figure=figspec.figure(
            _exponent_panel(ctx, r"Worst $|\hat\sigma^2-\|\Sigma e\|^2|$ at $m\to\infty$ / $\ell$-free factors vs $\ell$",
                            r"$\ell$", "error", "measured worst", e_ells, worst, fit_exp, symbol=r"\ell"),
            figspec.panel(r"Sup of $|\hat\sigma^2-\|\Sigma e\|^2|$ / shape", "grid point #", "ratio",
                          [figspec.observed("empirical sup", x, sup[None]),
                           figspec.line("held-fixed constant", x, info["constant"], "bound")], xscale="linear")),
        arrays={"error_ell_exponent": err},
    )


def haar_block_smin(n: int, d: int, ell: int, rng: np.random.Generator) -> np.ndarray:
    """sigma_min(U^T Q) [n] for Haar Q in R^{d x ell} and U the first ell coordinates, without forming Q: Q = G
    (G^T G)^{-1/2} for Gaussian G [d, ell], so U^T Q = G_top (G_top^T G_top + W)^{-1/2} with G_top the first ell rows
    and W ~ Wishart(d - ell, I_ell) the Gram matrix of the rest (Bartlett: W = A A^T, A lower triangular with
    A_ii^2 ~ chi^2(d - ell - i), A_ij ~ N(0, 1) below the diagonal)."""
    G = rng.standard_normal((n, ell, ell))
    A = np.zeros((n, ell, ell))
    for i in range(ell):
        A[:, i, i] = np.sqrt(rng.chisquare(d - ell - i, size=n))
        A[:, i, :i] = rng.standard_normal((n, i))
    w, V = np.linalg.eigh(G.transpose(0, 2, 1) @ G + A @ A.transpose(0, 2, 1))
    return np.linalg.svd(G @ (V @ (V.transpose(0, 2, 1) / np.sqrt(w)[..., None])), compute_uv=False)[:, -1]


@check("su2022.c18", "Lemma 15: the eps-quantile of sigma_min(U^T Q) is >~ eps/(sqrt(ell)(sqrt(d)+log(1/eps))): its exponents",
       "bound", "holds", no_control="a property of the Haar distribution, not of an algorithm",
       statements=("Lemma 15",))
def c18_lemma15(ctx: Context, *, theory: Bound = S.LEMMA_15, ds=(80, 320, 1280, 5120), ells=(2, 4, 8, 16),
                eps_levels=(0.1, 0.03, 0.01, 0.003), tol: float = 0.15) -> Result:
    """Claim 18, tested on the exponents of the variables Lemma 15 names (a lower bound with a hidden constant):
    the empirical eps-quantile of sigma_min(U^T Q) (Haar Q in R^{d x ell}, U the first ell coordinates; 8 batches
    as replicates) swept in d (ell = 3, eps = 0.1, d from 80 to 5120: sqrt(d) dominates log(1/eps) as the lemma's
    asymptotics need), in ell (d = 5120, eps = 0.1) and in eps (d = 80, ell = 3, toward 0). The predicted exponent is
    the bound's own log-log slope on each grid. d and ell grow: the quantile's exponent must be >= the bound's
    minus tol (lower bound); eps -> 0: the quantile must not fall faster than the bound (exponent <= the bound's +
    tol). Random-matrix theory (Edelman) makes the quantile eps/sqrt(ell d) up to constants, so the exponents are
    attained in d and ell asymptotically; the bound's extra log(1/eps) makes it loose in eps. tol = 0.15: at these
    sizes the quantile's local exponents still differ from their limits by up to about 0.07 (small ell: -0.55 for
    the limit -0.5; d: the ratio to the bound falls toward its limit as sqrt(d) outgrows log(1/eps))."""
    rng = ctx.numpy_rng("haar")
    n, B = ctx.pick(8000, 32000), 8
    sweeps = {"d": [(d, 3, 0.1) for d in ds], "ell": [(ds[-1], e, 0.1) for e in ells],
              "eps": [(ds[0], 3, e) for e in eps_levels]}
    parts, fits, rows = [], {}, []
    for name, pts in sweeps.items():
        Y, x = [], []
        for d, ell, e in pts:
            s = haar_block_smin(n * (2 if name == "eps" else 1), int(d), int(ell), rng)
            Y.append(np.quantile(s.reshape(B, -1), e, axis=1))
            x.append({"d": d, "ell": ell, "eps": e}[name])
            rows.append({"sweep": name, "d": d, "ell": ell, "eps": e, "quantile": float(np.quantile(s, e)),
                         "bound_shape": float(theory(eps=e, ell=ell, d=d))})
        fixed = {"d": pts[0][0], "ell": pts[0][1], "eps": pts[0][2]}
        fixed.pop(name)
        v, f = exponent_verdict(ctx, x, np.stack(Y, 1), theory, param=name, values=fixed, tol=tol, tight=False,
                                toward_zero=name == "eps")
        parts.append(v)
        fits[name] = f
    v = combine(parts)
    quant = np.array([r["quantile"] for r in rows])
    shape = np.array([r["bound_shape"] for r in rows])
    x = np.arange(1, len(rows) + 1)
    txt = "; ".join(f"{k}: {f['slope']:.3f} (CI {f['slope_ci'][0]:.3f} to {f['slope_ci'][1]:.3f}) against {f['predicted_exponent']:.3f}"
                    for k, f in fits.items())
    return result_for(
        ctx,
        claim(theory, r"\sigma_{\min}(U^\top Q)\gtrsim\frac{\epsilon}{\sqrt{\ell}(\sqrt d+\log(1/\epsilon))}\ \text{w.p.}\ 1-O(\epsilon)"),
        v,
        observed={"rows": rows, "samples_per_point": n, "exponents": {k: {"slope": f["slope"], "ci": f["slope_ci"]}
                                                                      for k, f in fits.items()}},
        predicted={"exponents": {k: f["predicted_exponent"] for k, f in fits.items()}, "exponent_tolerance": tol},
        fit=fits,
        explanation=verdict_words(
            v,
            f"The eps-quantile of sigma_min(U^T Q) follows the bound's exponents ({txt}): a Haar start is well aligned "
            "with any fixed subspace except with probability O(eps); in eps the bound is loose (its log(1/eps)).",
            f"An exponent of the eps-quantile breaks the bound ({txt}).",
            f"The exponent intervals do not decide ({txt})."),
        figure=figspec.figure(figspec.panel(
            r"$\epsilon$-quantile of $\sigma_{\min}(U^\top Q)$ over the bound's shape", "configuration #", "ratio",
            [figspec.observed("quantile / shape", x, (quant / shape)[None])], xscale="linear")),
    )


@check("su2022.c19", "Lemma 14: ||sum_i (a_i b_i^T - E)|| grows as sqrt(n d) (truncated matrix Bernstein)", "rate", "holds",
       no_control="a concentration property of a sum of random rank-one matrices (Lemma 14), not of an algorithm",
       statements=("Lemma 14",))
def c19_lemma14(ctx: Context, *, theory_n: Bound = power_law("n", 0.5, "upper", "leading term sqrt(n d log(1/delta))"),
                theory_d: Bound = power_law("d", 1.0, "upper", "d log^3(n/delta) term"), ns=(100, 400, 1600, 6400),
                ds=(5, 10, 20, 40), n_fixed: int = 1600, d_fixed: int = 10, tol: float = 0.1) -> Result:
    """Claim 19: a_i, b_i = eps-vectors of two points of one Phase-1 client, normalised by sqrt(E r^2)
    (conditionally independent given the label, E16). The bound's exponents are 1/2 in n (leading term)
    and at most 1 in d; its log^3 term dominates at any simulable n, so the exponents are what is testable.
    Also reported: the 1 - delta quantile of the norm at delta = 1e-3."""
    R = ctx.reps(40, 160)

    def norms(d: int, nlist, stream: str) -> np.ndarray:
        mod = model(ctx, stream, R, d=d)
        gen = ctx.generator(stream + "/pairs")
        theta = torch.zeros(R, 1, d, dtype=ctx.dtype, device=ctx.torch_device)
        X, y, _ = mod.points(mod.labels(int(nlist[-1]), gen), 2, gen)
        res = cluster_residuals(mod, theta)[:, 0]  # [R, k, d]
        scale2 = (mod.p * ((res**2).sum(-1) + mod.sigma**2)).sum(-1)  # E r^2 (Sigma = I)
        E = expected_moment(mod, theta)[:, 0] / scale2[:, None, None]
        Ysum = nested_residual_moments(X[:, :, 0], y[:, :, 0], X[:, :, 1], y[:, :, 1], theta, nlist)[:, :, 0]
        return np.stack([_opnorm(Ysum[i] * nlist[i] / scale2[:, None, None] - nlist[i] * E) for i in range(len(nlist))], axis=1)

    ns, ds = np.asarray(ns), np.asarray(ds)
    Yn = norms(d_fixed, ns, "n-sweep")
    Yd = np.concatenate([norms(int(d), [n_fixed], f"d={d}") for d in ds], axis=1)
    rng = ctx.numpy_rng("bootstrap")
    v_n, fit_n = rate_verdict(ns, Yn, theory_n, param="n", tol=tol, rng=rng)
    v_d, fit_d = rate_verdict(ds, Yd, theory_d, param="d", tol=tol, rng=rng)
    verdict = combine([v_n, v_d])
    fig_rng = ctx.numpy_rng("figure")
    bound_shape = np.array([float(S.LEMMA_14(n=v, d=d_fixed, fail_prob=1e-3)) for v in ns])
    return result_for(
        ctx,
        claim(S.LEMMA_14, r"\Big\|\sum_{i=1}^n(a_ib_i^\top-\mathbb{E})\Big\|\le C\big(\sqrt{nd\log(1/\delta)}+d\log^3(n/\delta)\big)"),
        verdict,
        observed={"n": ns, "norm_mean_n": Yn.mean(0), "norm_quantile_0.999_n": np.quantile(Yn, 0.999, axis=0),
                  "d": ds, "norm_mean_d": Yd.mean(0), "replicates": R},
        predicted={"bound_shape_at_delta_1e-3": bound_shape, "fitted_constant_at_delta_1e-3": float((Yn.max(0) / bound_shape).max())},
        fit={"n": fit_n, "d": fit_d},
        explanation=verdict_words(
            verdict,
            f"The deviation grows with slope {fit_n['slope']:.2f} in n (CI {fit_n['slope_ci'][0]:.2f} to "
            f"{fit_n['slope_ci'][1]:.2f}) and {fit_d['slope']:.2f} in d, within the bound's exponents; the bound itself "
            f"is loose by a factor {1 / float((Yn.max(0) / bound_shape).max()):.0f} here because of its log^3 term.",
            f"The slopes {fit_n['slope']:.2f} (n) or {fit_d['slope']:.2f} (d) exceed the bound's exponents.",
            f"The slopes {fit_n['slope']:.2f} (n) and {fit_d['slope']:.2f} (d) are not resolved."),
        figure=figspec.figure(
            figspec.panel(r"$\|\sum(a_ib_i^\top-\mathbb{E})\|$ vs $n$", "n", "norm",
                          [figspec.observed("measured", ns, Yn, rng=fig_rng),
                           figspec.line(r"$\propto\sqrt{n}$", ns, Yn.mean(0)[0] * np.sqrt(ns / ns[0]), "bound")]),
            figspec.panel(rf"vs $d$ ($n={n_fixed}$)", "d", "norm",
                          [figspec.observed("measured", ds, Yd, rng=fig_rng),
                           figspec.line(r"$\propto d$", ds, Yd.mean(0)[0] * ds / ds[0], "bound")])),
        arrays={"norm_n": Yn, "norm_d": Yd},
    )
