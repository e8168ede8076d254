"""allouah2025 x13: Theorem 4.2 (2)'s O(1/sqrt(T)) in the regime where its noise term leads.

Our reading: docs/papers/allouah2025.md §4.3 (Theorem 4.2 (2), gamma = min{1/(24L), sqrt(3 L_0)/(16 sigma_bar
sqrt(L T))}).
Harness: the quadratic workers of verify/problems/allouah2025_quadratic.py (identical datasets: G_cov = 0, L = 1) and
CafCor (verify/algorithms/cafcor.py), one batched run with one step size per horizon.
"""
from __future__ import annotations

import math

import numpy as np
import torch

from analytic.bounds import Bound
from analytic.papers import allouah2025 as A
from verify import figspec
from verify.algorithms.cafcor import cafcor
from verify.engine import Context
from verify.fit import apply_assumptions, rate_verdict
from verify.problems.allouah2025_quadratic import WorkerPoints, identical_workers
from verify.registry import check, register_paper, result_for
from verify.result import Assumption, Claim, Result
from verify.strength import aside

register_paper(A.PAPER)


@check("allouah2025.x13", "Theorem 4.2 (2): the average squared gradient decays like 1/sqrt(T) where the noise term "
       "leads (not like 1/T)", "rate", "holds", no_control=(
           "a rate of the theorem's own step-size rule; that the harness resolves 1/sqrt(T) from 1/T is shown by "
           "planting a 1/T theory, which must come out violated (tests/verify/test_allouah2025_rate.py)"),
       statements=("Theorem 4.2",))
