"""buttaci2024 c03, c05-c09, c16: the per-round contraction factors of the three methods.

docs/papers/buttaci2024.md §2.6, 3.1-3.3, 3.6, 6.1 (C3, C5-C9, C16), 7 items 4-6. On quadratic clients every method is an
affine round map X_{t+1} = M X_t + b (analytic QuadraticRoundMap), so rho(M) is the exact asymptotic
per-round contraction of the error and rho(M)^2 that of D_t = E||wbar_{t,0} - w*||^2, the quantity of
Lemmas A3/B3 (kappa) and Theorems 1/3. The simulation (verify/algorithms/local_methods.py) is checked
against it.
"""
from __future__ import annotations

import math

import numpy as np
import sympy as sp
import torch

from analytic.bounds import Bound
from analytic.papers import buttaci2024 as B
from verify import figspec
from verify.algorithms.local_methods import fedavg, fedprox, perturbed, run_local_rounds
from verify.checks.buttaci2024 import search as S
from verify.checks.buttaci2024.common import f64, run_quadratic, says, theorem_method
from verify.engine import Context
from verify.fit import (
    apply_assumptions,
    combine,
    controlled,
    deterministic_verdict,
    exact_zero_verdict,
    family_z,
    geometric_rate_verdict,
    identity_verdict,
    mc_identity_verdict,
)
from verify.problems.buttaci2024_quadratic import sc_q1, sc_q2
from verify.registry import check, register_paper, result_for
from verify.result import Assumption, Claim, Result, erratum, remark
from verify.strength import aside

register_paper(B.PAPER)

MU, L = 0.5, 2.0  # SC-Q1 and SC-Q2 (docs/papers/buttaci2024.md §6.0)


# =====================================================================================================
# C3: reductions at beta = 1 and alpha = 0
# =====================================================================================================
C3_CLAIM = Claim(
    "The perturbed method at beta = 1 and FedProx at alpha = 0 are FedAvg: the same iterates, the same lemma "
    "factor (1 - gamma mu)^E and the same theorem factor 1 - mu/(3L) (Section 5: 'we attain the same contraction "
    "rate when beta = 1 and alpha = 0').",
    r"\kappa_{B3}|_{\beta=1}=\kappa_{A3}|_{\alpha=0}=(1-\gamma\mu)^E"
    r",\quad 1-\tfrac{\mu}{(\beta+2)L}\big|_{\beta=1}=1-\tfrac{\mu}{3(L+\alpha)}\big|_{\alpha=0}",
    "buttaci2024, Section 5 (after eq. 9); Appendix A Lemma 3, Appendix B Lemma 3, Theorems 1 and 3",
    "kappa_(B 3)|_(beta=1) = kappa_(A 3)|_(alpha=0) = (1 - gamma mu)^E")


@check("buttaci2024.c03", "beta = 1 and alpha = 0 give FedAvg's iterates and factors (but not its floor)", "identity",
       "holds", statements=("eq. (9)", "Lemma A3", "Lemma B3"))
def c03_reductions(ctx: Context, *, factors: dict = B.FACTORS, T: int = 12, E: int = 5, sigma2: float = 0.09,
                   h: float = 1.0, points: int = 200) -> Result:
    """Claim 3: (i) trajectories of the perturbed method at beta = 1 and FedProx at alpha = 0 equal FedAvg's bit
    for bit under the same noise stream (SC-Q2, sigma^2 = 0.09); (ii) the lemma and theorem factors (before
    and after mu <= L) coincide at beta = 1 and alpha = 0, symbolically and at random parameter values;
    (iii) reported: the floors of Theorems 1 and 3 do not coincide (docs/papers/buttaci2024.md §7 item 4)."""
    R = ctx.reps(20, 100)
    prob = sc_q2(ctx.generator("problem"), h=h, noise_var=sigma2)
    gamma = B.theorem_step("fedavg", L, E)
    w0 = f64(ctx, np.full(prob.dim, 3.0))
    runs = {}
    for name, m in (("fedavg", fedavg(gamma)), ("perturbed beta=1", perturbed(gamma, 1.0)),
                    ("fedprox alpha=0", fedprox(gamma, 0.0))):  # separate runs, the same noise stream
        tr = run_local_rounds(prob.oracle(ctx.generator("noise")), [m], prob.weights, w0, T=T, E=E, R=R, keep_local=True)
        runs[name] = torch.cat([tr.wbar.flatten(), tr.local.flatten()])
    diffs = {k: float((v - runs["fedavg"]).abs().max()) for k, v in runs.items() if k != "fedavg"}
    v_traj = combine(exact_zero_verdict(d)[0] for d in diffs.values())

    rng = ctx.numpy_rng("parameters")
    at = {"mu": rng.uniform(0.01, 1, points), "L": rng.uniform(1, 5, points), "E": rng.integers(1, 30, points),
          "alpha": rng.uniform(0, 5, points), "beta": rng.uniform(0.05, 1, points)}
    at["gamma"] = 1 / (2 * at["L"] * at["E"])
    pairs = [(("perturbed", lvl), ("fedavg", lvl), {"beta": 1.0}) for lvl in ("lemma", "tight", "theorem")]
    pairs += [(("fedprox", lvl), ("fedavg", lvl), {"alpha": 0.0}) for lvl in ("lemma", "tight", "theorem")]
    checks, symbolic = {}, {}
    for (m, lvl), (m0, _), sub in pairs:
        red = B.factor(m, lvl, factors, **{**at, **sub})
        base = B.factor(m0, lvl, factors, **at)
        checks[f"{m} {lvl}"] = identity_verdict(red, base, rtol=1e-12, atol=1e-15)
        expr = factors[(m, lvl)].expr.subs({getattr(B, k): sp.nsimplify(v) for k, v in sub.items()})
        symbolic[f"{m} {lvl}"] = bool(sp.simplify(expr - factors[(m0, lvl)].expr) == 0)
    v_factors = combine(v for v, _ in checks.values())
    floor_gap = sp.factor(sp.simplify(B.FLOOR_THM3.subs(B.beta, 1) - B.FLOOR_THM1.subs(B.alpha, 0)))
    Eg = np.arange(1, 21)
    consts = {"S": 0.2, "sigma2": sigma2, "mu": MU, "L": L, "Gamma": 1.5, "G2": 80.0}
    floor3 = B.FLOOR_3(**consts, beta=1.0, E=Eg)
    floor1 = B.FLOOR_1(**consts, alpha=0.0, E=Eg)
    w_star = prob.w_star()
    D_avg = ((runs["fedavg"][: (T + 1) * R * prob.dim].reshape(T + 1, R, prob.dim).cpu().numpy() - w_star) ** 2).sum(-1)
    return result_for(
        ctx, C3_CLAIM, combine([v_traj, v_factors]),
        observed={"max_abs_trajectory_difference": diffs, "factor_identities": {k: i for k, (_, i) in checks.items()},
                  "symbolic_reduction_exact": symbolic, "replicates": R},
        predicted={"floor_thm3_beta1_minus_thm1_alpha0": str(floor_gap)},
        explanation=(f"Runs of the perturbed method at beta = 1 and of FedProx at alpha = 0 "
                     f"{says(v_traj.passed, 'reproduce', 'do not reproduce')} FedAvg's iterates exactly (largest difference "
                     f"{max(diffs.values()):.1g} over {T} rounds, {R} replicates). The lemma and theorem factors "
                     f"{says(v_factors.passed, 'reduce', 'do not all reduce')} to FedAvg's at {points} random parameter points (largest "
                     f"relative error {max(i['max_rel_error'] for _, i in checks.values()):.1g}) and symbolically "
                     f"({sum(symbolic.values())} of {len(symbolic)} differences simplify to 0)."),
        finding=(f"The floors do not reduce (Theorems 1 and 3, eqs. (7)-(8)): Theorem 3 at beta = 1 minus Theorem 1 at alpha = 0 is "
                 f"{floor_gap} (8 E^2 G^2/mu against 2 E^2 G^2/mu), because Lemma B2 carries 16 gamma^2 E^2 G^2 where "
                 "Lemma A2 has 4 gamma^2 E^2 G^2: beta = 1 does not give back FedAvg's bound."),
        figure=figspec.figure(
            figspec.panel("FedAvg and its two reductions (SC-Q2, same noise)", "round t", r"$\|\bar w_t-w_\star\|^2$",
                          [figspec.observed("FedAvg = ours (beta = 1) = FedProx (alpha = 0)", np.arange(T + 1),
                                            D_avg.T, rng=ctx.numpy_rng("figure"))], xscale="linear"),
            figspec.panel("Floors at beta = 1 and alpha = 0 (S=0.2, sigma^2=0.09, Gamma=1.5, G^2=80)", "E",
                          "floor of E f - f*",
                          [figspec.line("Theorem 3, beta = 1", Eg, floor3, "bound"),
                           figspec.line("Theorem 1, alpha = 0", Eg, floor1, "bound")])),
    )


