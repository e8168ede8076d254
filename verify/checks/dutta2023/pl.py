"""dutta2023 checks x02-x06: the proof's inequalities (13a)-(13c) and its bound on E||V_x||^2, on the
non-convex PL problem of c10/c11; the claim that PL makes x* unique (line 137); the paper's metric for problem (12)
(Fig. 2's filter comparison); Fig. 1's CE against the non-faulty baseline.

Theorem 1 itself on a non-convex PL problem is dutta2023.c10 (exact gradients) and c11 (noisy gradients): both run
phi(r) = r^2 + 1.5 sin^2 r (non-convex: phi''(pi/2) = -1; PL with mu/L = 0.151 exactly) through its non-convex shell.
This module tests what those checks cannot see from the gap alone: the proof's intermediate inequalities.

The non-convex PL problem (verify.checks.dutta2023.theorem.nonconvex_instance): q^i(x) = phi(||x - x°||) for every agent, L = 5 and
mu = 0.7544 exact, 2f-redundancy by construction. The proof's inequalities (13) are statements about the honest local
iterates of one round given the server model x_k; at k = 0 the model x_0 is deterministic and arbitrary (Theorem 1 allows
any start), so testing them at deterministic points x_0 = x° + rho v, over radii rho that cross the non-convex shell,
tests the printed inequalities exactly at k = 0 (their expectations are then over the round's gradient noise only).
"""
from __future__ import annotations

import math

import numpy as np
import torch

from analytic.bounds import Bound
from analytic.papers import dutta2023 as D
from verify import figspec
from verify.aggregators.ce import ce_keep, comparative_elimination
from verify.checks.dutta2023.common import ATTACK_NAMES, N_AGENTS, Config, composite_instance, simulate
from verify.checks.dutta2023.theorem import NC_KAPPA, NC_SHELL, nonconvex_instance
from verify.engine import Context
from verify.fit import (
    apply_assumptions,
    bound_verdict,
    combine,
    controlled,
    deterministic_verdict,
    exact_zero_verdict,
    family_z,
    mc_bound_verdict,
    median_verdict,
    paired_comparison_verdict,
)
from verify.normal_draws import randn
from verify.problems import dutta2023_problems as P
from verify.problems.least_squares import RegressionAgents
from verify.registry import check, register_paper, result_for
from verify.result import Assumption, Claim, Result, erratum
from verify.strength import aside

register_paper(D.PAPER)


def _unit(gen: torch.Generator, n: int, d: int, ctx: Context) -> torch.Tensor:
    v = randn(n, d, generator=gen, dtype=ctx.dtype, device=ctx.torch_device)
    return v / torch.linalg.vector_norm(v, dim=-1, keepdim=True)


def _local_round(problem, xbar: torch.Tensor, *, alpha: float, T: int, sigma: float, R: int, gen: torch.Generator):
    """Honest local SGD of one round (Algorithm 1, line 6) from the server models ``xbar [P, d]``, R replicates each:
    returns the local iterates x^i_{k,t} for t = 1..T as a list of ``[R, P, H, d]`` tensors (noise N1, E||noise||^2 =
    sigma^2)."""
    Pn, d = xbar.shape
    H = problem.n_clients
    X = xbar[None, :, None, :].expand(R, Pn, H, d).reshape(R * Pn, H, d)
    out = []
    std = P.coordinate_std(sigma, d)
    for _ in range(T):
        g = problem.grad(X) + std * randn(X.shape, generator=gen, dtype=X.dtype, device=X.device)
        X = X - alpha * g
        out.append(X.reshape(R, Pn, H, d))
    return out


# =========================================================================================================
# x02: the inequalities (13a)-(13c)
# =========================================================================================================
@check("dutta2023.x02", "Proof of Theorem 1, eq. (13a)-(13c): the honest local iterates stay within the printed distances "
       "of x*_H and x_k, on a non-convex PL problem", "bound", "holds", statements=("eq. (13)",))
