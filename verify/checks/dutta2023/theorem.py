"""dutta2023 checks c10-c15: Theorem 1 (eq. (10)) inside its hypotheses, deterministic and stochastic, on least squares and
on a non-convex PL problem (phi = r^2 + 1.5 sin^2 r); the floor's scalings in sigma^2, alpha, the mini-batch size and the
local steps; Remark 1's O(1/k) claim.

Our reading: docs/papers/dutta2023.md §2, 4 and checks C10-C15. Problem: LS-in-regime (least squares,
N = 50, l = 2000, d = 5; mu/L ~ 0.88, so condition (9) allows every paper f <= 10) with exact L and mu of
the honest agents, realizable labels (2f-redundancy holds, checked), noise model N1 (N2 in C13), attacks
A1-A6 of docs/papers/dutta2023.md §2.5, Byzantine agents 0..f-1 (exactly f, as the proof assumes). Replicates are runs of the
gradient noise (and of the random attack A1) on one instance: Theorem 1 bounds the expectation over those.

Floors are measured from x_0 = x*_H (the stationary regime does not depend on the start, and the
transient from x_0 = 0 would cost hundreds of rounds) as the mean gap over the last half of the run.
"""
from __future__ import annotations

import math

import numpy as np
import torch

from analytic.bounds import Bound
from analytic.errors import require
from analytic.numbers import magnitude
from analytic.papers import dutta2023 as D
from analytic.redundancy import quadratic_redundancy
from verify import figspec
from verify.checks.dutta2023.common import (
    ATTACK_NAMES,
    N_AGENTS,
    Config,
    condition9_assumption,
    ls_instance,
    record_rounds,
    semilog_window,
    simulate,
    tail_mean,
)
from verify.engine import Context
from verify.normal_draws import randn
from verify.problems import dutta2023_problems as P
from verify.fit import (
    apply_assumptions,
    bound_verdict,
    combine,
    controlled,
    deterministic_verdict,
    power_law,
    rate_verdict,
    ratio_of_means_verdict,
    slope_fit,
)
from verify.checks.dutta2023 import search as S
from verify.registry import check, register_paper, result_for
from verify.result import Assumption, Claim, Result, erratum, remark
from verify.strength import aside

register_paper(D.PAPER)

#: Step-size rules of Claim 10: the proof's own requirement (corrected, docs/papers/dutta2023.md §4.4) and eq. (8) as printed.
ALPHA_RULES = {"mu^2/(158 L^3 T)": lambda mu, L, T: mu**2 / (158 * L**3 * T),
               "mu/(72 L^2 T) (eq. (8))": lambda mu, L, T: mu / (72 * L**2 * T)}

THEOREM_CLAIM = Claim(
    D.THEOREM_1.statement,
    r"\mathbb E[e_k]\le\Big(1-\frac{\alpha\mu\mathcal T}{36}\Big)^k e_0+\frac{180L\mathcal T\alpha\sigma^2}{\mu}"
    r"+\frac{72\mathcal T\sigma^2 f}{\mu|\mathcal H|}",
    D.THEOREM_1.source,
    D.THEOREM_1.typst,
)


def _values(inst_mu: float, inst_L: float, *, alpha, T, f, H, sigma, e0, k) -> dict:
    return {"alpha": alpha, "T": T, "f": f, "H": H, "sigma": sigma, "e0": e0, "k": k, "mu": inst_mu, "L": inst_L}


def _redundancy_assumption(ctx: Context, inst, f: int) -> Assumption:
    """2f-redundancy of the honest agents (exact enumeration for f <= 2, sampled + adversarial otherwise)."""
    G, z, s = inst.problem.gram_numpy(slice(f, None))
    h = np.einsum("nij,nj->ni", G, z)
    c = np.einsum("ni,ni->n", h, z) + s
    rep = quadratic_redundancy(G, h, c, f=f, n_total=N_AGENTS, rng=ctx.numpy_rng(f"redundancy/{f}"),
                               n_sample=ctx.pick(2000, 20_000))
    return Assumption(f"2f-redundancy at f = {f} (Definition I.1)", rep.holds, rep.gap,
                      "exact" if rep.method == "exact enumeration" else "estimate",
                      f"{rep.method}: {rep.checked} of {rep.total_subsets} subsets; {rep.reason}")


# =========================================================================================================
# The non-convex PL problem of c10 and c11: the paper's subject, inside Theorem 1's hypotheses
# =========================================================================================================
#: The sine weight of the non-convex member of problem (11)'s family phi(r) = r^2 + kappa sin^2 r: kappa = 1.5 is
#: non-convex (phi''(pi/2) = 2 - 2 kappa = -1) yet keeps mu/L = 0.151, so condition (9) admits f = 2 at N = 50
#: (Karimi et al.'s kappa = 3, P1-nc, has mu/L = 0.022: f = 0 only).
NC_KAPPA = 1.5
#: The non-convex shell of phi = r^2 + 1.5 sin^2 r: phi''(r) = 2 + 3 cos 2r < 0 for cos 2r < -2/3.
NC_SHELL = (0.5 * math.acos(-2.0 / 3.0), math.pi - 0.5 * math.acos(-2.0 / 3.0))


def nonconvex_instance(ctx: Context, *, kappa: float = NC_KAPPA, dim: int = 5, radius: float = 2.2):
    """N = 50 agents with q^i(x) = phi(||x - x°||), phi = r^2 + kappa sin^2 r (isotropic data A^{iT} A^i = I, realizable:
    every agent's minimiser is x°, so 2f-redundancy holds for every f by construction), x° at distance ``radius`` from
    x_0 = 0 in a random direction. Exact constants: L = 2 + 2 kappa (sup |phi''| and phi'/r), mu = the isotropic PL
    constant inf_r phi'(r)^2/(2 phi(r)) (quadratic growth holds with 2 >= mu)."""
    v = randn(dim, generator=ctx.generator("data"), dtype=ctx.dtype, device=ctx.torch_device)
    x_opt = radius * v / torch.linalg.vector_norm(v)
    G = torch.eye(dim, dtype=ctx.dtype, device=ctx.torch_device).expand(N_AGENTS, dim, dim).clone()
    prob = P.IsotropicAgents(G[None], x_opt.expand(N_AGENTS, dim).clone()[None],
                            torch.zeros(1, N_AGENTS, dtype=ctx.dtype, device=ctx.torch_device), P.sin_link(kappa))
    mu = D.isotropic_pl_constant(kappa)[0]
    return prob, x_opt, D.curvature_bound_sin(kappa), mu


def _radius(gap: np.ndarray, kappa: float) -> np.ndarray:
    """||x - x°|| from the gap phi(r) (phi is increasing): bisection, vectorised."""
    lo, hi = np.zeros_like(gap), np.full_like(gap, 50.0)
    for _ in range(80):
        mid = 0.5 * (lo + hi)
        above = D.phi_sin(mid, kappa) > gap
        hi, lo = np.where(above, mid, hi), np.where(above, lo, mid)
    return 0.5 * (lo + hi)


# =========================================================================================================
# C10: deterministic, within hypotheses
# =========================================================================================================
@check("dutta2023.c10", "Theorem 1 with exact gradients: e_k <= (1 - alpha mu T/36)^k e_0 under every attack, on least "
       "squares and on a non-convex PL problem", "bound", "holds", space=S.C10_SPACE, objective=S.C10_OBJECTIVE,
       statements=("Theorem 1",))