# =====================================================================================================
# C5: exact contraction on identical quadratics
# =====================================================================================================
C5_CLAIM = Claim(
    "On identical quadratic clients with the error along the lambda_min-eigenvector, the per-round error ratio "
    "||wbar_{t+1,0} - w*||/||wbar_{t,0} - w*|| equals the lemma factor kappa evaluated at mu = lambda_min: "
    "Lemmas A3/B3 are exact multipliers of the error (not of its square).",
    r"\frac{\|\bar w_{t+1,0}-w_\star\|}{\|\bar w_{t,0}-w_\star\|}=\kappa(\mu=\lambda_{\min})",
    "buttaci2024, Appendix A Lemma 3 (eq. 24), Appendix B Lemma 3 (eq. 123)",
    "norm(macron(w)_(t+1,0) - w_star) / norm(macron(w)_(t,0) - w_star) = kappa(mu = lambda_min)")


@check("buttaci2024.c05", "On identical quadratics the per-round error ratio equals kappa(lambda_min) to 1e-9",
       "identity", "holds", statements=("Lemma A3", "Lemma B3"))
def c05_exact_contraction(ctx: Context, *, factors: dict = B.FACTORS, Es=(1, 5, 20), alphas=(0.0, 1.0),
                          betas=(0.1, 0.5, 0.9), rounds: int = 3, rtol: float = 1e-9) -> Result:
    """Claim 5: SC-Q1 (d = 5, C = 4, mu = 0.5, L = 2), deterministic, wbar_00 - w* along the lambda_min
    eigenvector; FedAvg, FedProx alpha in {0, 1}, ours beta in {0.1, 0.5, 0.9}; E in {1, 5, 20}; theorem steps."""
    prob = sc_q1(ctx.generator("problem"), mu=MU, L=L)
    H, c, _ = prob.numpy()
    lam, vecs = np.linalg.eigh(H[0])
    w0 = prob.w_star() + 10.0 * vecs[:, 0]
    labels, observed, predicted = [], [], []
    for E in Es:
        methods = ([theorem_method("fedavg", L, E)] + [theorem_method("fedprox", L, E, alpha=a) for a in alphas]
                   + [theorem_method("perturbed", L, E, beta=b) for b in betas])
        tr = run_local_rounds(prob.oracle(None), methods, prob.weights, f64(ctx, w0), T=rounds, E=E, R=1)
        err = (tr.wbar[:, :, 0] - f64(ctx, prob.w_star())).norm(dim=-1).cpu().numpy()  # [T+1, K]
        ratio = err[1:] / err[:-1]
        for j, m in enumerate(methods):
            kappa = float(B.factor(m.kind, "lemma", factors, mu=float(lam[0]), L=L, gamma=m.gamma, E=E, alpha=m.alpha,
                                   beta=m.beta))
            labels.append(f"{m.label}, E={E}")
            observed.append(ratio[:, j])
            predicted.append(np.full(rounds, kappa))
    observed, predicted = np.array(observed), np.array(predicted)
    v_id, i_id = identity_verdict(observed, predicted, rtol=rtol)
    v_sq, i_sq = deterministic_verdict(observed**2, predicted, rtol=1e-12)
    rel = np.abs(observed / predicted - 1).max(1)
    return result_for(
        ctx, C5_CLAIM, combine([v_id, v_sq]),
        observed={"settings": labels, "ratio": observed, "max_rel_error_per_setting": rel, "lambda_min": float(lam[0])},
        predicted={"kappa_lemma": predicted[:, 0], "tolerance": rtol},
        fit={"identity": i_id, "squared_ratio_below_kappa": i_sq},
        explanation=(f"Over {len(labels)} settings (three E, six methods) the observed per-round ratio "
                     f"{says(v_id.passed, 'equals', 'departs from')} kappa(lambda_min): largest relative difference "
                     f"{i_id['max_rel_error']:.1e} (tolerance {rtol:g}). "
                     + says(v_sq.passed, "The squared ratio, which is what Lemmas A3/B3 bound, is therefore kappa^2 <= kappa: "
                                         "the lemmas hold here with a factor kappa to spare per round.",
                            f"The squared ratio exceeds the factor in {i_sq['violations']} settings.")),
        figure=figspec.figure(
            figspec.panel("Observed per-round error ratio vs kappa(lambda_min) (SC-Q1)", "kappa(lambda_min) (lemma)",
                          "observed ratio", [figspec.line("observed (each method and E)", predicted[:, 0], observed[:, 0],
                                                          "observed"),
                                             figspec.line("equality", predicted[:, 0], predicted[:, 0], "reference")],
                          xscale="linear", yscale="linear"),
            figspec.panel("Relative error |observed/kappa - 1|", "kappa(lambda_min)", "relative error",
                          [figspec.line("observed", predicted[:, 0], np.maximum(rel, 1e-17), "observed"),
                           figspec.line(f"tolerance {rtol:g}", predicted[:, 0], rtol, "bound")], xscale="linear")),
        arrays={"ratios": observed},
    )


# =====================================================================================================
# C6: ordering of the lemma-level factors, and its vanishing at E = 1
# =====================================================================================================
C6_CLAIM = Claim(
    "At equal (gamma, E), the lemma factors order as kappa_ours(beta) < kappa_FedAvg < kappa_FedProx(alpha) for "
    "beta in (0,1), alpha > 0 and E >= 2, kappa_ours increases with beta and kappa_FedProx with alpha; at E = 1 "
    "kappa_ours = kappa_FedAvg = 1 - gamma mu exactly (the lemmas predict no advantage).",
    r"\kappa_{B3}(\beta)<(1-\gamma\mu)^E<\kappa_{A3}(\alpha)\ (E\ge2),\qquad \kappa_{B3}=\kappa_{\rm avg}=1-\gamma\mu\ (E=1)",
    "buttaci2024, Appendix A Lemma 3, Appendix B Lemma 3; Section 5 (discussion of eq. 9)",
    "kappa_(B 3)(beta) < (1 - gamma mu)^E < kappa_(A 3)(alpha) (E >= 2); kappa_(B 3) = 1 - gamma mu (E = 1)")


@check("buttaci2024.c06", "Lemma factors order ours < FedAvg < FedProx for E >= 2 and coincide at E = 1", "identity",
       "holds", statements=("Lemma A3", "Lemma B3", "eq. (9)"))