def x02_lemma13(ctx: Context, *, bound_a: Bound = D.LEMMA_13A, bound_b: Bound = D.LEMMA_13B, bound_c: Bound = D.LEMMA_13C,
                radii=(0.0, 0.3, 0.8, 1.2, 1.5, 1.8, 2.2, 3.0), Ts=(1, 3), sigma: float = 1.0, f: int = 2,
                kappa: float = NC_KAPPA, control_spread: float = 3.0) -> Result:
    """The three inequalities (13) of Appendix VI-A ("We skip their proofs due to space limitations"), for i in H and
    t + 1 <= T, at the printed step alpha = mu/(72 L^2 T) (eq. (8)):

        (13a) E||x^i_{k,t+1} - x*_H||   <= (2/mu) E||grad q^H(x_k)|| + 2 sigma/L,
        (13b) E||x^i_{k,t+1} - x_k||    <= (2 L T alpha/mu) E||grad q^H(x_k)|| + 3 sigma T alpha,
        (13c) E||x^i_{k,t+1} - x*_H||^2 <= (2/mu^2) E||grad q^H(x_k)||^2 + 2 sigma^2/L^2,

    on phi(r) = r^2 + 1.5 sin^2 r (q^i(x) = phi(||x - x°||), L = 5, mu = 0.7544 exact), noise N1 with sigma = 1, at
    k = 0 from deterministic x_0 = x° + rho v with rho in ``radii`` (crossing the non-convex shell r in (1.15, 1.99)),
    T in {1, 3}. On this isotropic problem both sides depend on x_k through its radius only, and the right-hand sides are
    linear in ||grad q^H(x_k)|| (or its square), so the conditional inequality at every radius gives (13) at every round
    by the tower property: the radii grid stands for every k. Each replicate's value is the mean over the |H| = N - f honest agents (identically distributed here);
    bound_verdict over R replicates at every (rho, T, t). The unstated squared drift bound (13d) of docs/papers/dutta2023.md §4.3 is reported
    beside them (not part of the claim: the paper does not print it).

    Expected holds, from an argument: (5) gives the error bound ||grad q^H(x)|| >= mu ||x - x*||, 2f-redundancy gives
    grad q^i(x*) = 0, so ||grad q^i(x_k)|| <= (L/mu) ||grad q^H(x_k)||, and alpha T L <= 1/72 keeps the drift within a
    factor (1 + alpha L)^T of T alpha (L/mu) ||grad q^H|| + T alpha sigma: (13b) with room, and (13a), (13c) by the
    triangle inequality. Loose by construction: 2 sigma/L does not shrink with alpha.

    Control: the property the argument uses is a common minimiser (2f-redundancy). The same harness on agents
    whose minimisers differ, z_i = x° +- ``control_spread`` u_i in symmetric pairs (so grad q^H(x°) = 0 still), from
    x_0 = x°, must violate (13b): there the right-hand side is 3 sigma T alpha while every agent drifts by about
    T alpha phi'(3) = 5.6 T alpha."""
    R = ctx.reps(200, 1000)
    prob, x_opt, L, mu = nonconvex_instance(ctx, kappa=kappa)
    honest = prob.select(slice(f, None))
    d, H = prob.dim, honest.n_clients
    radii = np.asarray(radii, dtype=float)
    v = _unit(ctx.generator("points"), len(radii), d, ctx)
    xbar = x_opt[None] + torch.as_tensor(radii, dtype=ctx.dtype, device=ctx.torch_device)[:, None] * v
    grad_H = honest.grad(xbar[:, None, :].expand(-1, H, -1)).mean(1)
    g1 = torch.linalg.vector_norm(grad_H, dim=-1).cpu().numpy()
    cols = {k: [] for k in ("a", "b", "c", "d")}
    at = {k: [] for k in ("g1", "g2", "T", "alpha", "rho", "t")}
    for T in Ts:
        alpha = mu / (72 * L**2 * T)
        its = _local_round(honest, xbar, alpha=alpha, T=T, sigma=sigma, R=R, gen=ctx.generator(f"noise/T={T}"))
        for t, X in enumerate(its, start=1):
            to_star = torch.linalg.vector_norm(X - x_opt, dim=-1)  # [R, P, H]
            to_bar = torch.linalg.vector_norm(X - xbar[None, :, None, :], dim=-1)
            cols["a"].append(to_star.mean(-1).cpu().numpy())
            cols["b"].append(to_bar.mean(-1).cpu().numpy())
            cols["c"].append(to_star.pow(2).mean(-1).cpu().numpy())
            cols["d"].append(to_bar.pow(2).mean(-1).cpu().numpy())
            for key, val in (("g1", g1), ("g2", g1**2), ("T", np.full_like(g1, T)), ("alpha", np.full_like(g1, alpha)),
                             ("rho", radii), ("t", np.full_like(g1, t))):
                at[key].append(val)
    Y = {k: np.concatenate(v, axis=1) for k, v in cols.items()}  # [R, P * sum(Ts)]
    vals = {k: np.concatenate(v) for k, v in at.items()}
    vals.update(mu=mu, L=L, sigma=sigma)
    z = family_z(4 * Y["a"].shape[1])  # every point of (13a)-(13c) and the control's, simultaneously
    per, infos = {}, {}
    for key, b in (("a", bound_a), ("b", bound_b), ("c", bound_c), ("d", D.LEMMA_13D)):
        est, se = Y[key].mean(0), Y[key].std(0, ddof=1) / math.sqrt(R)
        if key == "d":  # (13d) is our reading (docs/papers/dutta2023.md) reconstruction, not a printed statement
            with aside():
                v_d, info_d = mc_bound_verdict(est, se, b, z, values=vals)
        else:
            per[key], infos[key] = mc_bound_verdict(est, se, b, z, values=vals)
        (info_d if key == "d" else infos[key]).update(mean=est, bound=np.asarray(b(**vals), dtype=float) * np.ones_like(est))
        (info_d if key == "d" else infos[key])["worst_ratio"] = float(np.max(est / (info_d if key == "d" else infos[key])["bound"]))
    claim_v = combine(per.values())

    # control: agents with different minimisers (no common stationary point), from x_0 = x°, where grad q^H = 0
    Tc = max(Ts)
    u = _unit(ctx.generator("control"), H // 2, d, ctx)
    zc = torch.cat([x_opt + control_spread * u, x_opt - control_spread * u])
    spread = P.IsotropicAgents(honest.G[:, :zc.shape[0]], zc[None], torch.zeros(1, zc.shape[0], dtype=ctx.dtype,
                                                                                  device=ctx.torch_device), honest.link)
    a_c = mu / (72 * L**2 * Tc)
    X_c = _local_round(spread, x_opt[None], alpha=a_c, T=Tc, sigma=sigma, R=R, gen=ctx.generator("noise/control"))
    g1_c = float(torch.linalg.vector_norm(spread.grad(x_opt[None, None].expand(1, zc.shape[0], d)).mean(1)))
    Yc = np.concatenate([torch.linalg.vector_norm(X - x_opt, dim=-1).mean(-1).cpu().numpy() for X in X_c], axis=1)
    with aside():  # the control is not the claim
        v_ctrl, info_ctrl = mc_bound_verdict(Yc.mean(0), Yc.std(0, ddof=1) / math.sqrt(R), bound_b, z,
                                             values={"g1": g1_c, "mu": mu, "L": L, "sigma": sigma, "T": Tc, "alpha": a_c})
        info_ctrl["worst_ratio"] = float(np.max(Yc.mean(0) / float(bound_b(g1=g1_c, mu=mu, L=L, sigma=sigma, T=Tc,
                                                                            alpha=a_c))))
    control_field = {"what": f"(13b) on agents without a common minimiser (z_i = x° +- {control_spread:g} u_i in symmetric "
                             f"pairs, grad q^H(x°) = {g1_c:.1e}), from x_0 = x°, T = {Tc}, same step and noise",
                     "verdict": v_ctrl.value,
                     "detail": f"E||x^i_(0,t) - x_0|| / bound = {info_ctrl['worst_ratio']:.3g} at worst over t = 1..{Tc}"}
    assumptions = [
        Assumption("non-convex PL problem: phi''(pi/2) = 2 - 2 kappa < 0, mu and L exact", 2 - 2 * kappa < 0, mu, "exact",
                   f"phi = r^2 + {kappa:g} sin^2 r: mu = {mu:.5f}, L = {L:g}"),
        Assumption("the points cross the non-convex shell", bool(((radii > NC_SHELL[0]) & (radii < NC_SHELL[1])).any()),
                   float(radii.max()), "exact", f"radii {', '.join(f'{r:g}' for r in radii)}; shell ({NC_SHELL[0]:.3f}, "
                   f"{NC_SHELL[1]:.3f})"),
        Assumption("step size eq. (8): alpha = mu/(72 L^2 T)", True, mu / (72 * L**2), "exact", "T in " + str(list(Ts))),
        Assumption("2f-redundancy (a common minimiser x°)", True, 0.0, "exact", "every agent's minimiser is x°"),
        Assumption("noise N1: unbiased, E||noise||^2 = sigma^2 exactly", True, sigma, "exact", "planted")]
    verdict = apply_assumptions(controlled(claim_v, v_ctrl), assumptions)
    ratios = {k: float(infos[k]["worst_ratio"]) for k in infos}
    ratios["d (unstated)"] = float(info_d["worst_ratio"])
    n_pts = Y["a"].shape[1]
    return result_for(
        ctx,
        Claim("Appendix VI-A, eq. (13) (line 175): 'Using the local SGD update for i in H and Assumptions 1-(3) we obtain the relations "
              "below. We skip their proofs due to space limitations.' (13a) E||x^i_{k,t+1} - x*_H|| <= (2/mu) "
              "E||grad q^H(x_k)|| + 2 sigma/L; (13b) E||x^i_{k,t+1} - x_k|| <= (2 L T alpha_k/mu) E||grad q^H(x_k)|| + "
              "3 sigma T alpha_k; (13c) E||x^i_{k,t+1} - x*_H||^2 <= (2/mu^2) E||grad q^H(x_k)||^2 + 2 sigma^2/L^2. "
              "Tested at k = 0 from deterministic x_0 on a non-convex PL problem, at the step (8).",
              r"\mathbb E\|x^i_{k,t+1}-x^*\|\le\tfrac2\mu\mathbb E\|\nabla q^{\mathcal H}\|+\tfrac{2\sigma}L,\ "
              r"\mathbb E\|x^i_{k,t+1}-\bar x_k\|\le\tfrac{2L\mathcal T\alpha}\mu\mathbb E\|\nabla q^{\mathcal H}\|+3\sigma\mathcal T\alpha,\ "
              r"\mathbb E\|x^i_{k,t+1}-x^*\|^2\le\tfrac2{\mu^2}\mathbb E\|\nabla q^{\mathcal H}\|^2+\tfrac{2\sigma^2}{L^2}",
              "dutta2023, Appendix VI-A (proof of Theorem 1), eq. (13)",
              "EE norm(x^i_(k,t+1) - x^*) <= 2/mu EE norm(nabla q^cal(H)) + (2 sigma)/L, ..."),
        verdict,
        observed={"radii": radii, "grad_norm_at_points": g1, "replicates": R, "honest_agents": H,
                  "worst_ratio_to_bound": ratios, "points": n_pts, "T": list(Ts), "sigma": sigma,
                  "mean_lhs": {k: infos[k]["mean"] for k in infos}},
        predicted={"bound": {k: infos[k]["bound"] for k in infos}, "mu": mu, "L": L},
        fit={"13a": per["a"].value, "13b": per["b"].value, "13c": per["c"].value, "13d_unstated": v_d.value,
             "claim_verdict": claim_v.value},
        control=control_field,
        explanation=(f"At {n_pts} (radius, T, local step) points, from radius 0 to {radii.max():g} across the non-convex "
                     f"shell, with {R} replicates of the gradient noise: the largest mean/bound ratio is {ratios['a']:.3g} for "
                     f"(13a), {ratios['b']:.3g} for (13b) and {ratios['c']:.3g} for (13c) (the unstated (13d): "
                     f"{ratios['d (unstated)']:.3g}). (13b) is the informative one; (13a) and (13c) carry the step-free "
                     f"noise terms 2 sigma/L and 2 sigma^2/L^2, which dwarf the local drift near x*. Control: without a common "
                     f"minimiser (13b) fails ({control_field['detail']}; {v_ctrl.value})."
                     if claim_v.passed else
                     f"The mean exceeds the bound: worst ratios (13a) {ratios['a']:.3g}, (13b) {ratios['b']:.3g}, "
                     f"(13c) {ratios['c']:.3g}."),
        assumptions=assumptions,
        figure=figspec.figure(figspec.panel(
            f"Worst replicate-mean over bound, per radius (T = {max(Ts)}, last local step)", "radius of $x_0$",
            "mean / bound",
            [figspec.line(f"({k})", radii, (infos[k]["mean"] / infos[k]["bound"])[-len(radii):], "observed")
             for k in ("a", "b", "c")] + [figspec.line("bound", radii, np.ones_like(radii), "bound")], "linear", "log")),
    )


# =========================================================================================================
# x03: the bound on E||V_x||^2
# =========================================================================================================
def mirror_farthest(honest: torch.Tensor, f: int, *, reference=None, eps: float = 1e-6, **_) -> torch.Tensor:
    """An omniscient attack on CE: every Byzantine agent sends the mirror image, through the server model x_k, of the
    farthest honest model shrunk by (1 - eps): b = x_k - (1 - eps)(y^{j*} - x_k). It is strictly closer to x_k than
    y^{j*}, so with f = 1 CE keeps it and drops y^{j*}: V_x = (2 - eps)(x_k - y^{j*})/|H|, the largest a kept vector can
    make it."""
    ref = reference if reference.dim() == 2 else reference.expand(honest.shape[0], -1)
    dist = torch.linalg.vector_norm(honest - ref[:, None], dim=-1)
    far = honest[torch.arange(honest.shape[0], device=honest.device), dist.argmax(1)]
    return (ref - (1 - eps) * (far - ref))[:, None, :].expand(-1, f, -1).clone()


@check("dutta2023.x03", "Proof of Theorem 1: the bound on E||V_x||^2 fails, since the farthest honest agent's drift is not "
       "one agent's (erratum)", "erratum", "violated", statements=("eq. (15)",))
def x03_vx_bound(ctx: Context, *, theory: Bound = D.VX_BOUND, repaired: Bound = D.VX_BOUND_REPAIRED, f: int = 1,
                 rounds: int = 8, sigma: float = 1.0, kappa: float = NC_KAPPA, eps: float = 1e-6) -> Result:
    """The display after (16) bounds the Byzantine perturbation of (15), V_x = (1/|H|)[sum_{B_k}(x^i_{k,T} - x_k) -
    sum_{H minus H_k}(x^i_{k,T} - x_k)], by (2|B_k|^2/|H|^2) E||x^j_{k,t} - x_k||^2 + ... and then, "by (13)", by
    (8 L^2 T^2 alpha^2/mu^2)(|B_k|^2/|H|^2) E||grad q^H(x_k)||^2 + 12 T^2 alpha^2 sigma^2 |B_k|^2/|H|^2. The index j is
    the farthest honest agent (CE keeps a Byzantine vector only inside the honest radius), a random index: (13), a bound
    for a fixed agent, does not bound E max_j ||x^j_{k,T} - x_k||^2.

    Witness (Theorem 1's hypotheses hold): the non-convex PL problem phi = r^2 + 1.5 sin^2 r in d = 1 (L = 5, mu = 0.7544),
    N = 50, f = 1 (condition (9): 1/49 <= mu/(3L) = 0.050), T = 1, the step (8), noise N1 with sigma = 1, x_0 = x*_H, and
    the omniscient attack :func:`mirror_farthest`. Algorithm 1 runs ``rounds`` rounds; in each, V_x = x_{k+1} - (mean of
    the honest models), from which the gradient term of the bound (per replicate) is subtracted; bound_verdict against
    12 T^2 alpha^2 sigma^2 |B_k|^2/|H|^2 (|B_k| = 1, checked). Second argument: at round 0 the exact value is
    (2 - eps)^2 alpha^2 sigma^2 E[max_{i<=49} Z_i^2]/|H|^2 (quadrature), 2.15 x the bound."""
    R = ctx.reps(4000, 20000)
    prob, x_opt, L, mu = nonconvex_instance(ctx, kappa=kappa, dim=1)
    H = N_AGENTS - f
    honest = prob.select(slice(f, None))
    T = 1
    alpha = mu / (72 * L**2 * T)
    gen = ctx.generator("noise")
    xbar = x_opt.expand(R, 1).clone()
    c_grad = float(theory(L=L, T=T, alpha=alpha, B_k=f, g2=1.0, mu=mu, H=H, sigma=0.0))
    Y, G2, kept, first = [], [], [], None
    for k in range(rounds):
        y = _local_round(honest, xbar, alpha=alpha, T=T, sigma=sigma, R=1, gen=gen)[-1][0]  # [R, H, 1]
        byz = mirror_farthest(y, f, reference=xbar, eps=eps)
        Yall = torch.cat([byz, y], dim=1)
        keep = ce_keep(Yall, f, xbar)
        kept.append(keep[:, :f].sum(1).cpu().numpy())
        new = comparative_elimination(Yall, f, reference=xbar)
        V = new - y.mean(1)
        g2 = honest.grad(xbar[:, None, :].expand(-1, H, -1)).mean(1).pow(2).sum(-1)
        Y.append((V.pow(2).sum(-1) - c_grad * g2).cpu().numpy())
        G2.append(g2.cpu().numpy())
        if first is None:
            first = V.pow(2).sum(-1).cpu().numpy()
        xbar = new
    Y = np.stack(Y, 1)
    kept = np.stack(kept, 1)
    noise_term = float(theory(L=L, T=T, alpha=alpha, B_k=f, g2=0.0, mu=mu, H=H, sigma=sigma))
    est, se = Y.mean(0), Y.std(0, ddof=1) / math.sqrt(R)
    z = family_z(rounds)
    verdict_raw, info = mc_bound_verdict(est, se, noise_term, z)
    rep_term = float(repaired(L=L, T=T, alpha=alpha, B_k=f, g2=0.0, mu=mu, H=H, sigma=sigma))
    with aside():
        v_rep, info_rep = mc_bound_verdict(est, se, rep_term, z)
    info.update(mean=est, ci_lo=est - z * se, ci_hi=est + z * se, worst_ratio=float(np.max(est / noise_term)))
    info_rep.update(mean=est, bound=np.full_like(est, rep_term))
    cert = D.vx_witness_certificate(H, eps)
    exact_r0 = float(cert["lhs_over_alpha2sigma2_H2"]) * alpha**2 * sigma**2 / H**2
    assumptions = [
        Assumption("condition (9): f/(N-f) <= mu/(3L)", D.condition_9(f, N_AGENTS, mu, L), mu / (3 * L), "exact",
                             f"f = {f}: {f / H:.4f} <= {mu / (3 * L):.4f}"),
        Assumption("step size eq. (8): alpha = mu/(72 L^2 T)", True, alpha, "exact", f"T = {T}"),
        Assumption("CE keeps every Byzantine vector (|B_k| = f, as the proof assumes)", bool((kept == f).all()),
                   float(kept.mean()), "exact", f"kept {int(kept.sum())} of {kept.size}"),
        Assumption("non-convex PL problem with a common minimiser (2f-redundancy), exact constants", True, mu, "exact",
                   f"phi = r^2 + {kappa:g} sin^2 r, d = 1: mu = {mu:.5f}, L = {L:g}")]
    verdict = apply_assumptions(verdict_raw, assumptions)
    r0 = float(first.mean())
    ratio = info["mean"] / noise_term
    finding = erratum(
        "The proof's bound on E||V_x||^2 applies (13), a bound for one fixed honest agent, to the farthest honest agent "
        "(a random index). With the noise of Assumption 3 the farthest agent drifts further than a fixed one, and an "
        f"omniscient attack makes E||V_x||^2 {ratio.max():.2f} x the printed bound inside Theorem 1's hypotheses.",
        paper_says=("Appendix VI-A, after (16) (line 216): 'E||V_x||^2 = E[||(1/|H|)(sum_{i in B_k}(x^i_{k,T} - x_k) - sum_{i in H "
                    "minus H_k}(x^i_{k,T} - x_k))||^2] <= (2|B_k|^2/|H|^2) E[||x^j_{k,t} - x_k||^2] + (2|B_k|/|H|^2) sum_{i in "
                    "H minus H_k} E[||x^i_{k,t} - x_k||^2] <=(13) (8 L^2 T^2 alpha_k^2/mu^2)(|B_k|^2/|H|^2) E[||grad q^H(x_k)||^2] "
                    "+ 12 T^2 alpha_k^2 sigma^2 |B_k|^2/|H|^2.'"),
        correction=("The first inequality holds with j the farthest honest agent; the second needs E max_{j in H} ||x^j_{k,T} "
                    "- x_k||^2, which (13) does not bound. Under Assumption 3 alone, max_j <= sum_j gives the bound with "
                    "|H| in place of |H|^2 (one factor |H| larger; on the witness it holds, mean/bound "
                    f"{float(np.max(info_rep['mean'] / np.asarray(info_rep['bound']))):.3f}); with Gaussian noise an O(log |H|) "
                    "factor suffices. The factor changes the Young step that follows (17LT alpha |B_k|/(6 mu |H|)), so the "
                    "proof's use of (9) must be redone; Theorem 1's conclusion itself is not refuted here (c10, c11 hold)."),
        witness=(f"d = 1, q^i(x) = phi(|x - x°|), phi = r^2 + {kappa:g} sin^2 r (non-convex PL, L = {L:g}, mu = {mu:.5f}), "
                 f"N = 50, f = 1, T = 1, alpha = mu/(72 L^2) = {alpha:.4g}, sigma = {sigma:g}, x_0 = x*_H; the Byzantine agent "
                 f"sends x_k - (1 - {eps:g})(y^(j*) - x_k), j* the farthest honest model. Round 0: E||V_x||^2 = {r0:.4g} "
                 f"(R = {R}) against the bound {noise_term:.4g}; rounds 0-{rounds - 1}: mean/bound from {ratio.min():.3f} to "
                 f"{ratio.max():.3f}."),
        second_argument=(f"Exact at round 0: y^i = x* - alpha xi_i (grad q^i(x*) = 0), CE drops y^(j*) and keeps the mirror, "
                         f"so V_x = (2 - eps) alpha xi_(j*)/|H| and E||V_x||^2 = (2 - eps)^2 alpha^2 sigma^2 E[max_(i<=49) "
                         f"Z_i^2]/|H|^2 with E[max_(i<=49) Z_i^2] = int_0^oo (1 - erf(sqrt(t/2))^49) dt = "
                         f"{float(cert['E_max_Z2']):.10f} (mpmath quadrature, 30 digits): E||V_x||^2 = {exact_r0:.6g}, i.e. "
                         f"{float(cert['ratio']):.6f} x the printed bound 12 alpha^2 sigma^2/|H|^2 (E||grad q^H(x*)||^2 = 0)."))
    return result_for(
        ctx,
        Claim("Appendix VI-A, the display after (16) (line 216): E||V_x||^2 <= (8 L^2 T^2 alpha^2/mu^2)(|B_k|^2/|H|^2) "
              "E||grad q^H(x_k)||^2 + 12 T^2 alpha^2 sigma^2 |B_k|^2/|H|^2, obtained from (13) applied to the farthest honest "
              "agent x^j_{k,t}.",
              r"\mathbb E\|V_x\|^2\le\frac{8L^2\mathcal T^2\alpha^2}{\mu^2}\frac{|\mathcal B_k|^2}{|\mathcal H|^2}"
              r"\mathbb E\|\nabla q^{\mathcal H}(\bar x_k)\|^2+\frac{12\mathcal T^2\alpha^2\sigma^2|\mathcal B_k|^2}{|\mathcal H|^2}",
              "dutta2023, Appendix VI-A (proof of Theorem 1), eq. (15) and the bound on E||V_x||^2 after (16)",
              D.VX_BOUND.typst),
        verdict,
        observed={"E_Vx2_minus_grad_term": info["mean"], "ci_lo": info["ci_lo"], "ci_hi": info["ci_hi"],
                  "E_Vx2_round0": r0, "mean_grad_sq": np.stack(G2, 1).mean(0), "replicates": R, "rounds": rounds,
                  "ratio_to_bound": ratio, "byzantine_kept": float(kept.mean())},
        predicted={"bound_noise_term": noise_term, "gradient_coefficient": c_grad, "exact_round0": exact_r0,
                   "exact_ratio_round0": float(cert["ratio"]), "E_max_Z2_49": float(cert["E_max_Z2"]),
                   "repaired_bound": float(np.asarray(info_rep["bound"]).ravel()[0])},
        fit={"printed": verdict_raw.value, "repaired_bound_verdict": v_rep.value, "worst_ratio": info["worst_ratio"]},
        explanation=(f"With the farthest honest model mirrored by one Byzantine agent, E||V_x||^2 minus the bound's gradient "
                     f"term is {ratio.min():.2f} to {ratio.max():.2f} x the printed bound over {rounds} rounds (round 0: "
                     f"{r0:.4g} measured, {exact_r0:.4g} exact, bound {noise_term:.4g}), although Theorem 1's hypotheses hold: "
                     "the step applies a fixed agent's drift bound to the farthest agent. The bound with |H| in place of "
                     f"|H|^2 holds ({v_rep.value})."
                     if not verdict_raw.passed else
                     f"E||V_x||^2 stays under the printed bound (mean/bound at most {ratio.max():.3f})."),
        assumptions=assumptions,
        finding=finding if not verdict_raw.passed else "",
        figure=figspec.figure(figspec.panel(
            "Byzantine perturbation of (15) against the printed bound (d = 1, f = 1, T = 1)", "round k",
            r"$\mathbb{E}\|V_x\|^2$ / bound",
            [figspec.interval("measured / bound", np.arange(rounds), est / noise_term, (est - z * se) / noise_term,
                              (est + z * se) / noise_term, f"{z:.2f} standard errors"),
             figspec.line("exact, round 0", [0.0], [float(cert["ratio"])], "reference"),
             figspec.line("printed bound", np.arange(rounds), np.ones(rounds), "bound")], "linear", "linear")),
    )


# =========================================================================================================
# x04: "x* will be unique for any set of honest agents" because of PL
# =========================================================================================================
def _line_instance(ctx: Context, kappa: float):
    """Problem (11)'s family with A^i = [1 1], b^i = 1 for every agent (l = 1, d = 2): q^i(x) = g(x1 + x2 - 1),
    g(s) = s^2 + kappa sin^2 s. Its minimisers are the line x1 + x2 = 1."""
    kw = {"dtype": ctx.dtype, "device": ctx.torch_device}
    G = torch.ones(1, N_AGENTS, 2, 2, **kw)  # A^{iT} A^i = [[1, 1], [1, 1]]
    z = torch.full((1, N_AGENTS, 2), 0.5, **kw)  # the minimum-norm solution of x1 + x2 = 1, exact in binary
    return RegressionAgents(G, z, torch.zeros(1, N_AGENTS, **kw), P.sin_link(kappa))


@check("dutta2023.x04", "Section IV, line 137: 'since the objectives satisfy the PL condition, x* is unique' is false: "
       "problem (11) itself has PL instances with a line of minimisers (erratum)", "erratum", "violated",
       statements=("eq. (11)",))
def x04_uniqueness(ctx: Context, *, kappas=(1.0, 3.0), starts: int = 6, tol: float = 1e-6, rounds: int = 300,
                   f: int = 2) -> Result:
    """Line 137 (after (11)): "since objectives satisfies the PL condition, the optimal solution x* will be unique for any
    set of honest agent H (see Remark 1 in [8])". Witness: problem (11) with A^i = [1 1], b^i = 1 (l = 1, d = 2) for every
    agent, and its non-convex PL variant (3 sin^2, Karimi et al.'s example): q^H is PL (mu >= 1 exactly for (11); sampled),
    2f-redundancy holds as Definition I.1's set equality (every subset has the same argmin), and the argmin is the line
    x1 + x2 = 1. Measurement: L-BFGS from ``starts`` random starts reaches q^H = q^H_* at points ``spread`` apart; the
    claim 'x* unique' is the identity spread = 0 (exact_zero_verdict within ``tol``).

    What the argument needs (a diagnostic beside the verdict): Algorithm 1 with exact gradients, CE, f = 2 under the
    CE-evasion and constant attacks, step (8) with mu = 1, on the witness (11): e_k <= (1 - alpha mu T/36)^k e_0 at every
    round (Theorem 1's conclusion) though the runs end at different minimisers: PL gives quadratic growth to the solution
    SET (Karimi et al. 2016), and 2f-redundancy a common stationary point at each of its points, which is what the proof's
    steps (13), (19)-(20) use with x* the projection of x_k."""
    from scipy import optimize

    rng = ctx.numpy_rng("starts")
    rows, finals = [], []
    for kappa in kappas:
        prob = _line_instance(ctx, kappa)
        orc = prob.numpy_oracle()
        fun = lambda x: float(orc.values(x[None]).mean())  # noqa: E731
        jac = lambda x: orc.mean_grad(x[None])[0]  # noqa: E731
        X0 = rng.normal(0.0, 2.0, size=(starts, 2))
        sols = np.array([optimize.minimize(fun, x0, jac=jac, method="L-BFGS-B",
                                           options={"gtol": 1e-14, "ftol": 1e-300, "maxiter": 500}).x for x0 in X0])
        vals = np.array([fun(x) for x in sols])
        spread = float(max(np.linalg.norm(a - b) for a in sols for b in sols))
        P_ = rng.normal(0.0, 3.0, size=(4000, 2))
        gsq = (orc.mean_grad(P_) ** 2).sum(-1)
        gap = orc.values(P_).mean(1) - 0.0
        ok = gap > 1e-12
        mu_pl = float(np.min(gsq[ok] / (2 * gap[ok])))
        H_ = sols.copy()
        convex = kappa <= 1.0
        rows.append({"kappa": kappa, "minimisers": sols, "q_at_minimisers": vals, "spread": spread, "mu_PL_sampled": mu_pl,
                     "convex": convex, "line_residual": float(np.abs(H_.sum(1) - 1).max())})
        finals.append(spread)
    # the claim 'x* unique' as an identity: the spread of the minimisers found is 0
    verdict_raw, info = exact_zero_verdict(min(finals), tol)

    # diagnostic: Theorem 1 (sigma = 0) on the witness (11) without a unique minimiser
    prob = _line_instance(ctx, kappas[0])
    L = float(P.exact_smoothness(prob).value)
    mu = 1.0  # exact lower bound (uniqueness_certificate)
    alpha = mu / (72 * L**2)
    x0 = torch.as_tensor(rng.normal(0.0, 2.0, size=(4, 2)), dtype=ctx.dtype, device=ctx.torch_device)
    cfg = [Config(a, alpha=alpha, T=1, reps=2) for a in ("A3", "A6")]
    tr, _ = simulate(ctx, prob, cfg, f=f, n_byz=f, rounds=rounds, stream="run", record=np.arange(rounds + 1),
                     keep_iterates=True, x0=x0)
    rho = D.rho_bound(alpha, mu, 1)
    with aside():
        v_thm, info_thm = deterministic_verdict((tr.gap / tr.gap[:, :1]).ravel(),
                                                np.broadcast_to(rho ** tr.rounds[None, :], tr.gap.shape).ravel(), "upper",
                                                rtol=1e-9)
    ends = tr.iterates[:, -1]
    proj = ends - ((ends.sum(1, keepdims=True) - 1) / 2) * np.ones((1, 2))  # nearest points of the line x1 + x2 = 1
    end_spread = float(max(np.linalg.norm(a - b) for a in proj for b in proj))
    cert = D.uniqueness_certificate()
    assumptions = [Assumption("condition (9) on the witness (11) with mu = 1, L = 8", D.condition_9(f, N_AGENTS, mu, L),
                              mu / (3 * L), "lower bound", f"f = {f}: {f / (N_AGENTS - f):.4f} <= {mu / (3 * L):.4f}"),
                   Assumption("every minimiser found attains q^H_* = 0", all(float(r["q_at_minimisers"].max()) < 1e-20
                                                                            for r in rows),
                              max(float(r["q_at_minimisers"].max()) for r in rows), "exact", "float64")]
    verdict = apply_assumptions(verdict_raw, assumptions)
    r11, rnc = rows[0], rows[-1]
    finding = erratum(
        "PL does not make the minimiser unique: problem (11) with rank-deficient data is PL with a line of minimisers. "
        "Uniqueness needs rank(A_H) = d (or the quadratic growth to a single point that Assumption 2 adds); the proof "
        "needs neither.",
        paper_says=("Section IV, after eq. (11) (line 137): 'Here we further note that the since objectives satisfies the PL "
                    "condition, the optimal solution x* will be unique for any set of honest agent H (see Remark 1 in [8]).'"),
        correction=("PL is equivalent to quadratic growth to the solution SET (Karimi, Nutini, Schmidt 2016), which may be a "
                    "manifold; x*_H is unique when rank(sum_H A^{iT} A^i) = d, or under Assumption 2 as printed (growth "
                    "mu^2 ||x - x*_H||^2 to one point). The proof of Theorem 1 uses the point x*_H only through the error "
                    "bound and grad q^i(x*_H) = 0, both of which hold at the projection of x_k onto the solution set "
                    "(2f-redundancy as set equality makes every minimiser a common stationary point), so uniqueness can be "
                    f"dropped: on the witness, Theorem 1's sigma = 0 bound holds at every round ({v_thm.value}) while the runs "
                    f"head for minimisers {end_spread:.3g} apart (their nearest points on the line)."),
        witness=(f"N = 50 agents, A^i = [1 1], b^i = 1: problem (11) (kappa = 1): L-BFGS from {starts} starts reaches q^H = "
                 f"{float(r11['q_at_minimisers'].max()):.1e} at points {r11['spread']:.3g} apart on the line x1 + x2 = 1 "
                 f"(residual {r11['line_residual']:.1e}); sampled PL constant {r11['mu_PL_sampled']:.4f} (>= 1). Non-convex "
                 f"variant 3 sin^2 (Karimi et al.): minimisers {rnc['spread']:.3g} apart, sampled PL constant "
                 f"{rnc['mu_PL_sampled']:.4f}."),
        second_argument=("sympy, exact: q(x) = g(x1 + x2 - 1), g(s) = s^2 + sin^2 s; g'' - 4 cos^2 s = "
                         f"{cert['g_second_minus_4cos2']} (g convex), g(0) = {cert['g_at_0']}, g'(0) = {cert['g_prime_at_0']}, "
                         f"so g(s) <= s g'(s); g(s) - s^2 = {cert['g_minus_s2']} >= 0, so g'(s)^2 >= g(s)^2/s^2 >= g(s); "
                         f"||grad q||^2 - 2 g'(s)^2 = {cert['grad_sq_minus_2_gprime_sq']}, hence ||grad q||^2 >= 2 (q - q*): PL "
                         f"with mu = 1; and q(t, 1 - t) = {cert['q_on_line']} for every t: the whole line minimises q^H."))
    return result_for(
        ctx,
        Claim("Section IV, line 137: 'since objectives satisfies the PL condition, the optimal solution x* will be unique for "
              "any set of honest agent H'. Tested on problem (11) (and its 3 sin^2 variant) with A^i = [1 1], b^i = 1.",
              r"q^{\mathcal H}\ \mathrm{PL}\ \Rightarrow\ |\arg\min q^{\mathcal H}|=1",
              "dutta2023, Section IV (after eq. (11), line ~137)", "q^cal(H) \"PL\" => |arg min q^cal(H)| = 1"),
        verdict,
        observed={"instances": rows, "diagnostic_theorem1": {"verdict": v_thm.value, "worst_ratio": info_thm["worst_ratio"],
                                                             "end_points": ends, "nearest_minimisers": proj,
                                                             "spread_of_nearest_minimisers": end_spread,
                                                             "final_gap_over_e0": tr.gap[:, -1] / tr.gap[:, 0],
                                                             "rounds": rounds}},
        predicted={"spread_if_unique": 0.0, "tolerance": tol, "mu_exact_lower_bound": 1.0},
        fit={**info, "claim_verdict": verdict_raw.value},
        explanation=(f"Problem (11) with A^i = [1 1], b^i = 1 is PL (mu >= 1 exactly, {r11['mu_PL_sampled']:.3f} sampled) and "
                     f"satisfies 2f-redundancy, yet its minimisers found from {starts} starts lie {r11['spread']:.3g} apart on "
                     f"the line x1 + x2 = 1 (non-convex 3 sin^2 variant: {rnc['spread']:.3g}). Theorem 1's sigma = 0 bound still "
                     f"holds there ({v_thm.value}; the runs head for minimisers {end_spread:.3g} apart): the proof needs growth to the "
                     "solution set, not uniqueness."),
        assumptions=assumptions,
        finding=finding if not verdict_raw.passed else "",
        figure=figspec.figure(figspec.panel(
            "Minimisers of problem (11) with A = [1 1], b = 1 (line x1 + x2 = 1)", "$x_1$", "$x_2$",
            [figspec.line(f"L-BFGS minimisers, kappa = {r['kappa']:g}", r["minimisers"][:, 0], r["minimisers"][:, 1], "observed")
             for r in rows]
            + [figspec.line("Algorithm 1, nearest minimisers at the end", proj[:, 0], proj[:, 1], "reference"),
               figspec.line("x1 + x2 = 1", np.array([-6.0, 6.0]), np.array([7.0, -5.0]), "bound")], "linear", "linear")),
    )


# =========================================================================================================
# x05: problem (12), the paper's metric and the filter comparison of its figure
# =========================================================================================================
METRIC_WORDS = ("Here we observe variation of the term (1/|H|) sum_{i in H} ||grad q^i(x_k)||^2. This is a standard error "
                "term used for study analysis of a non-convex optimization problem. The simulation results are shown in "
                "Fig. 1 and 2 respectively.")


def _dsigmoid(r):
    """s'(r) = s(r)(1 - s(r)) of the logistic function s, stable for large r."""
    e = np.exp(-np.abs(r))
    return e / (1 + e) ** 2


@check("dutta2023.x05", "Problem (12) (Fig. 2): the paper's metric (1/|H|) sum ||grad q^i||^2 ranks a diverged run ahead of "
       "CE at the minimiser, so it cannot judge the filter comparison (erratum)", "erratum", "violated",
       statements=("eq. (12)", "Fig. 2"))
def x05_problem12_metric(ctx: Context, *, f: int = 5, attacks=("A2", "A3", "A4"), rules=("ce", "cwtm", "multikrum"),
                         sigma: float = 1.0, rounds: int = 50, T: int = 3, alpha_p: float = 0.05) -> Result:
    """Section IV (line 143) reads problem (12), q_i(x) = 1/(1 + exp(-||A_i x - b_i||)), through "the term (1/|H|)
    sum_{i in H} ||grad q^i(x_k)||^2 ... a standard error term", and compares CE with CWTM and multi-Krum on it
    (Figs. 1-2: "Local SGD with CE filter out performs other byzantine filters"). A filter comparison by this metric
    presumes that it is small when the iterates are near a minimiser and large away from it.

    Claim tested (the metric as an error term): on the same instance and noise, the run that converges (CE under the
    constant attack A6, which it removes) has a smaller metric than the run that diverges (the plain mean under A6),
    paired over replicates (one-sided Wilcoxon at ``alpha_p``); that the mean diverges and CE converges is checked by
    the optimality gap q^H - q^H_* (an assumption: else inconclusive). Expected violated, from a closed form before any
    run: ||grad q_i|| = s'(r_i) ||A_i^T u_i||/r_i with s'(r) <= exp(-r) -> 0 as r -> oo, while near the common
    minimiser s'(r_i) -> 1/4 and ||A_i^T u||/||u|| >= sqrt(lambda_min(A_i^T A_i)), so the metric is at least
    (1/16) mean_H lambda_min(A_i^T A_i) > 0 there and tends to 0 at infinity: it ranks divergence first.

    Setting: P1-Gauss data (N = 50, l = 100, d = 10, realizable), f = 5, T = 3, 50 rounds, noise N1 with sigma = 1, step
    0.5/L_proxy (L_proxy = max lambda_max(A^T A)/4; (12) has no smoothness constant), from a start at residuals about 1
    (from x_0 = 0 the residuals are about 30 and every gradient about e^-30). Reported beside the verdict: the filter
    comparison of the figure per attack (CE against CWTM and multi-Krum), by the gap and by the metric."""
    R = ctx.reps(8, 24)
    prob, x_opt, _ = composite_instance(ctx, "p2", stream="data")
    d = prob.dim
    G, _, _ = prob.gram_numpy()
    lam = np.linalg.eigvalsh(G)
    scale = math.sqrt(G.trace(axis1=1, axis2=2).mean())
    L_proxy = float(lam[:, -1].max()) / 4
    alpha = 0.5 / L_proxy
    v = _unit(ctx.generator("start"), 1, d, ctx)[0]
    start = x_opt + v / scale
    std = P.coordinate_std(sigma, d)
    cfg, noise = [Config("A6", "ce", alpha=alpha, T=T, std=std, reps=R), Config("A6", "mean", alpha=alpha, T=T, std=std, reps=R)], \
        [np.arange(R), np.arange(R)]
    for ia, a in enumerate(attacks):
        for rule in rules:
            cfg.append(Config(a, rule, alpha=alpha, T=T, std=std, reps=R))
            noise.append((ia + 1) * R + np.arange(R))
    tr, sl = simulate(ctx, prob, cfg, f=f, n_byz=f, rounds=rounds, stream="run", record=[0, rounds], agent_grad_sq=True,
                      keep_iterates=True, x0=start, noise_rows=np.concatenate(noise))
    gap = {(c.attack, c.aggregator): tr.gap[s][:, -1] for c, s in zip(cfg, sl)}
    metric = {(c.attack, c.aggregator): tr.agent_grad_sq[s][:, -1] for c, s in zip(cfg, sl)}
    with aside():  # the run's premise, not the claim: by the gap CE converges and the mean diverges
        v_gap, i_gap = paired_comparison_verdict(gap[("A6", "ce")], gap[("A6", "mean")], alpha=alpha_p)
    v_metric, i_metric = paired_comparison_verdict(metric[("A6", "ce")], metric[("A6", "mean")], alpha=alpha_p)
    # the figure's comparison, per attack, by both measures (reported, not the claim)
    table = []
    with aside():
        for a in attacks:
            for other in rules[1:]:
                vg, ig = paired_comparison_verdict(gap[(a, "ce")], gap[(a, other)], alpha=alpha_p)
                vm, im = paired_comparison_verdict(metric[(a, "ce")], metric[(a, other)], alpha=alpha_p)
                table.append({"attack": a, "other": other, "ce_ahead_by_gap": vg.value, "ce_ahead_by_metric": vm.value,
                              "gap_ce": float(gap[(a, "ce")].mean()), "gap_other": float(gap[(a, other)].mean()),
                              "metric_ce": float(metric[(a, "ce")].mean()), "metric_other": float(metric[(a, other)].mean())})
    # exact second argument: the metric's floor near x° and its ceiling at the mean's end points
    floor_near = float(lam[f:, 0].mean() / 16)  # (1/16) mean_H lambda_min(G_i): the limit inf of the metric at x°
    ends = tr.iterates[sl[1], -1]  # the mean's final models [R, d]
    res = np.sqrt(np.einsum("nij,rni,rnj->rn", G[f:], ends[:, None, :] - x_opt.cpu().numpy(),
                            ends[:, None, :] - x_opt.cpu().numpy()))  # residual norms r_i at the end points
    ceiling = float((_dsigmoid(res) ** 2 * lam[f:, -1][None]).mean(1).max())  # metric <= mean s'(r_i)^2 ||A_i||^2
    ce_dist = float(np.linalg.norm(tr.iterates[sl[0], -1] - x_opt.cpu().numpy(), axis=-1).max())
    r_ce = np.sqrt(lam[f:, -1]) * ce_dist  # residuals at CE's end points are at most ||A_i|| ||x - x°||
    floor_ce = float((_dsigmoid(r_ce) ** 2 * lam[f:, 0]).mean())  # metric >= mean s'(||A_i|| delta)^2 lambda_min(G_i)
    import sympy as sp

    rr = sp.Symbol("r", positive=True)
    sprime = sp.exp(-rr) / (1 + sp.exp(-rr)) ** 2
    lim0, limoo = sp.limit(sprime, rr, 0), sp.limit(sprime, rr, sp.oo)
    assumptions = [Assumption("by the optimality gap, CE under the large-value attack ends below the plain mean (CE converges, the mean "
                              "diverges)", v_gap.passed, float(np.median(gap[("A6", "mean")] / gap[("A6", "ce")])),
                              "estimate", f"median gap ratio mean/CE; one-sided Wilcoxon p = {i_gap['p_less']:.3g}"),
                   Assumption("realizable labels (a common minimiser x°)", True, None, "exact", "planted")]
    verdict = apply_assumptions(v_metric, assumptions)
    m_ce, m_mean = float(metric[("A6", "ce")].mean()), float(metric[("A6", "mean")].mean())
    g_ce, g_mean = float(gap[("A6", "ce")].mean()), float(gap[("A6", "mean")].mean())
    agree = sum(r["ce_ahead_by_gap"] == r["ce_ahead_by_metric"] for r in table)
    table_text = "; ".join(f"{ATTACK_NAMES.get(r['attack'], r['attack'])} vs {r['other']}: gap {r['ce_ahead_by_gap']}, metric {r['ce_ahead_by_metric']}"
                           for r in table)
    finding = erratum(
        "On problem (12) the paper's metric is not an error term: it vanishes at infinity and is bounded away from 0 near "
        f"the common minimiser, so the plain mean that diverges under a constant attack scores {m_mean:.2g} against CE's "
        f"{m_ce:.2g} at the minimiser. A filter comparison on (12) by this metric says nothing about convergence.",
        paper_says=f"Section IV, after eq. (12) (line 143): '{METRIC_WORDS}' and (same paragraph) 'We observe that Local SGD with "
                   "CE filter out performs other byzantine filters.'",
        correction=("Compare filters on (12) by the optimality gap q^H(x_k) - q^H_* (or the distance to the minimiser); the "
                    "local gradient norms of (12) are at least (1/16) lambda_min(A_i^T A_i) near a zero residual (a cone) "
                    "and e^(-r) small far away. By the gap, the comparison of the figure is attack-dependent here: "
                    f"{table_text}."),
        witness=(f"P1-Gauss data with the logistic link (N = 50, l = 100, d = 10, realizable), f = 5, T = 3, {rounds} rounds, "
                 f"sigma = {sigma:g}, alpha = 0.5/L_proxy: under the constant attack 1e3 1, CE ends at gap {g_ce:.3g} and metric "
                 f"{m_ce:.3g}; the plain mean at gap {g_mean:.3g} (of at most 1/2) and metric {m_mean:.3g} ({R} paired "
                 f"replicates; by the metric the mean is ahead, one-sided Wilcoxon p = {i_metric['p_greater']:.3g})."),
        second_argument=(f"Closed form (sympy): s'(r) = e^(-r)/(1 + e^(-r))^2 has limit {lim0} at r -> 0 and {limoo} at "
                         "r -> oo, and s'(r) <= e^(-r). With ||grad q_i|| = s'(r_i) ||A_i^T u_i||/r_i: within distance "
                         f"{ce_dist:.3g} of x° (CE's end points) the metric is at least mean_H s'(||A_i|| delta)^2 "
                         f"lambda_min(A_i^T A_i) = {floor_ce:.4g} (eigenvalues of the data; the limit at x° is "
                         f"{floor_near:.4g}), while at the mean's end points it is at most mean_H s'(r_i)^2 ||A_i||^2 = "
                         f"{ceiling:.3g}: every such diverged run ranks ahead of every run near the minimiser."))
    return result_for(
        ctx,
        Claim("Section IV (lines 139-143): on problem (12) the paper observes 'the term (1/|H|) sum_{i in H} ||grad q^i(x_k)||^2"
              "', 'a standard error term', and concludes that CE outperforms the other filters. Claim tested: the term ranks "
              "a converging run (CE under a constant attack) ahead of a diverging one (the plain mean under it).",
              r"\tfrac1{|\mathcal H|}\textstyle\sum_{\mathcal H}\|\nabla q^i(\bar x_K^{CE})\|^2<"
              r"\tfrac1{|\mathcal H|}\textstyle\sum_{\mathcal H}\|\nabla q^i(\bar x_K^{mean})\|^2",
              "dutta2023, Section IV, eq. (12) and lines 139-143 (Figs. 1-2)",
              "1/|cal(H)| sum norm(nabla q^i(macron(x)_K^(\"CE\")))^2 < 1/|cal(H)| sum norm(nabla q^i(macron(x)_K^(\"mean\")))^2"),
        verdict,
        observed={"large_value_attack": {"gap_ce": gap[("A6", "ce")], "gap_mean": gap[("A6", "mean")], "metric_ce": metric[("A6", "ce")],
                         "metric_mean": metric[("A6", "mean")]},
                  "comparison": table, "rankings_agreeing": agree, "replicates": R, "rounds": rounds},
        predicted={"metric_floor_near_minimiser": floor_near, "metric_floor_at_ce_end": floor_ce,
                   "metric_ceiling_at_mean_end": ceiling, "s_prime_at_0": str(lim0), "s_prime_at_infinity": str(limoo)},
        fit={"metric": {**i_metric, "verdict": v_metric.value}, "gap": {**i_gap, "verdict": v_gap.value}},
        explanation=(f"Under the constant attack CE ends near the minimiser (gap {g_ce:.3g}) and the plain mean far from it "
                     f"(gap {g_mean:.3g}, the sigmoid's ceiling is 1/2), yet the paper's metric is {m_ce:.3g} for CE and "
                     f"{m_mean:.3g} for the mean: it ranks divergence first, as its closed form says (at least {floor_ce:.3g} "
                     f"near x°, at most {ceiling:.3g} at the mean's end points). The figure's comparison by the gap: "
                     f"{table_text}; the metric agrees with the gap in {agree} of {len(table)} pairs."),
        assumptions=assumptions,
        finding=finding if not v_metric.passed else "",
        figure=figspec.figure(figspec.panel(
            "Problem (12): final optimality gap and the paper's metric, per filter", "run (1: CE, large value; 2: mean, large value; then "
            "attack x filter)", "value at round 50",
            [figspec.line("gap", np.arange(1, len(cfg) + 1), [float(tr.gap[s][:, -1].mean()) for s in sl], "observed"),
             figspec.line("paper's metric", np.arange(1, len(cfg) + 1),
                          [max(float(tr.agent_grad_sq[s][:, -1].mean()), 1e-300) for s in sl], "reference")],
            "linear", "log")),
    )


# =========================================================================================================
# x06: Fig. 1, CE against the non-faulty baseline
# =========================================================================================================
def honest_mean(Y: torch.Tensor, f: int) -> torch.Tensor:
    """The non-faulty baseline in Algorithm 1's harness: the mean of the honest models only (agents f..N-1), whatever the
    Byzantine agents send (the paper's 'non-faulty Local GD')."""
    return Y[:, f:].mean(1)


@check("dutta2023.x06", "Fig. 1: CE's error exceeds the non-faulty baseline's by at most the Byzantine term of eq. (10), "
       "under the attacks CE keeps, f = 2, 5, 8, 10", "bound", "holds", statements=("Fig. 1",))
def x06_baseline(ctx: Context, *, theory: Bound = D.BYZANTINE_TERM, fs=(2, 5, 8, 10),
                 attacks=("A2", "A3", "A4", "A5"), sigma: float = 1.0, rounds: int = 50, T: int = 3,
                 control: str = "mean") -> Result:
    """Fig. 1 (Section IV, line 143) plots CE, CWTM and multi-Krum "with non-faulty Local GD as baseline" for f = 2, 5, 8,
    10, and the paper concludes "The observed results are in line with our theoretical findings, which demonstrate that
    achieving only an approximate fault tolerance in stochastic scenarios is possible". Read with Theorem 1 and Remark 1
    (the floor's alpha-part is the fault-free local SGD's, its other part 'a result of ... the Byzantine agents'): CE's
    expected gap after K rounds exceeds the baseline's by at most 72 T sigma^2 f/(mu |H|).

    Fig. 1's setting: problem (11) on P1-Gauss data (N = 50, l = 100, d = 10, realizable), T = 3, 50 rounds, alpha = 0.5/L,
    noise N1 with sigma = 1, the attacks of the library that CE can keep (the paper names none; the far random vectors A1
    are removed entirely, Claim 12 (d)). The baseline is the honest agents alone,
    averaged without a filter, in the same run with the same gradient noise (common random numbers), so each replicate
    gives a paired difference e_K(CE) - e_K(baseline); bound_verdict at every (f, attack) on its positive part (a
    stronger statement than the claim, E[(e_K^CE - e_K^base)_+] >= E[e_K^CE] - E[e_K^base], and a non-negative one, whose
    ratio to the bound is the margin). mu is replaced by its exact
    upper bound 2 lambda_min(sum_H A^{iT} A^i)/|H| (the PL ratio at infinity, dutta2023.c09's certificate), which can only
    shrink the bound: a 'holds' stands for the true mu. Condition (9) allows f <= 2 on this data: f = 5, 8, 10 test the
    figure's regime, not Theorem 1's.

    Control: the plain mean in place of CE, same runs, under the far random attack A1, must violate the bound."""
    R = ctx.reps(6, 20)
    prob, x_opt, Lc = composite_instance(ctx, "p1", stream="data")
    L = float(Lc.value)
    alpha = 0.5 / L
    d = prob.dim
    std = P.coordinate_std(sigma, d)
    G, _, _ = prob.gram_numpy()
    diffs, ctrl, at = [], [], {"f": [], "H": [], "mu": []}
    rows = []
    for f in fs:
        H = N_AGENTS - f
        mu_up = 2 * float(np.linalg.eigvalsh(G[f:].sum(0))[0]) / H
        cfg = ([Config(a, "ce", alpha=alpha, T=T, std=std, reps=R) for a in attacks]
               + [Config("A6", honest_mean, alpha=alpha, T=T, std=std, reps=R),
                  Config("A1", control, alpha=alpha, T=T, std=std, reps=R)])
        tr, sl = simulate(ctx, prob, cfg, f=f, n_byz=f, rounds=rounds, stream=f"run/f={f}", record=[0, rounds],
                          noise_rows=np.tile(np.arange(R), len(cfg)))
        base = tr.gap[sl[-2]][:, -1]
        for a, s in zip(attacks, sl):
            diffs.append(tr.gap[s][:, -1] - base)
            at["f"].append(f), at["H"].append(H), at["mu"].append(mu_up)
            rows.append({"f": f, "attack": a, "gap_ce": float(tr.gap[s][:, -1].mean()), "gap_baseline": float(base.mean()),
                         "byzantine_term": float(theory(T=T, sigma=sigma, f=f, mu=mu_up, H=H)),
                         "condition_9": D.condition_9(f, N_AGENTS, mu_up, L)})
        with np.errstate(invalid="ignore", over="ignore"):  # the unfiltered mean may overflow: infinitely far, capped
            ctrl.append(np.nan_to_num(tr.gap[sl[-1]][:, -1] - base, nan=1e300, posinf=1e300))
    Y = np.maximum(np.stack(diffs, 1), 0.0)  # the positive part: E[(e^CE - e^base)_+] <= term implies the claim
    vals = {"T": T, "sigma": sigma, "f": np.asarray(at["f"], float), "H": np.asarray(at["H"], float),
            "mu": np.asarray(at["mu"], float)}
    rng = ctx.numpy_rng("bootstrap")
    claim_v, info = bound_verdict(Y, theory, values=vals, rng=rng)
    cvals = {"T": T, "sigma": sigma, "f": np.asarray(fs, float), "H": N_AGENTS - np.asarray(fs, float),
             "mu": np.asarray(at["mu"], float)[::len(attacks)]}
    with aside():  # the control is not the claim; the diverging mean is heavy-tailed, so its median decides
        ratio_c = np.stack(ctrl, 1) / np.asarray(theory(**cvals), dtype=float)[None]
        v_ctrl, ci = median_verdict(ratio_c.ravel(), 1.0, "upper")
        ci["worst_ratio"] = float(np.median(ratio_c))
    verdict = controlled(claim_v, v_ctrl)
    for r, m in zip(rows, info["mean"]):
        r["excess_over_term"] = float(m / r["byzantine_term"])
    worst = max(rows, key=lambda r: r["excess_over_term"])
    f_cap = D.f_max_condition_9(N_AGENTS, min(at["mu"]), L)
    control_field = {"what": f"the plain mean ({control}) in place of CE under far random vectors, same runs and noise, "
                             f"f in {list(fs)}", "verdict": v_ctrl.value,
                     "detail": f"median excess over the baseline / Byzantine term {ci['worst_ratio']:.3g} (must exceed 1)"}
    return result_for(
        ctx,
        Claim("Section IV (line 143): 'Fig.1 show the performances of CWTM, Multi-KRUM and CE filer with non-faulty Local GD as "
              "baseline for comparison as we vary the number of byzantine agents f=2,5,8,10. ... The observed results are in "
              "line with our theoretical findings, which demonstrate that achieving only an approximate fault tolerance in "
              "stochastic scenarios is possible.' Read with eq. (10) and Remark 1: CE's gap exceeds the baseline's by at most "
              "the Byzantine term 72 T sigma^2 f/(mu |H|).",
              r"\mathbb E e_K^{CE}-\mathbb E e_K^{\mathcal H\ only}\le\frac{72\mathcal T\sigma^2 f}{\mu|\mathcal H|}",
              "dutta2023, Section IV (Fig. 1, line 143), Theorem 1 eq. (10) and Remark 1", D.BYZANTINE_TERM.typst),
        verdict,
        observed={"configs": rows, "replicates": R, "rounds": rounds, "mean_excess": info["mean"], "ci_hi": info["ci_hi"],
                  "f_allowed_by_condition_9_at_most": f_cap},
        predicted={"byzantine_term": info["bound"], "mu_upper_bound": at["mu"][::len(attacks)]},
        fit={"claim_verdict": claim_v.value, "worst_ratio": info["worst_ratio"]},
        control=control_field,
        explanation=(f"Over f in {list(fs)} and attacks {', '.join(ATTACK_NAMES.get(a, a) for a in attacks)} ({R} paired replicates, {rounds} rounds), CE's "
                     f"final gap exceeds the non-faulty baseline's by at most {info['worst_ratio']:.2g} x the Byzantine term "
                     f"of (10) (worst: f = {worst['f']}, {ATTACK_NAMES[worst['attack']]}: {worst['gap_ce']:.3g} against "
                     f"{worst['gap_baseline']:.3g}, term {worst['byzantine_term']:.3g}): the approximate fault tolerance of "
                     f"Fig. 1 holds, far inside the theorem's allowance. Condition (9) allows f <= {f_cap} here. Control: "
                     f"{control_field['detail']} ({v_ctrl.value})."
                     if claim_v.passed else
                     f"CE's excess over the baseline reaches {info['worst_ratio']:.3g} x the Byzantine term (f = {worst['f']}, "
                     f"{ATTACK_NAMES[worst['attack']]})."),
        assumptions=[Assumption("mu replaced by an exact upper bound (2 lambda_min(sum_H A^T A)/|H|)", True, min(at["mu"]),
                                "upper bound", "a smaller mu only enlarges the bound"),
                     Assumption("paired replicates: CE, the baseline and the control see the same gradient noise", True, None,
                                "exact", "noise_rows shared per replicate"),
                     Assumption("realizable labels (2f-redundancy)", True, None, "exact", "planted")],
        figure=figspec.figure(figspec.panel(
            "CE's final gap minus the non-faulty baseline's, over the Byzantine term of (10)", "f", "excess / term",
            [figspec.line(ATTACK_NAMES[a], np.asarray(fs, float),
                          [max(r["excess_over_term"], 1e-12) for r in rows if r["attack"] == a], "observed") for a in attacks]
            + [figspec.line("Byzantine term", np.asarray(fs, float), np.ones(len(fs)), "bound")], "linear", "log")),
    )