def c10_deterministic(ctx: Context, *, theory: Bound = D.THEOREM_1, log_rate: Bound = D.THEOREM_1_LOG_RATE,
                      fs=(0, 2, 5, 8, 10), Ts=(1, 3), attacks=("A1", "A2", "A3", "A4", "A5", "A6"),
                      rounds: int | None = None, nc_kappa: float = NC_KAPPA, nc_f: int = 2, nc_rounds: int | None = None,
                      control: str = "mean", rtol: float = 1e-9, atol: float = 1e-12) -> Result:
    """Claim 10 with sigma = 0, where eq. (10) reads e_k <= rho_bd^k e_0 with rho_bd = 1 - alpha mu T/36, equivalently
    -ln(e_k/e_0)/k >= -ln rho_bd (``log_rate``) at every round k >= 1. For every f, T, step-size rule and attack:
    (i) e_k <= bound(k)(1 + 1e-9) + 1e-12 e_0 at every round, and the smallest average log-contraction
    min_k -ln(e_k/e_0)/k is at least -ln rho_bd; (ii) the log-rate of the linear phase (semilog slope over rounds K/4..K,
    above round-off) is at least -ln rho_bd. The margin is the smallest ratio measured/bound log-rate (docs/papers/dutta2023.md §4.2: about 36
    to 72, so the rate holds loosely); the power: the bound's log-rate multiplied by that ratio would be violated.

    Two problems: LS-in-regime (least squares, f in ``fs``, both step rules of ALPHA_RULES) and, since Theorem 1 is about
    non-convex PL objectives, phi(r) = r^2 + kappa sin^2 r with kappa = 1.5 (q^i(x) = phi(||x - x°||): non-convex,
    PL with mu/L = 0.151 exactly, f = ``nc_f`` = 2, the largest f condition (9) allows) at the printed step (8)
    mu/(72 L^2 T), from x_0 at distance 2.2 from x°, run until every run has crossed the non-convex shell
    r in (1.15, 1.99) (checked: else inconclusive; the corrected step mu^2/(158 L^3 T) is 14 x slower and would need
    14 x the rounds).

    Control: Theorem 1 is a claim about Algorithm 1's filter, so the same harness with the plain mean
    (``control``) in place of CE under the constant attack A6 (which does not vanish at x*) must violate (i) on both
    problems (verify.fit.controlled: if it holds too, the verdict is inconclusive)."""
    K = rounds or ctx.pick(150, 2000)
    Knc = nc_rounds or ctx.pick(1200, 3000)
    rec = record_rounds(K, dense=True)
    rows_info, assumptions = [], []
    within_8 = True
    cols = {"excess": [], "lam_min": [], "lam_win": [], "alpha": [], "T": [], "mu": []}
    ctrl_cols = {k: [] for k in cols}
    ctrl_rows = []  # (problem, e_K/e_0, smallest average log-contraction, the bound's, K) of the control runs
    fig_series = []

    def measure(gap, rounds, sl, configs, mu, L, f, into):
        """Rows of one sigma = 0 trajectory: excess over (10), the smallest average log-contraction and the
        linear phase's log-rate; returns the bound [rows, rounds]."""
        col = lambda attr: np.concatenate([np.full(s.stop - s.start, getattr(c, attr), dtype=float)  # noqa: E731
                                           for c, s in zip(configs, sl)])[:, None]
        e0 = gap[:, :1]
        at = _values(mu, L, alpha=col("alpha"), T=col("T"), f=f, H=N_AGENTS - f, sigma=0.0, e0=e0, k=rounds[None, :])
        bound = np.broadcast_to(np.asarray(theory(**at), dtype=float), gap.shape)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            ratio = gap / e0
            into["excess"].append((ratio - (bound / e0 * (1 + rtol) + atol)).max(1))  # <= 0 iff (10) holds at every round
            lam = -np.log(np.maximum(ratio[:, 1:], np.finfo(float).tiny)) / rounds[None, 1:]
        into["lam_min"].append(np.where(np.isfinite(lam), lam, -np.inf).min(1))
        win = []
        for r in range(gap.shape[0]):
            g = gap[r]
            if not np.all(np.isfinite(g)) or g[-1] >= g[0]:  # a run that does not contract has no linear phase
                win.append(-np.inf)
                continue
            idx = semilog_window(rounds, g, float(e0[r, 0]), upper=1.0, start_frac=0.25)
            win.append(-math.log(10) * slope_fit(rounds[idx], g[None, idx], log_x=False, deterministic=True).slope)
        into["lam_win"].append(np.array(win))
        into["alpha"].append(col("alpha")[:, 0]), into["T"].append(col("T")[:, 0])
        into["mu"].append(np.full(gap.shape[0], mu))
        return bound

    # least squares, f in fs, both step rules, every attack; the control (mean, A6) beside them at the largest f
    f_ctrl = max(fs)
    for f in fs:
        inst = ls_instance(ctx, n_byz=f)
        configs = [Config(a, alpha=rule(inst.mu, inst.L, T), T=T, reps=2 if a == "A1" else 1, label=name)
                   for a in (attacks if f > 0 else (None,)) for T in Ts for name, rule in ALPHA_RULES.items()]
        ctrl = ([Config("A6", control, alpha=ALPHA_RULES["mu/(72 L^2 T) (eq. (8))"](inst.mu, inst.L, Ts[0]), T=Ts[0],
                        label="control")] if f == f_ctrl and f > 0 else [])
        within_8 &= all(cf.alpha <= inst.mu / (72 * inst.L**2 * cf.T) * (1 + 1e-12) for cf in configs)
        tr, slices = simulate(ctx, inst.problem, configs + ctrl, f=f, n_byz=f, rounds=K, stream=f"run/f={f}", record=rec)
        n = slices[len(configs) - 1].stop
        bound = measure(tr.gap[:n], tr.rounds, slices[:len(configs)], configs, inst.mu, inst.L, f, cols)
        if ctrl:
            measure(tr.gap[n:], tr.rounds, [slice(0, 1)], ctrl, inst.mu, inst.L, f, ctrl_cols)
            ctrl_rows.append(("least squares", float(tr.gap[n, -1] / tr.gap[n, 0]), float(ctrl_cols["lam_min"][-1][0]),
                              float(log_rate(alpha=ctrl[0].alpha, mu=inst.mu, T=ctrl[0].T)), K))
        e0 = tr.gap[:n, :1]
        for cf, sl in zip(configs, slices):
            gap = tr.gap[sl]
            rows_info.append({"problem": "LS", "f": f, "attack": cf.attack, "T": cf.T, "alpha_rule": cf.label,
                              "alpha": cf.alpha, "rho_bound": float(D.rho_bound(cf.alpha, inst.mu, cf.T)),
                              "e_K_over_e0": float((gap[:, -1] / e0[sl, 0]).max()),
                              "bound_K_over_e0": float(bound[sl.start, -1] / e0[sl.start, 0])})
            if cf.T == Ts[-1] and cf.label == list(ALPHA_RULES)[0] and f == max(fs):
                fig_series.append(figspec.line(f"f = {f}, {ATTACK_NAMES[cf.attack]}", tr.rounds, gap[0] / gap[0, 0], "observed"))
                if not any(s["role"] == "bound" for s in fig_series):
                    fig_series.append(figspec.line("bound (10), sigma = 0", tr.rounds, bound[sl.start] / e0[sl.start, 0], "bound"))
        assumptions.append(condition9_assumption(f, N_AGENTS, inst.mu, inst.L))
    n_ls = sum(len(x) for x in cols["excess"])
    # the non-convex PL problem, f = nc_f, the printed step (8), every attack; its control beside it
    prob, _, L_nc, mu_nc = nonconvex_instance(ctx, kappa=nc_kappa)
    nc_cfg = [Config(a, alpha=mu_nc / (72 * L_nc**2 * T), T=T, label="nc") for a in attacks for T in Ts]
    nc_ctrl = [Config("A6", control, alpha=mu_nc / (72 * L_nc**2 * Ts[0]), T=Ts[0], label="control")]
    tn, sn = simulate(ctx, prob, nc_cfg + nc_ctrl, f=nc_f, n_byz=nc_f, rounds=Knc, stream="run/nonconvex",
                      record=record_rounds(Knc, dense=True))
    bound_nc = measure(tn.gap[:len(nc_cfg)], tn.rounds, sn[:len(nc_cfg)], nc_cfg, mu_nc, L_nc, nc_f, cols)
    measure(tn.gap[len(nc_cfg):], tn.rounds, [slice(0, 1)], nc_ctrl, mu_nc, L_nc, nc_f, ctrl_cols)
    ctrl_rows.append(("non-convex", float(tn.gap[-1, -1] / tn.gap[-1, 0]), float(ctrl_cols["lam_min"][-1][0]),
                      float(log_rate(alpha=nc_ctrl[0].alpha, mu=mu_nc, T=nc_ctrl[0].T)), Knc))
    r_end = _radius(tn.gap[:len(nc_cfg), -1], nc_kappa)
    for cf, sl in zip(nc_cfg, sn):
        rows_info.append({"problem": f"phi = r^2 + {nc_kappa:g} sin^2 r", "f": nc_f, "attack": cf.attack, "T": cf.T,
                          "alpha_rule": "mu/(72 L^2 T) (eq. (8))", "alpha": cf.alpha,
                          "rho_bound": float(D.rho_bound(cf.alpha, mu_nc, cf.T)),
                          "e_K_over_e0": float(tn.gap[sl.start, -1] / tn.gap[sl.start, 0]),
                          "bound_K_over_e0": float(bound_nc[sl.start, -1] / tn.gap[sl.start, 0]),
                          "final_radius": float(r_end[sl.start])})
    assumptions.append(condition9_assumption(nc_f, N_AGENTS, mu_nc, L_nc))
    assumptions.append(Assumption("non-convex PL problem: phi''(pi/2) = 2 - 2 kappa < 0; PL with mu exact", 2 - 2 * nc_kappa < 0,
                                  mu_nc, "exact", f"phi = r^2 + {nc_kappa:g} sin^2 r: mu = {mu_nc:.5f}, L = {L_nc:g}"))
    assumptions.append(Assumption("every non-convex run crosses the non-convex shell", bool((r_end < NC_SHELL[0]).all()),
                                  float(r_end.max()), "exact", f"||x_K - x°|| <= {r_end.max():.3g} < {NC_SHELL[0]:.3f} "
                                  f"for all {len(nc_cfg)} runs (start 2.2, K = {Knc})"))
    inst_max = ls_instance(ctx, n_byz=max(fs))
    assumptions.append(Assumption("step size within eq. (8): alpha <= mu/(72 L^2 T)", within_8, None, "exact",
                                  "both rules: mu^2/(158 L^3 T) <= mu/(72 L^2 T) since mu <= L"))
    assumptions.append(_redundancy_assumption(ctx, inst_max, max(fs)))
    assumptions.append(Assumption("exactly f Byzantine agents, exact gradients (sigma = 0)", True, 0.0, "exact", "by construction"))

    def atoms(c):
        a = {k: np.concatenate(v) for k, v in c.items()}
        at = {"alpha": a["alpha"], "T": a["T"], "mu": a["mu"]}
        out = [deterministic_verdict(a["excess"], 0.0, "upper"),
               deterministic_verdict(a["lam_min"], log_rate, at=at, rtol=rtol),
               deterministic_verdict(a["lam_win"], log_rate, at=at, rtol=rtol)]
        with np.errstate(divide="ignore", invalid="ignore"):
            return out, a, a["lam_win"] / np.asarray(log_rate(**at), dtype=float), a["lam_min"] / np.asarray(log_rate(**at), dtype=float)

    parts, A, tight, tight_min = atoms(cols)
    claim_v = combine(v for v, _ in parts)
    with aside():  # the control is not the claim: its atoms do not speak for the verdict's strength
        ctrl_parts, C, _, _ = atoms(ctrl_cols)
    v_ctrl = combine(v for v, _ in ctrl_parts[:2])
    control_field = {"what": f"the plain mean ({control}) in place of CE under the constant vector 1e3 1, sigma = 0: "
                             f"least squares at f = {f_ctrl}, T = {Ts[0]}, and the non-convex problem at f = {nc_f}",
                     "verdict": v_ctrl.value,
                     "detail": "; ".join(f"{p}: e_K/e_0 = {x:.3g} after {k} rounds (smallest average log-contraction "
                                         f"{lm:.3g} per round against the bound's {lb:.3g})" for p, x, lm, lb, k in ctrl_rows)}
    verdict = apply_assumptions(controlled(claim_v, v_ctrl), assumptions)
    worst = max(r["e_K_over_e0"] / r["bound_K_over_e0"] for r in rows_info)
    t_ls, t_nc = tight[:n_ls], tight[n_ls:]
    tm = float(np.min(tight_min))
    return result_for(
        ctx, THEOREM_CLAIM, verdict,
        observed={"configs": rows_info, "tightness_log_rate_ratio": {"min": float(t_ls.min()), "median": float(np.median(t_ls)),
                                                                      "max": float(t_ls.max())},
                  "nonconvex": {"kappa": nc_kappa, "mu": mu_nc, "L": L_nc, "f": nc_f, "rounds": Knc,
                                "largest_final_radius": float(r_end.max()),
                                "tightness_log_rate_ratio": {"min": float(t_nc.min()), "max": float(t_nc.max())}},
                  "smallest_log_contraction_over_bound": tm, "rounds": K, "worst_final_ratio_to_bound": worst},
        predicted={"rho_bound": [r["rho_bound"] for r in rows_info], "rtol": rtol, "atol": atol},
        fit={"checks": len(parts), "failed": sum(not v.passed for v, _ in parts), "claim_verdict": claim_v.value,
             "excess": parts[0][1], "log_contraction": parts[1][1], "linear_phase": parts[2][1]},
        control=control_field,
        explanation=(f"Over {len(rows_info)} configurations (least squares: f in {list(fs)}, T in {list(Ts)}, two step sizes, "
                     f"{K} rounds; phi = r^2 + {nc_kappa:g} sin^2 r, non-convex PL: f = {nc_f}, T in {list(Ts)}, step (8), "
                     f"{Knc} rounds, every run crossing the non-convex shell to radius <= {r_end.max():.2g}; attacks "
                     f"{', '.join(ATTACK_NAMES[a] for a in attacks)}), the gap never exceeds (1 - alpha mu T/36)^k e_0. "
                     "The bound is loose: the "
                     f"average log-contraction is at least {tm:.0f} x the bound's at every round, and the linear phase's "
                     f"log-rate is {np.median(t_ls):.0f} x (from {t_ls.min():.0f} to {t_ls.max():.0f}) the bound's on least "
                     f"squares and {t_nc.min():.0f} to {t_nc.max():.0f} x on the non-convex problem. Control: "
                     f"{control_field['detail']} ({v_ctrl.value})"
                     + ("." if controlled(claim_v, v_ctrl).passed or not claim_v.passed else
                        ": the mean is not harmed, so the verdict cannot be holds.")
                     if claim_v.passed else
                     f"The gap exceeds the bound in {sum(not v.passed for v, _ in parts)} of {len(parts)} comparisons "
                     f"(largest final ratio {worst:.3g}, smallest log-contraction {tm:.3g} x the bound's)."),
        assumptions=assumptions,
        finding=(remark(f"Theorem 1's linear rate holds with exact gradients on least squares and on a non-convex PL problem "
                        f"but is loose: every run contracts at least {tm:.0f} x faster in log-rate than 1 - alpha mu T/36 "
                        "(the 1/36 of eq. (10) against local gradient descent's ~2)")
                 if claim_v.passed else ""),
        figure=figspec.figure(
            figspec.panel(f"Semilog e_k/e_0, least squares, f = {max(fs)}, T = {Ts[-1]}, alpha = mu^2/(158 L^3 T), sigma = 0",
                          "round k", r"$e_k/e_0$", fig_series, "linear", "log"),
            figspec.panel(f"Semilog e_k/e_0, phi = r^2 + {nc_kappa:g} sin^2 r, f = {nc_f}, T = {Ts[0]}, step (8), sigma = 0",
                          "round k", r"$e_k/e_0$",
                          [figspec.line(ATTACK_NAMES[c.attack], tn.rounds, tn.gap[s][0] / tn.gap[s][0, 0], "observed")
                           for c, s in zip(nc_cfg, sn) if c.T == Ts[0]]
                          + [figspec.line(f"plain mean, {ATTACK_NAMES['A6']} (control)", tn.rounds,
                                          tn.gap[sn[-1]][0] / tn.gap[sn[-1]][0, 0], "reference"),
                             figspec.line("bound (10), sigma = 0", tn.rounds, bound_nc[0] / tn.gap[0, 0], "bound")],
                          "linear", "log")),
    )