def c06_ordering(ctx: Context, *, factors: dict = B.FACTORS, mu_over_L=(1e-4, 1e-2, 0.25, 1.0), Es=(1, 2, 5, 10, 100),
                 betas=(0.1, 0.5, 0.9), alphas=(0.1, 1.0, 10.0)) -> Result:
    """Claim 6 on its grid, L = 1, with the common step gamma = 1/(2E(L + max alpha)) (within every lemma's
    condition); also the leading-order gap (E-1)(1-beta) mu^2/(8 L^2 E) at gamma = 1/(2LE) (docs/papers/buttaci2024.md §7 item 5)."""
    Lv = 1.0
    betas, alphas = np.asarray(betas), np.asarray(alphas)
    m, e = np.meshgrid(np.asarray(mu_over_L) * Lv, np.asarray(Es, dtype=float), indexing="ij")
    gam = 1 / (2 * e * (Lv + alphas.max()))
    at = {"mu": m[..., None], "gamma": gam[..., None], "E": e[..., None], "L": Lv}
    k_avg = B.factor("fedavg", "lemma", factors, **at)[..., 0]
    k_ours = B.factor("perturbed", "lemma", factors, **at, beta=betas)  # [mu, E, beta]
    k_prox = B.factor("fedprox", "lemma", factors, **at, alpha=alphas)  # [mu, E, alpha]
    ge2 = e >= 2
    gap_low = k_avg[..., None] - k_ours
    gap_high = k_prox - k_avg[..., None]
    v_low, i_low = deterministic_verdict(gap_low[ge2], 0.0, side="lower")
    v_high, i_high = deterministic_verdict(gap_high[ge2], 0.0, side="lower")
    nonpositive = int(np.sum(gap_low[ge2] <= 0) + np.sum(gap_high[ge2] <= 0))
    v_strict, _ = exact_zero_verdict(nonpositive)
    v_beta, _ = deterministic_verdict(np.diff(k_ours, axis=-1)[ge2], 0.0, side="lower")
    v_alpha, _ = deterministic_verdict(np.diff(k_prox, axis=-1)[ge2], 0.0, side="lower")
    e1 = ~ge2
    v_e1, i_e1 = identity_verdict(k_ours[e1], np.broadcast_to((1 - gam * m)[e1][:, None], k_ours[e1].shape), rtol=0,
                                  atol=1e-14)
    v_e1b, _ = identity_verdict(k_avg[e1], (1 - gam * m)[e1], rtol=0, atol=1e-15)
    g_thm = 1 / (2 * Lv * e)
    lead = B.factor("fedavg", "lemma", factors, mu=m, gamma=g_thm, E=e) - B.factor(
        "perturbed", "lemma", factors, mu=m, gamma=g_thm, E=e, beta=0.5)
    approx = (e - 1) * 0.5 * m**2 / (8 * Lv**2 * e)
    with np.errstate(divide="ignore", invalid="ignore"):
        lead_ratio = np.where(approx > 0, lead / approx, np.nan)
    verdict = combine([v_low, v_high, v_strict, v_beta, v_alpha, v_e1, v_e1b])
    Eax = np.asarray(Es, dtype=float)
    series = []
    for i, r in enumerate(mu_over_L):
        series.append(figspec.line(f"FedAvg - ours (beta=0.5), mu/L={r:g}", Eax, np.abs(gap_low[i, :, 1]), "observed"))
    for i, r in enumerate(mu_over_L):
        series.append(figspec.line(f"FedProx (alpha=1) - FedAvg, mu/L={r:g}", Eax, gap_high[i, :, 1], "reference"))
    return result_for(
        ctx, C6_CLAIM, verdict,
        observed={"mu_over_L": list(mu_over_L), "E": list(Es), "kappa_fedavg": k_avg, "kappa_ours": k_ours,
                  "kappa_fedprox": k_prox, "smallest_gap_ours": float(gap_low[ge2].min()),
                  "smallest_gap_fedprox": float(gap_high[ge2].min()), "E_is_1_max_abs_difference": i_e1["max_abs_error"],
                  "leading_order_gap_ratio_beta_0.5": lead_ratio},
        predicted={"leading_order_gap": "(E-1)(1-beta) mu^2/(8 L^2 E) at gamma = 1/(2LE)"},
        fit={"ours_below_fedavg": i_low, "fedavg_below_fedprox": i_high},
        explanation=(f"On the {ge2.sum() * (len(betas) + len(alphas))} grid points with E >= 2 the order "
                     f"{says(verdict.passed, 'holds strictly and is monotone in beta and alpha', 'fails somewhere')} "
                     f"(smallest gaps {gap_low[ge2].min():.2e} and {gap_high[ge2].min():.2e}); at E = 1 kappa_ours and "
                     f"kappa_FedAvg differ from 1 - gamma mu by at most {i_e1['max_abs_error']:.1e}. "
                     f"The advantage is tiny when mu << L: at mu/L = 1e-4 the gap is {gap_low[0, -1, 1]:.1e} even at E = 100."),
        finding=(f"The lemma-level advantage of the perturbed method over FedAvg is of order mu^2/L^2 and vanishes at "
                 f"E = 1 (Section 5's 'quantifiable speedup', eq. 9): at gamma = 1/(2LE) the gap kappa_avg - kappa_ours divided by (E-1)(1-beta) "
                 f"mu^2/(8 L^2 E) is {np.nanmin(lead_ratio[0]):.4f}-{np.nanmax(lead_ratio[0]):.4f} at mu/L = 1e-4."),
        figure=figspec.figure(figspec.panel("Gaps between the lemma factors (common gamma)", "E (local steps)",
                                            "kappa difference", series)),
    )


# =====================================================================================================
# C7: the relaxation chain from the lemmas to the theorems
# =====================================================================================================
C7_CLAIM = Claim(
    "At the theorems' steps, kappa_B3 <= 1 - mu/(beta mu + 2L) <= 1 - mu/((beta+2)L) and kappa_A3 <= 1 - mu/(3 alpha "
    "+ 2L + mu) <= 1 - mu/(3(alpha+L)), and both lemma factors are <= 1 - gamma mu.",
    r"\kappa_{B3}\le1-\tfrac{\mu}{\beta\mu+2L}\le1-\tfrac{\mu}{(\beta+2)L}"
    r",\quad \kappa_{A3}\le1-\tfrac{\mu}{3\alpha+2L+\mu}\le1-\tfrac{\mu}{3(\alpha+L)}",
    "buttaci2024, proofs of Theorems 1 and 3 (eqs. 48-50, 181-183); Lemmas A3 and B3",
    "kappa_(B 3) <= 1 - mu/(beta mu + 2L) <= 1 - mu/((beta+2)L); kappa_(A 3) <= 1 - mu/(3 alpha + 2L + mu) <= 1 - mu/(3(alpha+L))")


@check("buttaci2024.c07", "The relaxation chain lemma <= theorem before mu <= L <= theorem holds at the theorem steps",
       "bound", "holds", no_control="inequalities between the paper's contraction factors (formulas on a grid), not a "
                                    "property an algorithm could lack", space=S.C07_SPACE, objective=S.C07_OBJECTIVE,
       statements=("Theorem 1", "Theorem 3"))
