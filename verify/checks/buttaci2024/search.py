"""buttaci2024: searchable forms of the per-round contraction factors (``fedverify search``, verify/search/).

The lemmas' factors are claims about *every* admissible instance: for clients that are L-smooth and
mu-strongly convex with a common minimiser (Gamma = 0, sigma = 0), one round of E local steps from a consensus
satisfies ||wbar_1 - w*||^2 <= kappa ||wbar_0 - w*||^2 (Appendix A Lemma 3, eq. 24; Appendix B Lemma 3, eq. 123,
whose additive A vanishes with Gamma = sigma = 0 and G^2 -> its floor is dropped here as in x01). The search
space is the quadratic sub-class: C = 2 clients in R^3 with diagonal Hessians whose eigenvalues lie in [mu, L]
(so each client is L-smooth and mu-strongly convex, minimiser 0), server weights p, and the start w_0 (the ratio
is scale-invariant). Each client takes w <- w - gamma (grad f_i(beta w + (1 - beta) w_0) + alpha (w - w_0)).
Objective: (||wbar_1||^2/||w_0||^2) / kappa. x01 shows with PEPit that quadratics attain the worst case over
the whole class, so the certified ratio PEPit worst case / kappa at the same (mu/L, E, beta, gamma) is the
supremum the search should approach from below.

Also the relaxation chain of c07 (lemma factor <= theorem factor before mu <= L <= theorem factor) as a search
over (mu/L, E, beta, alpha) at the theorem steps.
"""
from __future__ import annotations

import functools

import numpy as np

from analytic import pep
from analytic.papers import buttaci2024 as B
from verify.search import Objective

MU, L = 0.25, 1.0
D, C = 3, 2


def _round_ratio(xp, h, p, w0, *, gamma, E, alpha, beta):
    """||wbar_E||^2/||w_0||^2 of one round on diagonal quadratics with minimiser 0 (numpy or torch ``xp``):
    ``h [B, C, D]``, ``p [B]`` (client 0's weight; client 1 has 1 - p), ``w0 [B, D]``."""
    w = w0[:, None, :] * (h * 0 + 1)  # [B, C, D]
    x0 = w0[:, None, :]
    for _ in range(int(E)):
        w = w - gamma * (h * (beta * w + (1 - beta) * x0) + alpha * (w - x0))
    wbar = p[:, None] * w[:, 0] + (1 - p[:, None]) * w[:, 1]
    return (wbar ** 2).sum(-1) / (w0 ** 2).sum(-1)


def _kappa(cfg) -> float:
    return float(B.factor(cfg["method"], "lemma", mu=cfg["mu"], L=cfg["L"], gamma=cfg["gamma"], E=cfg["E"],
                          alpha=cfg["alpha"], beta=cfg["beta"]))


def _round_objective(cfg: dict) -> Objective:
    kappa = _kappa(cfg)
    kw = {k: cfg[k] for k in ("gamma", "E", "alpha", "beta")}

    def batch(ctx, x):
        return _round_ratio(np, np.asarray(x["h"]), np.asarray(x["p"]), np.asarray(x["w0"]), **kw) / kappa

    def torch_form(ctx, x):
        return _round_ratio(None, x["h"], x["p"], x["w0"], **kw) / kappa

    @functools.lru_cache(maxsize=1)
    def certified_value():
        wc = pep.local_round_contraction(cfg["L"], cfg["mu"], gamma=cfg["gamma"], E=cfg["E"], alpha=cfg["alpha"],
                                         beta=cfg["beta"])
        return wc.value / kappa

    planted = {"h": np.tile(np.array([cfg["mu"], (cfg["mu"] + cfg["L"]) / 2, cfg["L"]]), (C, 1)), "p": 0.5,
               "w0": np.ones(D) / np.sqrt(D)}  # identical clients spanning [mu, L] (SC-Q1's shape), an even start
    return Objective(batch=batch, torch=torch_form, planted=planted, certified=lambda ctx: certified_value(),
                     constraint=lambda inst: float(np.sum(np.asarray(inst["w0"]) ** 2)) > 1e-12, budget=1500,
                     observed="||wbar_1 - w*||^2 / ||wbar_0 - w*||^2",
                     bound=f"the {cfg['method']} lemma factor kappa = {kappa:.6g}")


def _space(cfg: dict) -> dict:
    return {"h": (cfg["mu"], cfg["L"], {"shape": (C, D)}), "p": (0.05, 0.95), "w0": (-1.0, 1.0, {"shape": D})}


#: x01's perturbed method (Lemma B3) at mu/L = 1/4, E = 4, beta = 1/2, gamma = 1/(2LE)
X01_CFG = {"method": "perturbed", "mu": MU, "L": L, "E": 4, "beta": 0.5, "alpha": 0.0,
           "gamma": B.theorem_step("perturbed", L, 4)}
X01_SPACE, X01_OBJECTIVE = _space(X01_CFG), _round_objective(X01_CFG)

#: FedProx (Lemma A3) at alpha = 1, mu/L = 1/4, E = 2, gamma = 1/(2E(L + alpha)) (c09's methods)
C09_CFG = {"method": "fedprox", "mu": MU, "L": L, "E": 2, "beta": 1.0, "alpha": 1.0,
           "gamma": B.theorem_step("fedprox", L, 2, 1.0)}
C09_SPACE, C09_OBJECTIVE = _space(C09_CFG), _round_objective(C09_CFG)


# -- c07: the relaxation chain lemma <= theorem (before mu <= L) <= theorem, at the theorem steps ----------------
C07_SPACE = {"mu_over_L": (1e-4, 1.0, {"log": True}), "E": range(1, 51), "beta": (0.05, 1.0), "alpha": (0.0, 2.0)}


def _c07_batch(ctx, x):
    mu, E, beta, alpha = (np.asarray(x[k], dtype=float) for k in ("mu_over_L", "E", "beta", "alpha"))
    worst = np.zeros(mu.shape)
    for method in B.METHODS:
        a = alpha if method == "fedprox" else 0.0 * alpha
        gamma = 1.0 / (2.0 * E * (1.0 + a))  # theorem_step at L = 1: FedProx 1/(2E(L+alpha)), the others 1/(2LE)
        vals = {"mu": mu, "L": 1.0, "gamma": gamma, "E": E, "alpha": a, "beta": beta if method == "perturbed" else 1.0}
        lemma, tight, theorem = (np.asarray(B.factor(method, lvl, **vals), dtype=float) for lvl in
                                 ("lemma", "tight", "theorem"))
        worst = np.maximum(worst, np.maximum(lemma / tight, tight / theorem))
    return worst


C07_OBJECTIVE = Objective(batch=_c07_batch, planted={"mu_over_L": 0.01, "E": 10, "beta": 0.5, "alpha": 1.0},
                          budget=2000, observed="max(lemma factor / theorem factor before mu <= L, "
                                                "that / theorem factor) over FedAvg, FedProx, the perturbed method",
                          bound="1 (each relaxation may only enlarge the factor)")