# =========================================================================================================
# C11: stochastic, within hypotheses
# =========================================================================================================
def _settling(Y: np.ndarray, rounds: np.ndarray, K: int) -> tuple[float, float, bool]:
    """(late, mid, settled) of runs started at x*_H: the mean gap over the last quarter of the rounds, over the third
    quarter, and whether the floor has settled: the rise from the third to the last quarter is below 10% or within two
    standard errors of its replicate spread (window means of R replicates fluctuate by several per cent)."""
    q3, q4 = (rounds >= 0.5 * K) & (rounds < 0.75 * K), rounds >= 0.75 * K
    late_r, mid_r = Y[:, q4].mean(1), Y[:, q3].mean(1)
    late, mid = float(late_r.mean()), float(mid_r.mean())
    if not mid > 0:
        return late, mid, False
    se = float(np.std(late_r - mid_r, ddof=1) / math.sqrt(len(late_r))) if len(late_r) > 1 else float("inf")
    return late, mid, bool(abs(late - mid) < max(0.1 * mid, 2 * se))


@check("dutta2023.c11", "Theorem 1 with noisy gradients: the mean gap stays under eq. (10) at every round, on least squares "
       "and on a non-convex PL problem", "bound", "holds", statements=("Theorem 1",))
def c11_stochastic(ctx: Context, *, theory: Bound = D.THEOREM_1, fs=None, attacks=None, Ts=(1, 3),
                   sigma_factors=(0.1, 1.0, 10.0), floor_target: float = 1e-3, rounds: int | None = None,
                   floor_rounds: int | None = None, step_rule: str = "mu/(72 L^2 T) (eq. (8))", nc_kappa: float = NC_KAPPA,
                   nc_f: int = 2, nc_sigma: float = 1.0, nc_rounds: int | None = None, control: str = "mean") -> Result:
    """Claim 11 at the printed step size: Theorem 1 as stated allows alpha = mu/(72 L^2 T) (eq. (8)), the largest step it
    admits (``step_rule``: a key of ALPHA_RULES; "mu^2/(158 L^3 T)" is what the proof's corrected steps need).

    Least squares (LS-in-regime), noise N1 with sigma_0 chosen so that the floor E_inf of (10) is ``floor_target`` e_0 at
    the largest f and T: runs from x_0 = 0 with sigma in {0.1, 1, 10} sigma_0 (``rounds``) test (10) through the
    transient; runs from x_0 = x*_H (e_0 = 0, so (10) reads E e_k <= E_inf) test the floor itself and give the settled
    floor / E_inf: without attack in the same ``rounds``, under attack over ``floor_rounds`` (about six relaxation times
    of the Byzantine floor at this step, so that it settles: the last quarter's mean within 10% of the third quarter's,
    or within two standard errors; reported).
    The non-convex PL problem of c10 (phi = r^2 + 1.5 sin^2 r, f = ``nc_f`` = 2, step (8), T = 1, CE evasion, noise with
    E||noise||^2 = ``nc_sigma``^2): from x_0 at distance 2.2 (the runs cross the non-convex shell r in (1.15, 1.99)) and
    from x*_H, over ``nc_rounds`` (about six relaxation times 1/(alpha phi''(0)) = 477 rounds: the floor settles).
    The replicate mean must satisfy (10) at every recorded round (bootstrap CI); the reconstructed bound of docs/papers/dutta2023.md §4.4 is
    evaluated too (reported).

    Control: the same noisy harness on least squares with the plain mean (``control``) in place of CE under the
    constant attack A6 (f = max fs, sigma_0, from x_0 = 0) must violate (10) (verify.fit.controlled).

    Expected holds, loosely: (10)'s floor 72 T sigma^2 f/(mu |H|) overstates the settled Byzantine floor by orders of
    magnitude (docs/papers/dutta2023.md §4.2): the settled floor of an attack CE keeps is about f^2 sigma^2/(2 |H|^2 phi''(0) T) against
    72 T sigma^2 f/(mu |H|), more than 10^3 apart for any f condition (9) allows. So the weakest comparison is vacuous: a
    floor cut to 0.01 E_inf still holds, which the Result reports as its power (a bound scaled by that much would be
    violated) and a remark as the looseness."""
    fs = fs or ctx.pick((0, 10), (0, 2, 5, 8, 10))
    attacks = attacks or ctx.pick(("A3",), ("A1", "A2", "A3", "A4", "A5", "A6"))
    K = rounds or ctx.pick(300, 3000)
    Kf = floor_rounds or ctx.pick(1800, 6000)
    Knc = nc_rounds or ctx.pick(3000, 6000)
    R = ctx.reps(10, 12)
    require(step_rule in ALPHA_RULES, "step_rule", f"one of {sorted(ALPHA_RULES)}, got {step_rule!r}")
    rule_name, rule = step_rule, ALPHA_RULES[step_rule]
    parts, info_rows, assumptions, fig = [], [], [], []
    rng = ctx.numpy_rng("bootstrap")
    ref_inst = ls_instance(ctx, n_byz=max(fs))
    zero = torch.zeros(1, ref_inst.problem.dim, dtype=ctx.dtype, device=ctx.torch_device)
    e0_ref = float(ref_inst.problem.honest_average(max(fs)).gap(zero)[0])
    a_ref = rule(ref_inst.mu, ref_inst.L, max(Ts))
    unit = float(D.THEOREM_1_FLOOR(alpha=a_ref, T=max(Ts), f=max(fs), H=N_AGENTS - max(fs), sigma=1.0, mu=ref_inst.mu,
                                   L=ref_inst.L))
    sigma0 = math.sqrt(floor_target * e0_ref / unit)
    d = ref_inst.problem.dim

    def judge(tr, sl, *, problem, f, a, T, s, st, alpha, mu, L, KK, figure):
        """(10) at every recorded round for one configuration's rows; the floor's settling for runs from x*_H."""
        Y = tr.gap[sl]
        at = _values(mu, L, alpha=alpha, T=T, f=f, H=N_AGENTS - f, sigma=s, e0=float(Y[:, 0].mean()), k=tr.rounds)
        v, b = bound_verdict(Y, theory, values=at, rng=rng)
        parts.append(v)
        E_inf = float(D.THEOREM_1_FLOOR(**{key: at[key] for key in ("alpha", "T", "f", "H", "sigma", "mu", "L")}))
        recon = np.asarray(D.RECONSTRUCTED(**at), dtype=float)
        late, mid, settled = _settling(Y, tr.rounds, KK)
        with np.errstate(divide="ignore", invalid="ignore"):  # a planted bound without a floor is 0 at the start x*_H
            worst_b = float(np.nanmax(b["mean"][1:] / b["bound"][1:]))
        info_rows.append({"problem": problem, "f": f, "attack": a, "T": T, "sigma": s, "start": st, "alpha": alpha,
                          "rounds": KK, "worst_ratio_to_bound": worst_b, "E_inf": E_inf,
                          "late_gap_over_E_inf": late / E_inf if st == "x*" else None,
                          "rise_over_second_half": late / mid - 1 if st == "x*" else None,
                          "settled": settled if st == "x*" else None,
                          "points_above_reconstructed": int((b["mean"] > recon).sum())})
        if figure:
            fig.append(figspec.observed(f"{problem}, from {st}, sigma = {s:.3g}", np.maximum(tr.rounds, 1), Y,
                                        rng=ctx.numpy_rng("figure")))
            fig.append(figspec.line(f"(10), {problem}, from {st}", np.maximum(tr.rounds, 1), b["bound"], "bound"))

    ctrl_v, ctrl_info = None, {}
    for f in fs:
        inst = ls_instance(ctx, n_byz=f)
        x_star = inst.problem.honest_average(f).x_star[0]
        atk = attacks if f > 0 else (None,)
        # transient: from x_0 = 0 at every sigma, K rounds; the control (mean, A6) beside them at the largest f. The floor
        # from x*_H: without attack it settles within K rounds (same run); the Byzantine floor needs floor_rounds
        plan = [(a, T, s, "0") for a in atk for T in Ts for s in sigma_factors]
        floor_plan = [(a, T, 1.0, "x*") for a in atk for T in Ts]
        same_run = f == 0
        plan = plan + (floor_plan if same_run else [])
        configs = [Config(a, alpha=rule(inst.mu, inst.L, T), T=T, std=P.coordinate_std(s * sigma0, d), reps=R)
                   for a, T, s, _ in plan]
        ctrl = ([Config("A6", control, alpha=rule(inst.mu, inst.L, Ts[0]), T=Ts[0], std=P.coordinate_std(sigma0, d),
                        reps=R)] if f == max(fs) and f > 0 else [])
        starts = torch.cat([(x_star if st == "x*" else torch.zeros_like(x_star)).expand(R, -1) for *_, st in plan]
                           + [torch.zeros_like(x_star).expand(R, -1) for _ in ctrl])
        tr, slices = simulate(ctx, inst.problem, configs + ctrl, f=f, n_byz=f, rounds=K, stream=f"run/f={f}",
                              record=record_rounds(K, tail=0.5, stride=5), x0=starts)
        for (a, T, s, st), cf, sl in zip(plan, configs, slices):
            judge(tr, sl, problem="LS", f=f, a=a, T=T, s=s * sigma0, st=st, alpha=cf.alpha, mu=inst.mu, L=inst.L, KK=K,
                  figure=f == max(fs) and T == max(Ts) and a == atk[-1] and s == 1.0)
        if ctrl:
            Yc = tr.gap[slices[-1]]
            at = _values(inst.mu, inst.L, alpha=ctrl[0].alpha, T=Ts[0], f=f, H=N_AGENTS - f, sigma=sigma0,
                         e0=float(Yc[:, 0].mean()), k=tr.rounds)
            with aside():  # the control is not the claim
                ctrl_v, cb = bound_verdict(Yc, theory, values=at, rng=rng)
            ctrl_info = {"f": f, "final_over_bound": float(cb["mean"][-1] / cb["bound"][-1]),
                         "final_over_e0": float(cb["mean"][-1] / cb["mean"][0])}
        if not same_run:
            fcfg = [Config(a, alpha=rule(inst.mu, inst.L, T), T=T, std=P.coordinate_std(sigma0, d), reps=R)
                    for a, T, _, _ in floor_plan]
            tf, sf = simulate(ctx, inst.problem, fcfg, f=f, n_byz=f, rounds=Kf, stream=f"run/f={f}/floor",
                              record=record_rounds(Kf, tail=0.5, stride=5), x0=x_star)
            for cf, sl in zip(fcfg, sf):
                judge(tf, sl, problem="LS", f=f, a=cf.attack, T=cf.T, s=sigma0, st="x*", alpha=cf.alpha, mu=inst.mu,
                      L=inst.L, KK=Kf, figure=f == max(fs) and cf.T == max(Ts) and cf.attack == atk[-1])
        assumptions.append(condition9_assumption(f, N_AGENTS, inst.mu, inst.L))
    # the non-convex PL problem: CE evasion, T = 1, from x_0 (through the non-convex shell) and from x*_H, one run
    prob, x_opt, L_nc, mu_nc = nonconvex_instance(ctx, kappa=nc_kappa)
    a_nc = mu_nc / (72 * L_nc**2)
    nc_cfg = [Config("A3", alpha=a_nc, T=1, std=P.coordinate_std(nc_sigma, prob.dim), reps=R) for _ in range(2)]
    x0 = torch.cat([torch.zeros_like(x_opt).expand(R, -1), x_opt.expand(R, -1)])
    tn, sn = simulate(ctx, prob, nc_cfg, f=nc_f, n_byz=nc_f, rounds=Knc, stream="run/nonconvex",
                      record=record_rounds(Knc, tail=0.5, stride=5), x0=x0)
    for st, sl in zip(("0", "x*"), sn):
        judge(tn, sl, problem=f"phi = r^2 + {nc_kappa:g} sin^2 r", f=nc_f, a="A3", T=1, s=nc_sigma, st=st, alpha=a_nc,
              mu=mu_nc, L=L_nc, KK=Knc, figure=st == "x*")
    r_nc = _radius(tn.gap[sn[0]].mean(0), nc_kappa)
    crossed = int(tn.rounds[np.argmax(r_nc < NC_SHELL[0])]) if (r_nc < NC_SHELL[0]).any() else None
    assumptions.append(condition9_assumption(nc_f, N_AGENTS, mu_nc, L_nc))
    assumptions.append(Assumption("the non-convex runs from x_0 cross the non-convex shell", crossed is not None,
                                  float(r_nc[-1]), "exact", f"radius of the mean gap {r_nc[0]:.3g} -> {r_nc[-1]:.3g} "
                                  f"(shell ({NC_SHELL[0]:.3f}, {NC_SHELL[1]:.3f}))"))
    assumptions.append(Assumption("noise N1: E||noise||^2 = sigma^2 exactly, unbiased", True, sigma0, "exact", "planted"))
    assumptions.append(Assumption(f"step alpha = {rule_name}: within eq. (8) as printed", True, a_ref, "exact",
                                  "Theorem 1's printed hypothesis; the proof's corrected steps need mu^2/(158 L^3 T)"))
    assumptions.append(_redundancy_assumption(ctx, ref_inst, max(fs)))
    claim_v = combine(parts)
    control_field = None
    if ctrl_v is not None:
        control_field = {"what": f"the plain mean ({control}) in place of CE under the constant vector 1e3 1, least "
                                 f"squares, f = {ctrl_info['f']}, sigma_0, T = {Ts[0]}, from x_0 = 0",
                         "verdict": ctrl_v.value,
                         "detail": f"E e_K = {ctrl_info['final_over_bound']:.3g} x the bound (10) at K = {K} "
                                   f"({ctrl_info['final_over_e0']:.3g} e_0)"}
        claim_v_c = controlled(claim_v, ctrl_v)
    else:  # no attacked run (fs = (0,)): nothing the filter could resist, no control to run
        claim_v_c = claim_v
    verdict = apply_assumptions(claim_v_c, assumptions)
    starred = [r for r in info_rows if r["start"] == "x*"]
    floors = np.array([r["late_gap_over_E_inf"] for r in starred])
    settled = all(r["settled"] for r in starred)
    worst = max(r["worst_ratio_to_bound"] for r in info_rows)
    above_recon = sum(r["points_above_reconstructed"] for r in info_rows if r["problem"] == "LS")
    rise = max(r["rise_over_second_half"] for r in starred)
    nc_floor = [r for r in starred if r["problem"] != "LS"][0]
    floor_text = (f"settles at {floors.min():.2g} to {floors.max():.2g} of E_inf" if settled else
                  f"reaches {floors.min():.2g} to {floors.max():.2g} of E_inf, but some runs still rise (by up to "
                  f"{100 * rise:.0f}% over the second half): lower bounds of the floor ratio")
    return result_for(
        ctx, THEOREM_CLAIM, verdict,
        observed={"configs": info_rows, "sigma0": sigma0, "e0": e0_ref, "replicates": R, "rounds": K, "floor_rounds": Kf,
                  "nonconvex": {"kappa": nc_kappa, "mu": mu_nc, "L": L_nc, "f": nc_f, "sigma": nc_sigma, "rounds": Knc,
                                "radius_of_mean_gap_at_K": float(r_nc[-1]), "crossed_shell_at_round": crossed,
                                "floor_over_E_inf": nc_floor["late_gap_over_E_inf"], "settled": nc_floor["settled"]},
                  "late_gap_over_E_inf": {"min": float(floors.min()), "max": float(floors.max()), "settled": settled},
                  "worst_ratio_to_bound_after_round_0": worst, "points_above_reconstructed_bound": above_recon},
        predicted={"E_inf_target_over_e0": floor_target},
        fit={"checks": len(parts), "failed": sum(not v.passed for v in parts), "claim_verdict": claim_v.value},
        control=control_field,
        explanation=(f"Least squares: with sigma in {list(sigma_factors)} x sigma_0 (E_inf(sigma_0) = {floor_target:g} e_0 at "
                     f"f = {max(fs)}), {R} replicates per configuration and {K} rounds from x_0 = 0, and {Kf} rounds from "
                     f"x*_H; the non-convex PL problem phi = r^2 + {nc_kappa:g} sin^2 r (f = {nc_f}, CE evasion, "
                     f"sigma = {nc_sigma:g}), {Knc} rounds from x_0 (through the non-convex shell) and from x*_H. The mean "
                     f"gap stays under (10) at every recorded round (after round 0 at most {worst:.3f} of the bound). Started "
                     f"at x*_H (e_0 = 0, so (10) reads E e_k <= E_inf) the gap {floor_text}: the printed floor is loose by "
                     f"a factor {1 / floors.max():.0f} or more. The bound the proof's steps give with their constants corrected is exceeded at "
                     f"{above_recon} recorded points (least squares)."
                     + (f" Control: {control_field['detail']} ({ctrl_v.value})" if control_field else "")
                     + ("." if verdict.passed or not claim_v.passed else
                        ": the plain mean is not harmed either, so the verdict cannot be holds.")
                     if claim_v.passed else
                     f"The mean gap exceeds (10) in {sum(not v.passed for v in parts)} configurations (ratio up to {worst:.3g})."),
        assumptions=assumptions,
        finding=(remark(f"The printed floor E_inf of (10) overstates the settled floor by a factor {1 / floors.max():.0f} or "
                        f"more (floor / E_inf = {floors.min():.2g} to {floors.max():.2g} over f, T, attacks and both "
                        "problems): a floor cut to 0.01 E_inf would still hold. The bound holds but is vacuous there.")
                 if settled and claim_v.passed else ""),
        figure=figspec.figure(figspec.panel(
            f"Mean gap under eq. (10): least squares f = {max(fs)}, T = {max(Ts)}, {ATTACK_NAMES[attacks[-1]]}; non-convex "
            f"from x*_H", "round k", r"$\mathbb{E} e_k$", fig, "log", "log")),
    )