def c07_relaxation_chain(ctx: Context, *, factors: dict = B.FACTORS, tight_ours: Bound = B.KAPPA_THM3_TIGHT,
                         theorem_ours: Bound = B.KAPPA_THM3, tight_prox: Bound = B.KAPPA_THM1_TIGHT,
                         theorem_prox: Bound = B.KAPPA_THM1, mu_over_L=(1e-4, 1e-2, 0.25, 1.0),
                         Es=(1, 2, 5, 10, 100), betas=(0.1, 0.5, 0.9), alphas=(0.0, 0.1, 1.0, 10.0)) -> Result:
    """Claim 7 on C6's grid, L = 1, each method at its theorem step. ``factors`` gives the lemma factors (the measured
    side); the bounds of the chain are keywords: ``tight_*`` (the theorem factor before mu <= L) and ``theorem_*``
    (eqs. 7, 8) for the perturbed method (ours) and FedProx."""
    factors = {**factors, ("perturbed", "tight"): tight_ours, ("perturbed", "theorem"): theorem_ours,
               ("fedprox", "tight"): tight_prox, ("fedprox", "theorem"): theorem_prox}
    Lv = 1.0
    m, e, b = np.meshgrid(np.asarray(mu_over_L) * Lv, np.asarray(Es, dtype=float), np.asarray(betas), indexing="ij")
    g_ours = 1 / (2 * Lv * e)
    ours = {lvl: B.factor("perturbed", lvl, factors, mu=m, L=Lv, gamma=g_ours, E=e, beta=b) for lvl in ("lemma", "tight", "theorem")}
    m2, e2, a2 = np.meshgrid(np.asarray(mu_over_L) * Lv, np.asarray(Es, dtype=float), np.asarray(alphas), indexing="ij")
    g_prox = 1 / (2 * e2 * (Lv + a2))
    prox = {lvl: B.factor("fedprox", lvl, factors, mu=m2, L=Lv, gamma=g_prox, E=e2, alpha=a2) for lvl in ("lemma", "tight", "theorem")}
    parts = {
        "ours: lemma <= tight": deterministic_verdict(ours["lemma"], ours["tight"], rtol=1e-12),
        "ours: tight <= theorem": deterministic_verdict(ours["tight"], ours["theorem"], rtol=1e-12),
        "ours: lemma <= 1 - gamma mu": deterministic_verdict(ours["lemma"], 1 - g_ours * m, rtol=1e-12),
        "FedProx: lemma <= tight": deterministic_verdict(prox["lemma"], prox["tight"], rtol=1e-12),
        "FedProx: tight <= theorem": deterministic_verdict(prox["tight"], prox["theorem"], rtol=1e-12),
        "FedProx: lemma <= 1 - gamma mu": deterministic_verdict(prox["lemma"], 1 - g_prox * m2, rtol=1e-12),
    }
    verdict = combine(v for v, _ in parts.values())
    x = np.asarray(mu_over_L)
    jE, jb, ja = list(Es).index(10) if 10 in Es else -1, 1, min(2, len(alphas) - 1)
    series = [figspec.line(f"ours beta={betas[jb]:g}: {lvl}", x, 1 - ours[lvl][:, jE, jb], "observed" if lvl == "lemma" else "bound")
              for lvl in ("lemma", "tight", "theorem")]
    series += [figspec.line(f"FedProx alpha={alphas[ja]:g}: {lvl}", x, 1 - prox[lvl][:, jE, ja], "observed" if lvl == "lemma" else "bound")
               for lvl in ("lemma", "tight", "theorem")]
    slack = {k: i["worst_ratio"] for k, (_, i) in parts.items()}
    shrink_ours = float((1 - ours["theorem"][0, jE, jb]) / (1 - ours["lemma"][0, jE, jb]))
    shrink_prox = float((1 - prox["theorem"][0, jE, ja]) / (1 - prox["lemma"][0, jE, ja]))
    return result_for(
        ctx, C7_CLAIM, verdict,
        observed={"worst_ratio_per_link": slack, "violations": {k: i["violations"] for k, (_, i) in parts.items()},
                  "grid_points": int(m.size + m2.size)},
        predicted={"chain": "lemma <= theorem before mu <= L <= theorem <= 1 - gamma mu (lemma)"},
        fit={k: i for k, (_, i) in parts.items()},
        explanation=(f"{says(verdict.passed, 'Every link of both chains holds', 'Some link of the chains fails')} on the "
                     f"{m.size + m2.size} grid points ({sum(i['violations'] for _, i in parts.values())} failures); the largest ratio of a "
                     f"factor to the next one is {max(v for v in slack.values() if v is not None):.6f} (1 at mu = L, "
                     f"where the relaxation mu <= L is an equality). At mu/L = {x[0]:g}, E = {Es[jE]}, the theorem factor keeps "
                     f"{shrink_ours:.3f} (ours, beta = {betas[jb]:g}) and {shrink_prox:.3f} (FedProx, alpha = {alphas[ja]:g}) "
                     "of the lemma's per-round progress 1 - kappa."),
        figure=figspec.figure(figspec.panel(f"Per-round progress 1 - factor at E = {Es[jE]}", "mu/L",
                                            "1 - contraction factor", series)),
    )


# =====================================================================================================
# C8: the predicted speedup (sympy audit): a relaxation artifact
# =====================================================================================================
C8_CLAIM = Claim(
    "In the experiments' regime mu << L (mu = lambda = 1e-4 and L >= 1, so mu/L <= 1e-4), the analysis supports the "
    "speedup of the perturbed method over FedAvg that eq. (9) displays: the abstract (paper line 13) says 'our procedure "
    "... achieves a quantifiable speedup concerning the exponential contraction factor in the strongly convex case "
    "compared with popular algorithms FedAvg and FedProx'; eq. (9) (Section 5, line 257) compares (1 - mu/((beta+2)L))^t "
    "with (1 - mu/(3L))^t, i.e. about 3/(beta+2) times FedAvg's per-round progress (1.2, 1.11 and 1.03 for beta = 0.5, "
    "0.7, 0.9); and line 314 says 'our algorithm has a faster contraction factor than FedAvg ... for comparable step "
    "sizes, which explains why it accelerates as we increase the perturbation by decreasing beta'.",
    r"\frac{\log(1-\mu/((\beta+2)L))}{\log(1-\mu/(3L))}\approx\frac{3}{\beta+2}\ \text{vs}\ "
    r"\frac{2L+\mu}{2L+\beta\mu}\approx1\quad(\mu/L\leq10^{-4})",
    "buttaci2024, abstract (line 13); Section 5, eq. (9) (line 257); Section 6 (line 314); Theorems 1 and 3",
    "log(1 - mu/((beta+2)L)) / log(1 - mu/(3L)) approx 3/(beta+2) \"vs\" (2L + mu)/(2L + beta mu) approx 1 "
    "quad (mu/L <= 10^(-4))")


@check("buttaci2024.c08", "For mu << L (the experiments' mu/L <= 1e-4) the speedup 3/(beta+2) of eq. (9) is an artifact "
       "of mu <= L: the proofs' factors support at most 1.00003", "erratum", "violated", statements=("eq. (9)",))