def x13_nonconvex_rate(ctx: Context, *, theory: Bound = A.THM_4_2_NC, Ts=(100, 400, 1600), n: int = 5, d: int = 1,
                       s_ind: float = 0.45, start: float = 1.0, tol: float = 0.1) -> Result:
    """Theorem 4.2 (2) (paper line 180): with gamma = min{1/(24L), sqrt(3 L_0)/(16 sigma_bar sqrt(L T))} and
    beta = 1 - 24 L gamma, E||grad L_H(theta_hat)||^2 <= 480 kappa G_cov^2 + 1247.08 sigma_bar sqrt(L L_0/T) +
    270 L L_0/T, i.e. O(1/sqrt(T)) (section 4.2). x03 cannot tell this from O(1/T): its grid (T <= 800, sigma_bar^2 =
    0.54) keeps gamma at its cap 1/(24L), where the bound's 270 L L_0/T term leads and the iterates' average decays
    like 1/T. Here the noise term leads over the whole grid: f = 0 (kappa = 0), identical quadratic workers (L = 1,
    G_cov = 0), full batches (sigma_b = 0), DP noise sigma_ind = ``s_ind`` with sigma_cor = sigma_ind (the pairwise
    terms cancel among honest workers), so sigma_bar^2 = d sigma_ind^2/n, and theta_0 = theta_* + ``start``
    (L_0 = start^2/2). At the defaults sigma_bar = 0.201, so gamma_T = 0.380/sqrt(T) < 1/24 for T >= 84, the bound's
    sqrt term is 13 times its 1/T term at T = 100, and gamma_T T >= 3.8 (the iterates leave theta_0). On a quadratic
    both parts of the average, e_0^2/(2 gamma T) and about gamma sigma_bar^2/2, scale as 1/sqrt(T) when gamma does.
    Verdict: rate_verdict of the measured average squared gradient against the bound in T (its least-squares slope on
    the grid, about -0.52) with tolerance ``tol``; a planted 1/T theory must come out violated."""
    Ts = np.asarray(Ts, dtype=int)
    G, R = Ts.size, ctx.reps(16, 48)
    m = 4
    one = identical_workers(1, n, m, d, spread=0.05, generator=ctx.generator("x13/data"), dtype=ctx.dtype,
                            device=ctx.torch_device)
    prob = WorkerPoints(one.points.expand(G * R, -1, -1, -1).contiguous())
    L, L0 = 1.0, start**2 * d / 2.0
    s_bar2 = d * s_ind**2 / n  # Theorem 4.2's sigma_bar^2 at f = 0 (kappa = 0) and sigma_b = 0
    gam = np.minimum(1.0 / (24 * L), math.sqrt(3 * L0) / (16 * np.sqrt(s_bar2 * L * Ts)))
    g_rep = torch.as_tensor(np.repeat(gam, R), dtype=ctx.dtype, device=ctx.torch_device)
    b_rep = 1.0 - 24 * L * g_rep
    C = 1e3  # clipping off: the quadratic's gradients stay far below it (checked)
    run = cafcor(prob, prob.optimum.clone() + start, f=0, T=int(Ts.max()), gamma=g_rep, beta=b_rep, C=C,
                 sigma_cor=s_ind, sigma_ind=s_ind, batch_size=m, generator=ctx.generator("x13/run"), attack="alie",
                 checkpoints=[int(T) for T in Ts], record_gradient_norms=True)
    gsum = run.grad_norm2_sum.cpu().numpy()  # [G, G R]: row g is sum_{t < T_g}
    Y = np.stack([gsum[g, g * R:(g + 1) * R] / Ts[g] for g in range(G)], 1)  # (1/T) sum_{t<T} ||grad L_H(theta_t)||^2
    at = {"n": n, "f": 0, "G_cov2": 0.0, "L": L, "L_0": L0, "sigma_bar2": s_bar2}
    verdict, info = rate_verdict(Ts, Y, theory, param="T", values=at, tol=tol, rng=ctx.numpy_rng("bootstrap"))
    bound = np.asarray(theory(**at, T=Ts.astype(float)), dtype=float)
    sqrt_term = 1247.0761 * math.sqrt(s_bar2 * L * L0) / np.sqrt(Ts)
    lin_term = 270 * L * L0 / Ts
    with aside():  # the same data against a 1/T theory: what x03's grid could not exclude
        from verify.fit import power_law
        v_lin, i_lin = rate_verdict(Ts, Y, power_law("T", -1.0, "upper", "O(1/T)"), param="T", tol=tol,
                                    rng=ctx.numpy_rng("bootstrap-1/T"))
    assumptions = [
        Assumption("the noise term leads: gamma_T below its cap 1/(24L) at every T", bool(np.all(gam < 1 / (24 * L))),
                   float(gam.max()), "exact", f"gamma_T = {', '.join(f'{g:.4f}' for g in gam)}"),
        Assumption("sqrt term above the 1/T term of the bound at every T", bool(np.all(sqrt_term > lin_term)),
                   float((sqrt_term / lin_term).min()), "exact", "smallest ratio of the two terms"),
        Assumption("clipping never active along the run", float(run.clipped_fraction.max()) == 0.0,
                   float(run.max_grad_norm.max()), "exact", f"largest honest gradient norm (C = {C:g})")]
    verdict = apply_assumptions(verdict, assumptions)
    mean = Y.mean(0)
    return result_for(
        ctx, Claim(theory.statement + " Tested for its rate in T where the sqrt(T) term leads.",
                   r"\frac1T\sum_{t<T}\mathbb{E}\|\nabla\mathcal{L}_{\mathcal{H}}(\theta_t)\|^2=O(T^{-1/2})",
                   theory.source, theory.typst),
        verdict,
        observed={"T": Ts, "avg_squared_gradient": mean, "slope": info["slope"], "slope_ci": info["slope_ci"],
                  "replicates": R, "gamma": gam, "clipped_fraction": float(run.clipped_fraction.max())},
        predicted={"bound": bound, "sqrt_term": sqrt_term, "one_over_T_term": lin_term,
                   "exponent": info["predicted_exponent"], "tolerance": tol, "sigma_bar2": s_bar2, "L_0": L0},
        fit={"rate": info, "one_over_T_theory": i_lin, "one_over_T_verdict": v_lin.value},
        explanation=(f"With the theorem's step gamma_T = {gam[0]:.4f}..{gam[-1]:.4f} (below its cap) the average "
                     f"squared gradient went {', '.join(f'{v:.3g}' for v in mean)} at T = "
                     f"{', '.join(str(int(T)) for T in Ts)}: slope {info['slope']:.2f} (CI {info['slope_ci'][0]:.2f} "
                     f"to {info['slope_ci'][1]:.2f}) against the bound's {info['predicted_exponent']:.2f} + {tol:g}; a "
                     f"1/T theory on the same data: {v_lin.value}. The bound sits {float((bound / mean).min()):.0f} to "
                     f"{float((bound / mean).max()):.0f} times above the measurement."),
        assumptions=assumptions,
        figure=figspec.figure(figspec.panel(
            f"Theorem 4.2 (2) where the noise term leads (sigma_bar^2 = {s_bar2:.3g}, f = 0)", "T (horizon)",
            "(1/T) sum ||grad L_H(theta_t)||^2",
            [figspec.observed("CafCor", Ts, Y, rng=ctx.numpy_rng("figure")),
             figspec.line("Theorem 4.2 (2)", Ts, bound, "bound"),
             figspec.line("1/T through the first point", Ts, mean[0] * Ts[0] / Ts, "reference")])),
        arrays={"avg_squared_gradient": Y},
    )