# =========================================================================================================
# C12: floor scalings
# =========================================================================================================
def _floors(ctx: Context, inst, configs, *, f: int, n_byz: int, rounds: int, stream: str, problem=None):
    """Floors [reps] per configuration, each run started at x*_H (stationary regime), tail = last half."""
    prob = problem or inst.problem
    x_star = prob.honest_average(n_byz).x_star[0]
    tr, slices = simulate(ctx, prob, configs, f=f, n_byz=n_byz, rounds=rounds, stream=stream,
                          record=record_rounds(rounds, tail=0.5), x0=x_star)
    return [tail_mean(tr, sl, tail=0.5) for sl in slices], tr


@check("dutta2023.c12", "The floor of (10) in practice: proportional to sigma^2; to alpha without attack; alpha-free "
       "under the CE-evasion attack", "rate", "holds", statements=("Theorem 1", "Remark 1"))
def c12_floor_scaling(ctx: Context, *, in_variance: Bound = D.FLOOR_IN_VARIANCE, in_step: Bound = D.FLOOR_IN_STEP,
                      sigma_factors=(1.0, 2.0, 4.0, 8.0), step_grid=(0.02, 0.05, 0.1), f: int = 5,
                      rounds: int | None = None, tol_variance: float = 0.1, tol_step: float = 0.2,
                      alpha_free_ratio: Bound = D.ALPHA_FREE_FLOOR, removed_ratio: Bound = D.CE_REMOVES_FAR_ATTACK,
                      control: str = "mean") -> Result:
    """Claim 12 on LS-in-regime, T = 3, practical steps alpha L in ``step_grid``: (a) log-log slope of the floor vs
    sigma^2 in [0.9, 1.1] (f = 5, A3); (b) f = 0: slope vs alpha in [0.8, 1.2]; (c) f = 5, A3: floor at alpha L = 0.02
    >= ``alpha_free_ratio`` (0.5) x the floor at 0.1; (d) f = 5, A1: floor <= ``removed_ratio`` (1.5) x the honest-only floor
    (N - f agents, no filter).

    Control for (d), the filter's property: the same run with the plain mean (``control``) in place of CE under
    A1 must violate (d), else the far vectors are harmless without the filter and (d) is inconclusive
    (verify.fit.controlled). (a)-(c) describe how the floor scales, which the mean run beside them would not test."""
    K = rounds or ctx.pick(200, 1000)
    R = ctx.reps(16, 40)
    inst = ls_instance(ctx, n_byz=f)
    d = inst.problem.dim
    sigma = 1.0
    std = lambda s: P.coordinate_std(s, d)  # noqa: E731 (noise N1)
    a_lo, a_hi = step_grid[0] / inst.L, step_grid[-1] / inst.L
    cfg = ([Config("A3", alpha=a_hi, T=3, std=std(s * sigma), reps=R) for s in sigma_factors]
           + [Config("A3", alpha=a_lo, T=3, std=std(sigma), reps=R), Config("A1", alpha=a_hi, T=3, std=std(sigma), reps=R),
              Config("A1", control, alpha=a_hi, T=3, std=std(sigma), reps=R)])
    att, tr_att = _floors(ctx, inst, cfg, f=f, n_byz=f, rounds=K, stream="run/attacked")
    inst0 = ls_instance(ctx, n_byz=0)
    clean, _ = _floors(ctx, inst0, [Config(None, alpha=a / inst0.L, T=3, std=std(sigma), reps=R) for a in step_grid],
                       f=0, n_byz=0, rounds=K, stream="run/clean")
    honest_only, _ = _floors(ctx, inst, [Config(None, "mean", alpha=a_hi, T=3, std=std(sigma), reps=R)], f=0, n_byz=0,
                             rounds=K, stream="run/honest", problem=inst.problem.select(slice(f, None)))
    rng = ctx.numpy_rng("bootstrap")
    s2 = (np.asarray(sigma_factors) * sigma) ** 2
    Ya = np.stack(att[:len(sigma_factors)], 1)
    v_a, fit_a = rate_verdict(s2, Ya, in_variance, param="sigma2", tol=tol_variance, rng=rng,
                              values={"L": inst.L, "T": 3, "alpha": a_hi, "mu": inst.mu, "f": f, "H": N_AGENTS - f})
    steps = np.asarray(step_grid) / inst0.L
    Yb = np.stack(clean, 1)
    v_b, fit_b = rate_verdict(steps, Yb, in_step, param="alpha", tol=tol_step, rng=rng,
                              values={"L": inst0.L, "T": 3, "sigma": sigma, "mu": inst0.mu})
    lo_alpha, hi_alpha_same_sigma = att[len(sigma_factors)], att[0]
    a_free, removed = float(alpha_free_ratio()), float(removed_ratio())
    v_c, fit_c = ratio_of_means_verdict(lo_alpha, hi_alpha_same_sigma, a_free, "lower", rng=rng)
    v_d, fit_d = ratio_of_means_verdict(att[-2], honest_only[0], removed, "upper", rng=rng)
    # the mean under far random vectors diverges (floors up to 1e150): judged by its least harmed replicate, not a
    # bootstrap of means that heavy tails make meaningless
    least = float(np.min(att[-1]) / honest_only[0].mean()) if np.all(np.isfinite(att[-1])) else float("inf")
    with aside():  # the control is not the claim
        v_ctrl, fit_ctrl = deterministic_verdict([least], removed, "upper")
    fit_ctrl["least_harmed_ratio"] = least
    control_field = {"what": f"the plain mean ({control}) in place of CE under far random vectors, f = {f}, the same "
                             "noisy run: part (d)", "verdict": v_ctrl.value,
                     "detail": f"floor of the least harmed replicate {magnitude(least)} x the honest-only floor (CE: "
                               f"{fit_d['ratio']:.3g}; allowed {removed:g})"}
    verdict = combine([v_a, v_b, v_c, controlled(v_d, v_ctrl)])
    return result_for(
        ctx,
        Claim("Remark 1: with a constant step the gap converges to a ball with an alpha-dependent part (as in fault-free "
              "local GD) and a part from the Byzantine agents and the gradient noise; by (10) both are proportional to "
              "sigma^2, the first to alpha, the Byzantine one independent of alpha; CE removes attacks outside the honest "
              "radius entirely.",
              r"E_\infty=\frac{180L\mathcal T\alpha\sigma^2}{\mu}+\frac{72\mathcal T\sigma^2f}{\mu|\mathcal H|}",
              "dutta2023, Theorem 1, eq. (10), and Remark 1",
              "E_oo = (180 L cal(T) alpha sigma^2)/mu + (72 cal(T) sigma^2 f)/(mu |cal(H)|)"),
        verdict,
        observed={"sigma2": s2, "floor_vs_sigma2": Ya.mean(0), "alpha": steps, "floor_vs_alpha_f0": Yb.mean(0),
                  "floor_ce_evasion_alphaL_lo": float(lo_alpha.mean()), "floor_ce_evasion_alphaL_hi": float(hi_alpha_same_sigma.mean()),
                  "floor_far_random": float(att[-2].mean()), "floor_honest_only": float(honest_only[0].mean()),
                  "floor_far_random_plain_mean": float(att[-1].mean()),
                  "replicates": R, "rounds": K},
        predicted={"slope_sigma2": fit_a["predicted_exponent"], "slope_alpha": fit_b["predicted_exponent"],
                   "alpha_free_ratio_min": a_free, "removed_ratio_max": removed},
        fit={"sigma2": fit_a, "alpha": fit_b, "alpha_free": fit_c, "removed": fit_d, "control": fit_ctrl},
        control=control_field,
        explanation=(f"(a) floor vs sigma^2: slope {fit_a['slope']:.3f} (CI {fit_a['slope_ci'][0]:.3f} to {fit_a['slope_ci'][1]:.3f}); "
                     f"(b) f = 0, floor vs alpha: slope {fit_b['slope']:.3f} (CI {fit_b['slope_ci'][0]:.3f} to "
                     f"{fit_b['slope_ci'][1]:.3f}); (c) under CE evasion the floor at alpha L = {step_grid[0]:g} is "
                     f"{fit_c['ratio']:.2f} x the floor at {step_grid[-1]:g}: the Byzantine part does not shrink with alpha; "
                     f"(d) against the far random attack the floor is {fit_d['ratio']:.2f} x the honest-only floor: CE removes it "
                     f"(the plain mean: {magnitude(least)} x or more, {v_ctrl.value})."),
        assumptions=[condition9_assumption(f, N_AGENTS, inst.mu, inst.L),
                     Assumption("practical step sizes (outside eq. (8), as the paper's simulations)", True, step_grid[-1],
                                "exact", "alpha L in " + ", ".join(map(str, step_grid)))],
        figure=figspec.figure(
            figspec.panel("Floor vs sigma^2 (f = 5, CE evasion)", r"$\sigma^2$", "floor",
                          [figspec.observed("floor", s2, Ya, rng=ctx.numpy_rng("figure")),
                           figspec.line("slope 1", s2, Ya.mean(0)[0] * s2 / s2[0], "reference")]),
            figspec.panel("Floor vs alpha (f = 0)", r"$\alpha L$", "floor",
                          [figspec.observed("floor", np.asarray(step_grid), Yb, rng=ctx.numpy_rng("figure")),
                           figspec.line("slope 1", np.asarray(step_grid), Yb.mean(0)[0] * np.asarray(step_grid) / step_grid[0],
                                        "reference")])),
        arrays={"floors_sigma": Ya, "floors_alpha": Yb},
    )