def c08_speedup_artifact(ctx: Context, *, claimed=B.SPEEDUP_THEOREM, supported=B.SPEEDUP_TIGHT,
                         betas=(0.5, 0.7, 0.9), experiment_mu_over_L: float = 1e-4, E: int = 10,
                         rtol: float = 0.01, regime=(1e-4, 1e-2, 0.25, 0.9, 1.0)) -> Result:
    """Eq. (9) against the proofs' own factors, in the experiments' regime: derive the limits as mu/L -> 0 of
    (a) the theorem-level speedup log(1 - mu/((beta+2)L))/log(1 - mu/(3L)) and (b) the one from the factors the
    proofs reach before the relaxation mu <= L, log(1 - mu/(beta mu + 2L))/log(1 - mu/(2L + mu)) (sympy); compare
    (b) with (a) at the experiments' mu/L = 1e-4 (tolerance 1%): the verdict. Report (c) the lemma-level speedup
    log kappa_B3/log kappa_avg at E = 10 and all three across ``regime`` (mu/L): (a) and (b) meet at mu = L (the
    relaxation is then an equality), so the artifact is a statement about mu << L only. The second argument is
    exact rational arithmetic at mu/L = 1/10^4, beta = 1/2, E = 10 (:func:`B.lemma_speedup_below_exact`). An erratum by
    DESIGN.md's rule on artefacts of a proof: the abstract (line 13), Section 6 (line 314) and the conclusions (line
    329) state the bounds' gap as a property of the algorithm."""
    audit = B.speedup_audit()
    x = np.logspace(-4, 0, 41)
    a = {b: claimed(x=x, beta=b) for b in betas}
    s = {b: supported(x=x, beta=b) for b in betas}
    c = {b: B.lemma_speedup(x, 1.0, b, E) for b in betas}
    at_a = np.array([float(claimed(x=experiment_mu_over_L, beta=b)) for b in betas])
    at_s = np.array([float(supported(x=experiment_mu_over_L, beta=b)) for b in betas])
    at_c = np.array([float(B.lemma_speedup(experiment_mu_over_L, 1.0, b, E)) for b in betas])
    verdict, info = identity_verdict(at_s, at_a, rtol=rtol)
    first_order = 1 + (1 - B.beta) * B.x_ratio / 2
    limits_ok = (audit["tight_limit"] == 1 and audit["gap_ratio_limit"] == 1 and audit["theorem_limit_is_claimed"]
                 and sp.simplify(audit["gap_ratio_first_order"] - first_order) == 0)
    lim_claimed = sp.limit(claimed.expr, B.x_ratio, 0)
    lim_supported = sp.limit(supported.expr, B.x_ratio, 0)
    table = [{"mu_over_L": r, "claimed": float(claimed(x=r, beta=betas[0])), "supported": float(supported(x=r, beta=betas[0])),
              "lemma_E": float(B.lemma_speedup(r, 1.0, betas[0], E))} for r in regime]
    exact = B.lemma_speedup_below_exact(str(experiment_mu_over_L), str(betas[0]), E, "1.001")
    assumptions = [Assumption("sympy derives the limits of the paper module's formulas", bool(limits_ok), None, "exact",
                              f"theorem ratio -> {audit['theorem_limit']}, tight ratio -> {audit['tight_limit']}, "
                              f"(2L+mu)/(2L+beta mu) = {audit['gap_ratio_first_order']} + O(x^2)")]
    series = []
    for b in betas:
        series += [figspec.line(f"(a) theorem, beta={b:g}", x, a[b], "bound"),
                   figspec.line(f"(b) before mu <= L, beta={b:g}", x, s[b], "observed"),
                   figspec.line(f"(c) lemma level E={E}, beta={b:g}", x, c[b], "observed"),
                   figspec.line(f"3/(beta+2) = {3 / (b + 2):.3f}", x, 3 / (b + 2), "reference")]
    verdict = apply_assumptions(verdict, assumptions)
    regime_text = "; ".join(f"mu/L = {t['mu_over_L']:g}: (a) {t['claimed']:.4f}, (b) {t['supported']:.5f}, "
                            f"(c) {t['lemma_E']:.5f}" for t in table)
    return result_for(
        ctx, C8_CLAIM, verdict,
        observed={"betas": list(betas), "supported_speedup_at_experiment": at_s, "lemma_speedup_at_experiment": at_c,
                  "supported_limit": str(lim_supported), "gap_ratio_first_order": str(audit["gap_ratio_first_order"]),
                  "regime_table_beta": betas[0], "regime_table": table,
                  "exact": {"gap_ratio": str(exact["gap_ratio"]), "lemma_speedup_below": str(exact["bound"]),
                            "holds_exactly": bool(exact["below"]), "integer_bits": exact["bits"]}},
        predicted={"claimed_speedup_at_experiment": at_a, "claimed_limit": str(lim_claimed),
                   "mu_over_L": experiment_mu_over_L},
        fit=info,
        explanation=(f"Sympy gives the theorem-level speedup's limit {lim_claimed} but the limit {lim_supported} for the "
                     f"speedup the proofs reach before relaxing with mu <= L. At mu/L = {experiment_mu_over_L:g} (the "
                     f"experiments' lambda = 1e-4 with L >= 1) the supported speedup is {', '.join(f'{v:.6f}' for v in at_s)} "
                     f"against the claimed {', '.join(f'{v:.3f}' for v in at_a)} for beta = "
                     f"{', '.join(f'{b:g}' for b in betas)}; the lemma level gives {', '.join(f'{v:.6f}' for v in at_c)}. "
                     f"The artifact is a statement about mu << L: for beta = {betas[0]:g}, {regime_text} ((a) and (b) "
                     "coincide at mu = L, where mu <= L is an equality)."),
        assumptions=assumptions,
        finding=erratum(
            f"For mu << L (the experiments' mu/L <= 1e-4) the speedup 3/(beta+2) that eq. (9) displays is an artifact of "
            f"relaxing the two proofs' factors unequally with mu <= L: the proofs' own factors support a speedup of at "
            f"most {at_s.max():.6f} there, not {at_a.max():.3f}, so they cannot explain the 30-round acceleration.",
            paper_says=("Abstract (line 13): 'our procedure, due to a suitably introduced adaptation in the update rule, "
                        "achieves a quantifiable speedup concerning the exponential contraction factor in the strongly "
                        "convex case compared with popular algorithms FedAvg and FedProx'; Section 5, eq. (9) (line 257): "
                        "(1 - mu/((beta+2)L))^t [Ours] <= (1 - mu/(3L))^t [FedAvg] <= (1 - mu/(3(alpha+L)))^t [FedProx]; "
                        "Section 6 (line 314): 'our algorithm has a faster contraction factor than FedAvg (alpha = 0) or "
                        "FedProx (alpha > 0) for comparable step sizes, which explains why it accelerates as we increase "
                        "the perturbation by decreasing beta'."),
            correction=("Eq. (9) is a true inequality between upper bounds, but its gap comes from the last step of the "
                        "proofs of Theorems 1 and 3: before using mu <= L they reach 1 - mu/(2L + mu) (FedAvg) and "
                        "1 - mu/(beta mu + 2L) (ours), whose log-rate ratio is, to first order in mu/L, (2L + mu)/(2L + "
                        "beta mu) = 1 + (1 - beta) mu/(2L) + O((mu/L)^2). For mu << L the analysis therefore supports no measurable speedup (the "
                        "lemma factors differ by (E-1)(1-beta) mu^2/(8 L^2 E) to leading order); the factor 3/(beta+2) is "
                        f"approached only as mu -> L (for beta = {betas[0]:g}: (b) = {table[-1]['supported']:.3f} and "
                        f"(c) = {table[-1]['lemma_E']:.3f} at mu = L, E = {E}). Regime: this erratum concerns mu << L, "
                        "the regime of the paper's experiments, not mu close to L. An erratum, not a remark "
                        "(DESIGN.md, "
                        "'Artefacts of a proof'): the paper turns the comparison of bounds into a property of the "
                        "algorithm (the abstract's 'achieves a quantifiable speedup', line 314's 'explains why it "
                        "accelerates', the conclusions' 'our algorithm provides faster exponential contraction "
                        "than the "
                        "chosen baseline', line 329)."),
            witness=(f"mu/L = {experiment_mu_over_L:g} (lambda = 1e-4, L >= 1), E = {E}, gamma = 1/(2LE): for beta = "
                     f"{', '.join(f'{b:g}' for b in betas)} the eq. (9) ratio is {', '.join(f'{v:.4f}' for v in at_a)}, "
                     f"the proofs' factors before mu <= L give {', '.join(f'{v:.6f}' for v in at_s)} and the lemma "
                     f"factors {', '.join(f'{v:.6f}' for v in at_c)}."),
            second_argument=(f"Exact rational arithmetic at mu/L = 1/10^4, beta = 1/2, E = {E} (no logarithms, no "
                             f"floating point): the proofs' gap ratio (2L + mu)/(2L + beta mu) = {exact['gap_ratio']} "
                             f"exactly, and the lemma factors kappa_B3 and kappa_avg (rationals) satisfy kappa_B3^1000 > "
                             f"kappa_avg^1001 ({'true' if exact['below'] else 'FALSE'}, integers of {exact['bits']:,} bits), "
                             "i.e. log kappa_B3/log kappa_avg < 1.001 < 6/5. Sympy: the eq. (9) ratio tends to 3/(beta+2) "
                             "and the proofs' ratio to 1 as mu/L -> 0, with (2L+mu)/(2L+beta mu) = 1 + (1-beta)x/2 + O(x^2)."),
        ) if not verdict.passed and exact["below"] else "",
        figure=figspec.figure(figspec.panel("Predicted speedup of the perturbed method over FedAvg (rounds ratio)",
                                            "mu/L", "log-contraction ratio", series, yscale="linear")),
    )


# =====================================================================================================
# C9: observed contraction on SC-Q2 against the predictions (the chapter's figure)
# =====================================================================================================
C9_CLAIM = Claim(
    "On heterogeneous quadratic clients the exact per-round contraction of D_t, rho(M)^2, stays below the lemma factor, "
    "which stays below the theorem factors, for FedAvg, FedProx and the perturbed method at the theorem steps; the "
    "stochastic runs contract no slower than the lemma factor; and the observed rates order as eq. (9) says, "
    "ours <= FedAvg <= FedProx.",
    r"\rho(M)^2\le\kappa_{\rm lemma}\le\kappa_{\rm thm},\qquad \rho_{\rm ours}\le\rho_{\rm avg}\le\rho_{\rm prox}",
    "buttaci2024, Lemmas A3/B3, Theorems 1/3, eq. (9) (and Figs. 8-9: 'consistently improves over FedAvg')",
    "rho(M)^2 <= kappa_\"lemma\" <= kappa_\"thm\"; rho_\"ours\" <= rho_\"avg\" <= rho_\"prox\"")


@check("buttaci2024.c09", "Observed per-round contraction vs lemma and theorem factors for the three methods (SC-Q2)",
       "bound", "holds", space=S.C09_SPACE, objective=S.C09_OBJECTIVE, statements=("Theorem 1", "Theorem 3", "eq. (9)"))