# =========================================================================================================
# C13: mini-batches
# =========================================================================================================
@check("dutta2023.c13", "Remark 1: a mini-batch of size m divides the floor by m", "rate", "holds",
       statements=("Remark 1",))
def c13_minibatch(ctx: Context, *, theory: Bound = D.MINIBATCH_FLOOR, batches=(1, 4, 16, 64), f: int = 5,
                  tol: float = 0.1, rounds: int | None = None, control: str = "mean") -> Result:
    """Claim 13: noise N2 (mean of m N1 draws) with m in {1, 4, 16, 64}, LS-in-regime, alpha L = 0.1, T = 3: the log-log
    slope of the floor vs m is -1 +- 0.1, for f = 0 and for f = 5 under the CE-evasion attack.

    Control: that the Byzantine floor falls with m too is a property of the filter (CE keeps the attack's
    effect proportional to sigma^2). The same f = 5 run with the plain mean (``control``) under the constant attack A6,
    whose harm does not depend on the noise, must violate the slope (its floor does not fall with m)
    (verify.fit.controlled)."""
    K = rounds or ctx.pick(200, 1000)
    R = ctx.reps(16, 40)
    ms = np.asarray(batches, dtype=float)
    rng = ctx.numpy_rng("bootstrap")
    parts, fits, series, Ys = [], {}, [], {}
    for ff, attack in ((0, None), (f, "A3")):
        inst = ls_instance(ctx, n_byz=ff)
        d = inst.problem.dim
        cfg = [Config(attack, alpha=0.1 / inst.L, T=3, std=P.coordinate_std(1.0, d, m), reps=R) for m in batches]
        ctrl = [Config("A6", control, alpha=0.1 / inst.L, T=3, std=P.coordinate_std(1.0, d, m), reps=R)
                for m in batches] if attack else []
        floors, _ = _floors(ctx, inst, cfg + ctrl, f=ff, n_byz=ff, rounds=K, stream=f"run/f={ff}")
        if ctrl:
            Yc = np.stack(floors[len(cfg):], 1)
            with aside():  # the control is not the claim
                v_ctrl, fit_ctrl = rate_verdict(ms, Yc, theory, param="m", tol=tol, rng=rng,
                                                values={"L": inst.L, "T": 3, "alpha": 0.1 / inst.L, "mu": inst.mu,
                                                        "sigma": 1.0, "f": ff, "H": N_AGENTS - ff})
        Y = np.stack(floors[:len(cfg)], 1)
        v, fit = rate_verdict(ms, Y, theory, param="m", tol=tol, rng=rng,
                              values={"L": inst.L, "T": 3, "alpha": 0.1 / inst.L, "mu": inst.mu, "sigma": 1.0, "f": ff,
                                      "H": N_AGENTS - ff})
        parts.append(v)
        fits[f"f={ff}"] = fit
        Ys[f"f={ff}"] = Y
        series.append(figspec.observed(f"f = {ff}" + (", CE evasion" if attack else ""), ms, Y, rng=ctx.numpy_rng("figure")))
    verdict = controlled(combine(parts), v_ctrl)
    control_field = {"what": f"the plain mean ({control}) in place of CE under the constant vector 1e3 1, f = {f}, the "
                             "same mini-batch run", "verdict": v_ctrl.value,
                     "detail": f"floor slope in m {fit_ctrl['slope']:.3f} (CI {fit_ctrl['slope_ci'][0]:.3f} to "
                               f"{fit_ctrl['slope_ci'][1]:.3f}) against -1: mini-batches do not remove the mean's "
                               "Byzantine floor"}
    return result_for(
        ctx,
        Claim("Remark 1: each agent sampling a mini-batch of size m replaces sigma^2 by sigma^2/m in (10), so the optimality "
              "error can be made arbitrarily close to zero.", r"E_\infty(m)\propto\sigma^2/m",
              "dutta2023, Remark 1", "E_oo (m) prop sigma^2 / m"),
        verdict,
        observed={"m": ms, **{f"floor_{k}": Y.mean(0) for k, Y in Ys.items()}, "replicates": R, "rounds": K},
        predicted={"exponent": fits[f"f={f}"]["predicted_exponent"], "tolerance": tol},
        fit={**fits, "control": fit_ctrl},
        control=control_field,
        explanation=(f"The floor falls with slope {fits['f=0']['slope']:.3f} in m without attack and "
                     f"{fits[f'f={f}']['slope']:.3f} with f = {f} and the CE-evasion attack (claimed -1): mini-batches remove "
                     "the noise, and with it the Byzantine floor, which is also proportional to sigma^2. Control: "
                     + control_field["detail"] + f" ({v_ctrl.value})."
                     if verdict.passed else
                     f"The floor's slope in m is {fits['f=0']['slope']:.3f} (f = 0) and {fits[f'f={f}']['slope']:.3f} "
                     f"(f = {f}), not {fits['f=0']['predicted_exponent']:g}."),
        assumptions=[Assumption("noise N2: the mean of m independent N1 draws (variance sigma^2/m)", True, 1.0, "exact",
                                "drawn as one Gaussian of variance sigma^2/m: the same law")],
        figure=figspec.figure(figspec.panel("Floor vs mini-batch size", "m", "floor",
                                            series + [figspec.line("slope -1", ms, Ys["f=0"].mean(0)[0] / ms, "reference")])),
        arrays={k: v for k, v in Ys.items()},
    )


# =========================================================================================================
# C14: local steps
# =========================================================================================================
@check("dutta2023.c14", "More local steps converge faster per round (the paper's Figs. 2-3)", "rate", "holds",
       no_control="the claim compares Algorithm 1 with T local steps against itself with one (T = 1 is the run without "
                  "the property, in the same harness); no other method is involved", statements=("Fig. 3",))
def c14_local_steps(ctx: Context, *, min_speedup: Bound = D.LOCAL_STEPS_SPEEDUP, per_step_low: Bound = D.PER_STEP_RATE_LOW,
                    per_step_high: Bound = D.PER_STEP_RATE_HIGH, Ts=(1, 3, 6), f: int = 5, step: float = 0.1,
                    rounds: int | None = None) -> Result:
    """Claim 14: at alpha L = 0.1, f = 5 with the CE-evasion attack and sigma = 0, ln rho_emp(T = 3) <= min_speedup
    ln rho_emp(T = 1) (per round; 2) and the per-local-step log-rates of all T between ``per_step_low`` (1/2) and
    ``per_step_high`` (2) x T = 1's; with sigma > 0 the floor vs T is recorded (the printed bound grows proportionally
    to T)."""
    K = rounds or ctx.pick(200, 600)
    R = ctx.reps(12, 40)
    inst = ls_instance(ctx, n_byz=f)
    d = inst.problem.dim
    alpha = step / inst.L
    det = [Config("A3", alpha=alpha, T=T) for T in Ts]
    tr, sl = simulate(ctx, inst.problem, det, f=f, n_byz=f, rounds=K, stream="run/exact", record=record_rounds(K, dense=True))
    rates = []
    for s in sl:
        g = tr.gap[s][0]
        idx = semilog_window(tr.rounds, g, g[0])
        rates.append(math.log(10) * slope_fit(tr.rounds[idx], g[None, idx], log_x=False, deterministic=True).slope)
    rates = np.array(rates)
    i3 = list(Ts).index(3) if 3 in Ts else 1  # our reading (docs/papers/dutta2023.md) compares T = 3 with T = 1
    speedup = rates[i3] / rates[0]
    per_step = rates / np.asarray(Ts) / rates[0]
    v_speed, i_speed = deterministic_verdict(speedup, min_speedup)
    v_lo, i_lo = deterministic_verdict(per_step, per_step_low)
    v_hi, i_hi = deterministic_verdict(per_step, per_step_high)
    band = (float(per_step_low()), float(per_step_high()))
    floors, _ = _floors(ctx, inst, [Config("A3", alpha=alpha, T=T, std=P.coordinate_std(1.0, d), reps=R) for T in Ts],
                        f=f, n_byz=f, rounds=K, stream="run/noisy")
    floor_means = np.array([x.mean() for x in floors])
    floor_slope = slope_fit(np.asarray(Ts, dtype=float), np.stack(floors, 1), rng=ctx.numpy_rng("bootstrap"))
    verdict = combine([v_speed, v_lo, v_hi])
    return result_for(
        ctx,
        Claim("As the local iterations increase, Algorithm 1 converges faster (the paper's Figs. 2-3); the bound (10) "
              "contracts by 1 - alpha mu T/36 per round, i.e. its log-rate per round grows in proportion to T.",
              r"\ln\rho(\mathcal T)\approx\mathcal T\ln\rho(1)", "dutta2023, Section IV (Figs. 2-3), Theorem 1",
              "ln rho(cal(T)) approx cal(T) ln rho(1)"),
        verdict,
        observed={"T": list(Ts), "log_rate_per_round": rates, "speedup": speedup,
                  "per_step_log_rate_relative": per_step, "floor_vs_T": floor_means,
                  "floor_slope_in_T": floor_slope.as_dict(), "replicates": R, "rounds": K},
        predicted={"min_speedup": float(min_speedup()), "per_step_band": list(band), "printed_floor_slope_in_T": 1.0},
        fit={"speedup": i_speed, "per_step_low": i_lo, "per_step_high": i_hi},
        explanation=(f"Per round, T = {Ts[i3]} converges {speedup:.2f} x faster in log-rate than T = {Ts[0]} (T = {Ts[-1]}: "
                     f"{rates[-1] / rates[0]:.2f} x), while per local step the rates stay within {per_step.min():.2f} to "
                     f"{per_step.max():.2f} of T = 1's. With noise the floor {'falls' if floor_slope.slope < 0 else 'grows'} "
                     f"with T (log-log slope {floor_slope.slope:.2f}), whereas the printed bound's floor grows like T."),
        assumptions=[condition9_assumption(f, N_AGENTS, inst.mu, inst.L)],
        finding=(f"The floor of Algorithm 1 decreases with the number of local steps (slope {floor_slope.slope:.2f} in T on "
                 f"log-log, floors {', '.join(f'{x:.2e}' for x in floor_means)} for T = {', '.join(map(str, Ts))}), while the "
                 "printed bound (10) grows proportionally to T: its T-dependence is a loose upper bound, not a prediction."
                 if floor_slope.hi < 0 else ""),
        figure=figspec.figure(
            figspec.panel("Semilog e_k/e_0 for T local steps (sigma = 0, f = 5, CE evasion)", "round k", r"$e_k/e_0$",
                          [figspec.line(f"T = {T}", tr.rounds, tr.gap[s][0] / tr.gap[s][0, 0], "observed")
                           for T, s in zip(Ts, sl)], "linear", "log"),
            figspec.panel("Floor vs T (sigma = 1)", "T", "floor",
                          [figspec.observed("floor", np.asarray(Ts, dtype=float), np.stack(floors, 1), rng=ctx.numpy_rng("figure")),
                           figspec.line("proportional to T (printed bound)", np.asarray(Ts, dtype=float),
                                        floor_means[0] * np.asarray(Ts, dtype=float), "reference")])),
    )