def c09_observed_contraction(ctx: Context, *, factors: dict = B.FACTORS, lemma_fedavg: Bound = B.KAPPA_AVG,
                             lemma_fedprox: Bound = B.KAPPA_A3, lemma_ours: Bound = B.KAPPA_B3, Es=(1, 2, 5, 10, 20),
                             alpha: float = 1.0, beta: float = 0.5, sigma2: float = 0.09, T: int = 30,
                             snr: float = 10.0) -> Result:
    """Claim 9: SC-Q2 (d = 4, C = 5, mu = 0.5, L = 2). Exact rho(M) for FedAvg, FedProx (alpha = 1) and ours
    (beta = 0.5) at the theorem steps for E in {1, 2, 5, 10, 20}. Stochastic runs (sigma^2 = 0.09, h = 0 so that
    the constant-step bias is 0 and E D_t - D_inf decays asymptotically like rho^{2t}): the per-round rate fitted on
    the later half of the rounds where E D_t - D_inf > 10 SE (the first rounds mix in faster modes), with D_inf and
    the whole expected curve computed exactly (Lyapunov);
    the Monte Carlo mean must match that exact curve (else the simulation is in doubt: inconclusive).

    The order ours < FedAvg (strictly: exact rho(M)^2 below FedAvg's by more than a relative 1e-9) is the property the
    perturbation is claimed to add. Control: the unperturbed step (beta = 1) in place of ours must
    fail that strict order (it is FedAvg, c03), else the comparison could not tell the perturbation from no change
    (verify.fit.controlled)."""
    factors = {**factors, ("fedavg", "lemma"): lemma_fedavg, ("fedprox", "lemma"): lemma_fedprox,
               ("perturbed", "lemma"): lemma_ours}
    R = ctx.reps(200, 800)
    prob = sc_q2(ctx.generator("problem"), h=0.0, noise_var=sigma2)
    H, c, P = prob.numpy()
    w_star = prob.w_star()
    w0 = w_star + 3.0
    names = ("FedAvg", f"FedProx alpha={alpha:g}", f"ours beta={beta:g}")
    rows, v_exact, v_rate, mc_ok, speed = [], [], [], [], []
    fitted = {n: [] for n in names}
    for E in Es:
        methods = [theorem_method("fedavg", L, E), theorem_method("fedprox", L, E, alpha=alpha),
                   theorem_method("perturbed", L, E, beta=beta)]
        run = run_quadratic(ctx, prob, methods, w0, T=T, E=E, R=R, stream=f"noise E={E}")
        rhos = []
        for j, (name, m) in enumerate(zip(names, methods)):
            rmap = B.QuadraticRoundMap.build(H, c, P, gamma=m.gamma, E=E, alpha=m.alpha, beta=m.beta)
            rho2 = rmap.rho() ** 2
            rhos.append(rmap.rho())
            vals = {"mu": MU, "L": L, "gamma": m.gamma, "E": E, "alpha": m.alpha, "beta": m.beta}
            lvl = {k: float(B.factor(m.kind, k, factors, **vals)) for k in ("lemma", "tight", "theorem")}
            v_exact.append(deterministic_verdict([rho2, lvl["lemma"], lvl["tight"]], [lvl["lemma"], lvl["tight"], lvl["theorem"]],
                                                 rtol=1e-12)[0])
            mean, cov = rmap.moments(w0, T, sigma2)
            exact_D = ((mean - w_star) ** 2).sum(-1) + np.trace(cov, axis1=1, axis2=2)
            D_inf = float(np.trace(rmap.stationary(sigma2)[1]))
            Y = run.D[:, j, :].T - D_inf  # [R, T+1]
            se = run.D[:, j, :].std(1, ddof=1) / math.sqrt(R)
            ok = np.where(Y.mean(0) > snr * se)[0]
            window = ok[: np.argmax(np.diff(ok) > 1) + 1] if np.any(np.diff(ok) > 1) else ok
            window = window[len(window) // 2:]  # its later half: the faster modes of the first rounds have died out
            z = family_z(T + 1)
            v_mc, _ = mc_identity_verdict(run.D[1:, j, :].mean(1), se[1:], exact_D[1:], z, resolution=np.inf)
            mc_ok.append(v_mc.passed)
            v_r, i_r = geometric_rate_verdict(window, Y[:, window], lvl["lemma"], n_boot=1000,
                                              rng=ctx.numpy_rng(f"bootstrap {name} {E}"))
            v_rate.append(v_r)
            fitted[name].append(i_r)
            exact_rate = float(np.exp(np.polyfit(window, np.log(exact_D[window] - D_inf), 1)[0]))
            rows.append({"E": E, "method": name, "rho2": rho2, **{f"kappa_{k}": v for k, v in lvl.items()},
                         "fitted_rate": i_r["rate"], "fitted_rate_ci": i_r["rate_ci"], "fit_rounds": [int(window[0]), int(window[-1])],
                         "exact_curve_rate_same_window": exact_rate, "D_inf": D_inf})
        speed.append({"E": E, "observed_exact": math.log(rhos[2]) / math.log(rhos[0]),
                      "observed_fitted": math.log(fitted[names[2]][-1]["rate"]) / math.log(fitted[names[0]][-1]["rate"]),
                      "theorem": float(B.SPEEDUP_THEOREM(x=MU / L, beta=beta)),
                      "tight": float(B.SPEEDUP_TIGHT(x=MU / L, beta=beta)),
                      "lemma": float(B.lemma_speedup(MU, L, beta, E))})
    rho2 = {n: np.array([r["rho2"] for r in rows if r["method"] == n]) for n in names}
    v_order, i_order = deterministic_verdict(np.concatenate([rho2[names[2]], rho2[names[0]]]),
                                             np.concatenate([rho2[names[0]], rho2[names[1]]]), rtol=1e-12)
    unperturbed = np.array([B.QuadraticRoundMap.build(H, c, P, gamma=m.gamma, E=E, alpha=m.alpha, beta=1.0).rho() ** 2
                            for E in Es for m in [theorem_method("perturbed", L, E, beta=1.0)]])
    with aside():  # the strict order is a comparison, not the factors' bound: it speaks for the verdict, not its strength
        v_strict, _ = deterministic_verdict(rho2[names[2]], rho2[names[0]] * (1 - 1e-9))
        v_ctrl, _ = deterministic_verdict(unperturbed, rho2[names[0]] * (1 - 1e-9))
    control_field = {"what": "the unperturbed step (beta = 1) in place of beta = {beta:g}: exact rho(M)^2 strictly below "
                             "FedAvg's".replace("{beta:g}", f"{beta:g}"),
                     "verdict": v_ctrl.value,
                     "detail": ("rho(M)^2 at beta = 1 over FedAvg's: " + ", ".join(
                         f"E = {E}: {u / a:.12f}" for E, u, a in zip(Es, unperturbed, rho2[names[0]]))
                                + f"; at beta = {beta:g}: " + ", ".join(
                         f"{o / a:.4f}" for o, a in zip(rho2[names[2]], rho2[names[0]])))}
    assumptions = [Assumption("the Monte Carlo mean of D_t matches its exact expectation (Lyapunov recursion)",
                              all(mc_ok), None, "exact",
                              f"{sum(mc_ok)} of {len(mc_ok)} (E, method) curves within family-wise z standard errors")]
    verdict_claim = apply_assumptions(combine(v_exact + v_rate + [v_order, v_strict]), assumptions)
    verdict = controlled(verdict_claim, v_ctrl)
    Eax = np.asarray(Es, dtype=float)
    panels = []
    for n in names:
        sel = [r for r in rows if r["method"] == n]
        panels.append(figspec.panel(
            f"{n}: per-round contraction of D_t (SC-Q2)", "E (local steps)", "per-round factor",
            [figspec.line("observed, exact rho(M)^2", Eax, [r["rho2"] for r in sel], "observed"),
             figspec.interval("observed, fitted on stochastic runs (finite window)", Eax, [r["fitted_rate"] for r in sel],
                              [r["fitted_rate_ci"][0] for r in sel], [r["fitted_rate_ci"][1] for r in sel],
                              f"95% bootstrap CI of the fitted rate, {R} replicates"),
             figspec.line("lemma kappa", Eax, [r["kappa_lemma"] for r in sel], "bound"),
             figspec.line("theorem before mu <= L", Eax, [r["kappa_tight"] for r in sel], "bound"),
             figspec.line("theorem (eq. 9)", Eax, [r["kappa_theorem"] for r in sel], "bound")],
            yscale="linear"))
    s5 = next(s for s in speed if s["E"] == 5) if 5 in Es else speed[-1]
    gap_fit = max(abs(r["fitted_rate"] - r["exact_curve_rate_same_window"]) for r in rows)
    return result_for(
        ctx, C9_CLAIM, verdict,
        observed={"rows": rows, "speedup": speed, "replicates": R, "ordering": i_order},
        predicted={"speedup_predictions": {"theorem": s5["theorem"], "tight": s5["tight"], "lemma": s5["lemma"]}},
        fit={"fitted_rates": fitted, "claim_verdict": verdict_claim.value},
        control=control_field,
        explanation=(f"rho(M)^2 <= kappa_lemma <= theorem factors {says(combine(v_exact).passed, 'for every E and method', 'fails somewhere')}, "
                     f"the stochastic runs' fitted rate is {says(combine(v_rate).passed, 'below', 'not always below')} kappa_lemma, "
                     f"and the exact rates {says(v_order.passed, 'order', 'do not order')} ours <= FedAvg <= FedProx. At E = {s5['E']} the observed "
                     f"speedup of ours over FedAvg (log-rate ratio) is {s5['observed_exact']:.3f} (exact) and "
                     f"{s5['observed_fitted']:.3f} (fitted), against the predictions {s5['theorem']:.3f} (theorem), "
                     f"{s5['tight']:.3f} (before mu <= L) and {s5['lemma']:.3f} (lemma). The fitted rates lie below rho(M)^2 "
                     "because E D_t - D_inf reaches the Monte Carlo noise before the slowest mode dominates; fitting the exact "
                     f"expected curve on the same rounds gives the same rates (largest difference {gap_fit:.3f}). "
                     f"Control: {control_field['detail']} ({'fails the strict order, as it must' if not v_ctrl.passed else 'beats FedAvg too: the comparison cannot tell the perturbation from no change'})."),
        assumptions=assumptions,
        figure=figspec.figure(*panels),
        arrays={"rho2": np.array([r["rho2"] for r in rows])},
    )


# =====================================================================================================
# C16: Lemma B3 as printed at its largest admissible step (and the stability threshold, a remark)
# =====================================================================================================
LEMMA_B3_WORDS = B.LEMMA_B3_TEXT
C16_CLAIM = Claim(
    LEMMA_B3_WORDS + " Checked as printed, with A, at the largest admissible step gamma = 1/(2L) and at Theorem 3's "
                     "step 1/(2LE), E = 20, on identical (SC-Q1) and heterogeneous (SC-Q2) quadratic clients.",
    r"\gamma_t\leq\min\{\frac{1}{2L},\frac{1}{\beta\mu}\}\Rightarrow\mathbb{E}\|\bar w_{t+1,0}-w_\star\|^2\leq\kappa\,"
    r"\mathbb{E}\|\bar w_{t,0}-w_\star\|^2+A,\ \kappa\leq1-\mu\gamma_t",
    "buttaci2024, Appendix B, Lemma 3 (eqs. 122-123, paper lines 823-835); Appendix C, Figs. 12-13",
    "gamma_t <= min{1/(2L), 1/(beta mu)} => EE norm(macron(w)_(t+1,0) - w_star)^2 <= kappa EE norm(macron(w)_(t,0) - "
    "w_star)^2 + A, kappa <= 1 - mu gamma_t")


@check("buttaci2024.c16", "Lemma B3 as printed (kappa D_t + A) at its largest admissible step 1/(2L), E = 20: holds, "
       "vacuously; beta = 0.1 diverges (a remark on the step condition)", "bound", "holds", no_control=(
    "Lemma B3 is a per-round inequality of the paper's analysis of one method, checked on deterministic runs: no "
    "property an algorithm could lack is claimed"), statements=("Lemma B3", "Fig. 12"))
def c16_stability(ctx: Context, *, factor=B.KAPPA_B3, additive=B.A_B3, gamma: float | None = None,
                  betas=(0.1, 0.5, 0.9), E: int = 20, rounds: int = 4, rtol: float = 1e-9) -> Result:
    """Lemma B3 (Appendix B, eqs. 122-123) as printed: D_{t+1} <= kappa D_t + A_t and kappa <= 1 - mu gamma, with
    mu = 0.5, L = 2, E = 20, beta in {0.1, 0.5, 0.9}, at ``gamma`` (default Lemma B3's largest admissible step
    1/(2L) = 0.25) and at Theorem 3's step 1/(2LE). Deterministic runs (sigma = 0) on SC-Q1 (identical clients,
    Gamma = 0, started along the L-eigenvector) and heterogeneous SC-Q2 (h = 1, Gamma exact), ``rounds`` rounds;
    G^2 of Assumption 3 is measured per round (the largest ||g_i||^2 at the gradient points of rounds t and t-1,
    the smallest value the lemma's proof uses, so the test is stricter than with the whole trajectory's G^2).
    ``additive=None`` drops A (a planted wrong reading: the lemma's kappa as a bare contraction factor).

    Reported beside the verdict (Claim 16, 7 item 6): the round multiplier r(L) = 1 - (1/beta)(1 - (1 - gamma
    beta L)^E) along the L-eigenvector, the exact rate rho(M) of both problems, how vacuous the bound is (A_t/D_t
    and (kappa D_t + A_t)/D_{t+1}), rho(M)^2 against kappa at the theorem step, and the sufficient condition for
    stability (beta >= 1/2 or E gamma L < 2, given gamma beta L <= 1) on a grid."""
    gamma = 1.0 / (2.0 * L) if gamma is None else gamma
    steps = {"largest admissible": gamma, "Theorem 3": 1.0 / (2.0 * L * E)}
    q1 = sc_q1(ctx.generator("sc-q1"), mu=MU, L=L)
    q2 = sc_q2(ctx.generator("sc-q2"), h=1.0)
    H1, c1, P1 = q1.numpy()
    H2, c2, P2 = q2.numpy()
    lam, vecs = np.linalg.eigh(H1[0])
    starts = {"SC-Q1": q1.w_star() + vecs[:, -1], "SC-Q2": np.asarray(q2.w_star()) + 1.0}
    verdicts, rows, errs = [], [], {}
    sim_ratio = None
    for step_name, g in steps.items():
        methods = [perturbed(g, b) for b in betas]
        kappa = np.array([float(factor(mu=MU, beta=b, gamma=g, E=E)) for b in betas])
        v_k, _ = deterministic_verdict(kappa, np.full(len(betas), 1 - MU * g))  # kappa <= 1 - mu gamma_t
        verdicts.append(v_k)
        for name, prob in (("SC-Q1", q1), ("SC-Q2", q2)):
            cst = prob.constants()
            run = run_quadratic(ctx, prob, methods, starts[name], T=rounds, E=E, R=1, stream=f"c16 {name} {step_name}")
            D = run.D[:, :, 0]  # [T+1, K]
            if name == "SC-Q1" and step_name == "largest admissible":
                errs = np.sqrt(D)
                sim_ratio = errs[1:] / errs[:-1]
            for j, b in enumerate(betas):
                after = (np.arange(rounds) >= 1).astype(float)
                if additive is None:
                    A_t = np.zeros(rounds)
                else:
                    A_t = np.broadcast_to(np.asarray(additive(mu=MU, L=L, gamma=g, gamma_prev=g, E=E, beta=b,
                                                              S=cst["S"].value, sigma2=0.0, Gamma=cst["Gamma"].value,
                                                              G2=run.G2_round[:, j], after0=after), dtype=float),
                                          (rounds,))
                rhs = kappa[j] * D[:-1, j] + A_t
                v, info = deterministic_verdict(D[1:, j], rhs, rtol=rtol)
                verdicts.append(v)
                rho = B.QuadraticRoundMap.build(*(prob.numpy()), gamma=g, E=E, beta=b).rho()
                rows.append({"step": step_name, "gamma": g, "problem": name, "beta": b, "kappa_B3": float(kappa[j]),
                             "rho": float(rho), "rho2_le_kappa": bool(rho**2 <= kappa[j]), "D": D[:, j],
                             "A": A_t.copy(), "G2_round": run.G2_round[:, j],
                             "min_A_over_D": float(np.min(A_t / D[:-1, j])),
                             "min_bound_over_next": float(np.min(rhs / D[1:, j])), "violations": info["violations"]})
    # r_ours(L) = Lemma B3's kappa formula at mu -> L: the exact round multiplier of the method along the L-eigenvector
    # (B.KAPPA_B3, not the ``factor`` under test: a planted factor must not change what the simulation is compared with)
    r_L = np.array([float(B.KAPPA_B3(mu=L, beta=b, gamma=gamma, E=E)) for b in betas])
    v_sim, i_sim = identity_verdict(sim_ratio, np.broadcast_to(np.abs(r_L), sim_ratio.shape), rtol=rtol)
    admissible = all(gamma <= B.lemma_step_limit("B3", L, MU, beta_v=b) for b in betas)
    # the sufficient condition of docs/papers/buttaci2024.md §2.6 on a grid of (beta, E, gamma): max over [mu, L] of |r| < 1 where it holds
    grid_b, grid_E, grid_g = np.meshgrid(np.linspace(0.05, 1, 20), np.arange(1, 41), np.linspace(0.01, 0.5, 20) / L,
                                         indexing="ij")
    lam_grid = np.linspace(MU, L, 31)
    r_grid = np.abs(B.KAPPA_B3(mu=lam_grid[:, None, None, None], beta=grid_b, gamma=grid_g, E=grid_E)).max(0)
    cond = ((grid_b >= 0.5) | (grid_E * grid_g * L < 2)) & (grid_g * grid_b * L <= 1)
    sufficient_failures = int(np.sum(cond & (r_grid >= 1)))
    assumptions = [Assumption(f"gamma = {gamma:g} satisfies Lemma B3's condition for every beta", admissible, gamma, "exact",
                              "gamma <= min{1/(2L), 1/(beta mu)}"),
                   Assumption("the simulation's per-round ratio equals |r_ours(L)| (SC-Q1, deterministic)", v_sim.passed,
                              i_sim["max_rel_error"], "exact", "relative error of the simulated ratio"),
                   Assumption("sigma = 0 and Gamma exact (quadratic clients); G^2 measured along the run (Assumption 3)",
                              True, None, "exact", "G^2 per round: the largest ||g_i||^2 at the gradient points of rounds "
                                                   "t and t-1")]
    verdict = apply_assumptions(combine(verdicts), assumptions)
    big = [r for r in rows if r["step"] == "largest admissible"]
    thm = [r for r in rows if r["step"] == "Theorem 3"]
    q1_big = [r for r in big if r["problem"] == "SC-Q1"]
    q2_big = [r for r in big if r["problem"] == "SC-Q2"]
    vac = min(r["min_A_over_D"] for r in big)
    vac_next = min(r["min_bound_over_next"] for r in big)
    vac_thm = min(r["min_A_over_D"] for r in thm)
    diverging = [r for r in q2_big if r["rho"] > 1]
    thm_ok = all(r["rho2_le_kappa"] for r in thm)
    lam_plot = np.linspace(MU, L, 61)
    held = verdict.passed
    rho_q2_text = ", ".join(f"{r['rho']:.3f}" for r in q2_big)
    return result_for(
        ctx, C16_CLAIM, verdict,
        observed={"betas": list(betas), "r_ours_L": r_L, "rho_sc_q1": [r["rho"] for r in q1_big],
                  "rho_sc_q2": [r["rho"] for r in q2_big], "simulated_ratio": sim_ratio[-1],
                  "min_A_over_D_largest_step": vac, "min_bound_over_next_largest_step": vac_next,
                  "theorem_step_rho2_le_kappa": thm_ok, "min_A_over_D_theorem_step": vac_thm, "violations": int(sum(r["violations"] for r in rows)),
                  "rows": [{k: (v.tolist() if isinstance(v, np.ndarray) else v) for k, v in r.items()} for r in rows],
                  "sufficient_condition_failures": sufficient_failures,
                  "sufficient_condition_grid_points": int(cond.sum())},
        predicted={"kappa_B3": [r["kappa_B3"] for r in q1_big], "one_minus_mu_gamma": 1 - MU * gamma, "gamma": gamma,
                   "theorem_step": steps["Theorem 3"], "E": E, "additive": None if additive is None else additive.name},
        fit={"simulation": i_sim},
        explanation=(
            (f"Lemma B3 as printed held in every round, for every beta, at both steps and on both problems "
             f"({len(rows)} runs of {rounds} rounds), and kappa <= 1 - mu gamma held. At the largest admissible step "
             f"gamma = {gamma:g} it holds only vacuously: A_t >= {vac:,.0f} D_t, so kappa D_t + A_t exceeds D_(t+1) by a "
             f"factor of at least {vac_next:,.0f}, although the error grows: r(L) = "
             f"{', '.join(f'{v:.3f}' for v in r_L)} and rho(M) on SC-Q2 = {rho_q2_text} "
             f"for beta = {', '.join(f'{b:g}' for b in betas)}. At Theorem 3's step 1/(2LE) = {steps['Theorem 3']:g}, "
             f"rho(M)^2 <= kappa_B3 {says(thm_ok, 'in every case', 'not in every case')} (there too A_t >= {vac_thm:,.0f} D_t "
             "in these noise-free runs: with G^2 measured along the trajectory, A's G^2 terms are of the order of "
             "E (lambda/L)^2 D_t, so the lemma's content is its rate kappa, which x01 certifies). ") if held else
            (f"Some round exceeded kappa D_t + A_t ({sum(r['violations'] for r in rows)} rounds; "
             f"A {'dropped' if additive is None else 'as given'}), or kappa > 1 - mu gamma. "))
            + f"The simulation reproduces |r(L)| to {i_sim['max_rel_error']:.1e}.",
        assumptions=assumptions,
        finding=remark(
            f"Lemma B3 holds at its largest admissible step gamma = {gamma:g} (E = {E}) only vacuously: its additive term "
            f"is at least {vac:,.0f} times D_t there (the bound exceeds the next distance by a factor >= {vac_next:,.0f}), "
            f"because G^2 of Assumption 3 grows with the error. The step condition gamma <= min{{1/(2L), 1/(beta mu)}} does "
            f"not ensure stability: at beta = {betas[0]:g} the round multiplies the error along the L-eigenvector by "
            f"{r_L[0]:.2f} (rho(M) = {q2_big[0]['rho']:.2f} on heterogeneous SC-Q2"
            f"{', diverging' if diverging else ''}) while kappa_B3 = {q1_big[0]['kappa_B3']:.3f}: an overshoot below -1 "
            "when E gamma L is large and beta small, a concrete mechanism for the spikes of Figs. 12-13 (which the paper "
            "attributes to the O(G^2/beta^2) term). This is a remark on the step condition, not an error of the lemma; at "
            f"Theorem 3's step 1/(2LE) kappa_B3 lies in [1 - mu/(2L), 1) and rho(M)^2 <= kappa_B3 "
            f"{says(thm_ok, 'in every case run', 'not in every case')}. The sufficient condition beta >= 1/2 or "
            f"E gamma L < 2 (given gamma beta L <= 1) held on all {int(cond.sum())} grid points where it applies "
            f"({sufficient_failures} failures).") if held else "",
        figure=figspec.figure(
            figspec.panel(f"|round multiplier| along eigenvalue lambda (gamma = {gamma:g}, E = {E})", "lambda",
                          "|r_ours(lambda)|",
                          [figspec.line(f"beta={b:g}", lam_plot, np.abs(B.KAPPA_B3(mu=lam_plot, beta=b, gamma=gamma, E=E)), "observed")
                           for b in betas] + [figspec.line("stability limit 1", lam_plot, 1.0, "reference")],
                          xscale="linear"),
            figspec.panel(f"Lemma B3 per round at gamma = {gamma:g} (SC-Q2): D_(t+1) and kappa D_t + A_t", "round t",
                          "squared distance",
                          [figspec.line(f"D_(t+1), beta={r['beta']:g}", np.arange(1, rounds + 1), r["D"][1:], "observed")
                           for r in q2_big]
                          + [figspec.line(f"kappa D_t + A_t, beta={r['beta']:g}", np.arange(1, rounds + 1),
                                          r["kappa_B3"] * r["D"][:-1] + r["A"], "bound") for r in q2_big],
                          xscale="linear", yscale="log")),
    )