# =========================================================================================================
# C15: decaying step sizes (Remark 1's O(1/k))
# =========================================================================================================
def _log_bins(rounds: np.ndarray, Y: np.ndarray, K: int, per_decade: int = 12) -> tuple[np.ndarray, np.ndarray]:
    """Per-replicate means of Y [R, K+1] over log-spaced bins of rounds [k, q k) (q = 10^(1/per_decade)), at the bins'
    geometric centres: for E e_k = C k^p the bin mean is C' (centre)^p with one C' for every bin, so the log-log slope
    is unchanged while the noise of single rounds averages out."""
    edges = np.unique(np.round(np.logspace(0, math.log10(K + 1), int(per_decade * math.log10(K + 1)) + 1)).astype(int))
    centres, cols = [], []
    for lo, hi in zip(edges[:-1], edges[1:]):
        m = (rounds >= lo) & (rounds < hi)
        if m.any():
            centres.append(math.sqrt(lo * max(hi - 1, lo)))
            cols.append(Y[:, m].mean(1))
    return np.asarray(centres), np.stack(cols, 1)


def _c15_finding(f: int, f_claim: dict, f_ratio: dict, K: int):
    mf = D.remark1_mean_field(N_AGENTS, f)
    rec = D.recursion_floor_certificate()
    return erratum(
        f"Remark 1's O(1/k) with alpha_k ~ 1/k does not hold under attack: with f = {f} Byzantine agents the expected gap "
        "tends to a positive floor that does not shrink with alpha_k.",
        paper_says=("Remark 1 (line 117): 'Furthermore, when alpha_k ~ 1/k, the convergence rate is O(1/k).' The remark "
                    "follows Theorem 1, stated for Algorithm 1 with f Byzantine agents; no constants or proof are given."),
        correction=("With alpha_k ~ 1/k the gap is O(1/k) without Byzantine agents (f = 0) or when CE removes them; under an "
                    "attack that stays inside the honest radius it settles at a floor proportional to sigma^2 and "
                    "independent of alpha (a mini-batch, as Remark 1 also says, shrinks it)."),
        witness=(f"LS-in-regime, N = {N_AGENTS}, f = {f}, CE-evasion attack, alpha_k = min(0.5/L, 2/(mu T (k + 10))): the "
                 f"late log-log slope is {f_claim['slope']:.2f} (95% CI {f_claim['slope_ci'][0]:.2f} to "
                 f"{f_claim['slope_ci'][1]:.2f}; O(1/k) needs -1) and the gap at k = {K} is {f_ratio['ratio']:.0f} x the "
                 "attack-free gap."),
        second_argument=(f"Closed-form instance (analytic.papers.dutta2023.remark1_mean_field): d = 1, q^i = x^2/2 (L = mu = 1), "
                         f"T = 1, noise +-sigma, N = {N_AGENTS}, f = {f}, the Byzantine agents sending x + (1/2) alpha "
                         "(sigma - |x|) sign(x) (kept by CE, pointing away from x*). The expected CE update is x - alpha h(x) "
                         f"with h < 0 on (0, x_e) and h > 0 on (x_e, sigma), x_e = {mf['x_e_over_sigma']} sigma "
                         f"(~ {float(mf['x_e_over_sigma']):.4f} sigma, exact rational over Bin({N_AGENTS - f}, 1/2)); with "
                         "sum alpha_k = oo and sum alpha_k^2 < oo the iterates follow the ODE x' = -h(x), whose stable "
                         f"equilibria are +-x_e, so e_k -> x_e^2/2 ~ {float(mf['floor_over_sigma2']):.4f} sigma^2 > 0 for any "
                         "constant in alpha_k. The paper's own one-step inequality (Appendix VI-A, before (22)) agrees: its "
                         f"fixed point {rec['fixed_point']} tends to {rec['limit_alpha_to_0']} > 0 as alpha -> 0 (sympy)."),
    )


@check("dutta2023.c15", "Remark 1's O(1/k) with alpha_k ~ 1/k fails under attack: the gap stalls at a floor (erratum)",
       "erratum", "violated", statements=("Remark 1",))
def c15_decaying_step(ctx: Context, *, theory: Bound = D.DECAYING_STEP_RATE, f: int = 5, rounds: int | None = None,
                      k0: float = 10.0, sigma: float = 1.0, tol: float = 0.2, floor_gap_ratio: float = 10.0) -> Result:
    """Claim 15: alpha_k = min(0.5/L, c/(k + k0)), c = 2/(mu T), T = 3, sigma > 0, LS-in-regime. The claim O(1/k) is tested
    under the CE-evasion attack (f = 5) on the late window; the harness must first reproduce slope -1 (+-0.2) where
    the attack is absent (f = 0) or removed (A1), and the attacked gap at K must be >= 10 x the f = 0 gap.
    "Reproduce" means the slope's 95% CI meets [-1.2, -0.8]: with R = 30 the fitted slope itself scatters by about
    0.07, and at root seed 10 (of 0-11) the f = 0 point estimate -0.78 (CI -0.92 to -0.66) fell just outside the
    band, which turned the erratum's verdict inconclusive although the harness clearly decays like 1/k.

    The runs start at x*_H: the transient from another start decays like (k0/k)^(2 c mu T) with c mu T = 2, much
    faster than 1/k, so it does not decide the rate, and from x_0 = 0 (e_0 ~ 2e4) it would hide the noise-driven
    part for thousands of rounds."""
    K = rounds or ctx.pick(1000, 4000)
    R = ctx.reps(30, 60)
    win_mid = (min(ctx.pick(100, 200), K // 3), K)  # from 10 k0 (spec: 20 k0 over 4000 rounds)
    win_late = (K // 2, K)
    d = 5
    rng = ctx.numpy_rng("bootstrap")
    out = {}
    for ff, attacks in ((0, (None,)), (f, ("A1", "A3"))):
        inst = ls_instance(ctx, n_byz=ff)
        cfg = [Config(a, alpha=0.5 / inst.L, c=2.0 / (inst.mu * 3), T=3, std=P.coordinate_std(sigma, d), reps=R) for a in attacks]
        x_star = inst.problem.honest_average(ff).x_star[0]
        tr, sl = simulate(ctx, inst.problem, cfg, f=ff, n_byz=ff, rounds=K, stream=f"run/f={ff}", k0=k0, x0=x_star,
                          record=np.arange(K + 1))
        for a, s in zip(attacks, sl):
            out[(ff, a)] = _log_bins(tr.rounds, tr.gap[s], K)

    def window(key, win):
        """Bins in the window, against k + k0: the quasi-stationary gap is proportional to alpha_k = c/(k + k0), so
        fitting against k would bias the slope towards 0 by k0/(k + k0) (-0.91 instead of -1 at k = 100);
        O(1/k) and O(1/(k + k0)) are the same claim."""
        rounds, Y = out[key]
        m = (rounds >= win[0]) & (rounds <= win[1])
        return rounds[m] + k0, Y[:, m]

    minus_one = power_law("k", -1, "tight")
    _, f_clean = rate_verdict(*window((0, None), win_mid), minus_one, param="k", tol=tol, rng=rng)
    _, f_removed = rate_verdict(*window((f, "A1"), win_mid), minus_one, param="k", tol=tol, rng=rng)
    v_claim, f_claim = rate_verdict(*window((f, "A3"), win_late), theory, param="k", tol=tol, rng=rng)
    v_flat, f_flat = rate_verdict(*window((f, "A3"), win_late), power_law("k", 0, "tight"), param="k", tol=tol, rng=rng)
    last_att, last_clean = out[(f, "A3")][1][:, -1], out[(0, None)][1][:, -1]  # the last bin
    v_ratio, f_ratio = ratio_of_means_verdict(last_att, last_clean, floor_gap_ratio, "lower", rng=rng)
    def harness(name: str, fit: dict) -> Assumption:  # Claim 15 (a), (b): a slope in [-1.2, -0.8] fits the data
        ok = fit["slope_ci"][0] <= -1.0 + tol and fit["slope_ci"][1] >= -1.0 - tol
        return Assumption(f"the harness reproduces O(1/k) {name}", ok, fit["slope"], "estimate",
                          f"fitted slope {fit['slope']:.3f} (95% CI {fit['slope_ci'][0]:.3f} to {fit['slope_ci'][1]:.3f}) "
                          f"on k in {list(win_mid)}; required: the CI meets [-1 - {tol:g}, -1 + {tol:g}]")

    assumptions = [harness("without attack (f = 0)", f_clean), harness("when CE removes the attack (far random vectors)", f_removed)]
    verdict = apply_assumptions(v_claim, assumptions)
    failed = not v_claim.passed
    return result_for(
        ctx,
        Claim(D.DECAYING_STEP_RATE.statement + " (Remark 1; the claim is made for Algorithm 1 with Byzantine agents.)",
              r"\alpha_k\sim 1/k\ \Rightarrow\ \mathbb E[e_k]=O(1/k)", D.DECAYING_STEP_RATE.source,
              D.DECAYING_STEP_RATE.typst),
        verdict,
        observed={"slope_f0": f_clean["slope"], "slope_far_random": f_removed["slope"], "slope_ce_evasion_late": f_claim["slope"],
                  "gap_K_ce_evasion_over_f0": f_ratio["ratio"], "windows": {"mid": list(win_mid), "late": list(win_late)},
                  "replicates": R, "rounds": K},
        predicted={"exponent": f_claim["predicted_exponent"], "tolerance": tol},
        fit={"f0": f_clean, "A1": f_removed, "A3": f_claim, "A3_flat": f_flat, "ratio": f_ratio},
        explanation=(f"Without attack the gap falls with slope {f_clean['slope']:.2f} and against the removed attack with "
                     f"{f_removed['slope']:.2f} (O(1/k)), but under the CE-evasion attack its late slope is "
                     f"{f_claim['slope']:.2f} (CI {f_claim['slope_ci'][0]:.2f} to {f_claim['slope_ci'][1]:.2f}) and the gap at "
                     f"k = {K} is {f_ratio['ratio']:.0f} x the attack-free one: the Byzantine floor does not decay with alpha_k."
                     if failed else f"The gap under attack falls with slope {f_claim['slope']:.2f}, as claimed."),
        assumptions=assumptions,
        finding=_c15_finding(f, f_claim, f_ratio, K) if failed and v_flat.passed else "",
        figure=figspec.figure(figspec.panel(
            "Decaying steps alpha_k = min(0.5/L, c/(k + k0))", "round k", r"$\mathbb{E} e_k$",
            [figspec.observed("f = 0", np.maximum(out[(0, None)][0], 1), out[(0, None)][1], rng=ctx.numpy_rng("figure")),
             figspec.observed(f"f = {f}, random far (removed)", np.maximum(out[(f, "A1")][0], 1), out[(f, "A1")][1],
                              rng=ctx.numpy_rng("figure")),
             figspec.observed(f"f = {f}, CE evasion", np.maximum(out[(f, "A3")][0], 1), out[(f, "A3")][1],
                              rng=ctx.numpy_rng("figure")),
             figspec.line("slope -1", np.maximum(out[(0, None)][0], 1),
                          out[(0, None)][1].mean(0)[-1] * K / np.maximum(out[(0, None)][0], 1), "reference")])),
    )
