"""The problems of dutta2023 (docs/papers/dutta2023.md §5.2-5.5) with their exact constants, its noise models N1/N2, and
``fedverify constants`` for problem (11) (P1), its non-convex PL variant (P1-nc) and problem (12) (P2).

Every agent's cost is q^i(x) = phi(||A^i x - b^i||) (:class:`RegressionAgents`), with

* least squares (LS):          phi(r) = r^2;           L = 2 max ||A^i||^2, mu exact (least_squares.py);
* problem (11) (P1):           phi(r) = r^2 + sin^2 r; L = 4 max ||A^i||^2 (exact: 0 <= grad^2 q^i <= 4 A^T A,
                               equality at r = 0); convex (docs/papers/dutta2023.md §5.2) although the paper says non-convex;
* the PL variant (P1-nc):      phi(r) = r^2 + 3 sin^2 r (Karimi et al.'s x^2 + 3 sin^2 x): L = 8 max ||A^i||^2,
                               non-convex (phi'' reaches -4) but PL;
* problem (12) (P2):           phi(r) = 1/(1 + exp(-r)): not differentiable at zero residual (a cone), so
                               Assumption 1 fails, and PL fails as ||x|| -> infinity (docs/papers/dutta2023.md §5.3).

Data (docs/papers/dutta2023.md §5.5): A^i with i.i.d. N(0, 1) entries (or orthonormal columns: the isotropic case,
A^{iT} A^i = I), x° ~ N(0, I), realizable labels b^i = A^i x° (2f-redundancy needs them, docs/papers/dutta2023.md R3) or
labels with noise eps^i ~ N(0, label_noise^2 I). Byzantine agents are 0..f-1 and their data only
matter for the label-flip attack A5 (:func:`label_flip`).

Noise models (docs/papers/dutta2023.md §3, Assumption 3): N1 adds (sigma/sqrt d) xi, xi ~ N(0, I_d), to the exact gradient
(E||noise||^2 = sigma^2 exactly, uniformly in x); N2 averages m independent N1 draws, which is the
same law as one draw with sigma^2/m (:func:`coordinate_std`).
"""
from __future__ import annotations

import argparse
import math

import numpy as np
import torch

from analytic.constants import Constant
from analytic.constants.smoothness import growth_constants
from analytic.errors import require
from analytic.papers import dutta2023 as D
from analytic.redundancy import general_redundancy, realizable_redundancy
from verify.problems.constants_registry import constants_problem
from verify.problems.least_squares import SQUARE, Link, RegressionAgents, _redundancy_constants, gaussian_agents


# -- the links ----------------------------------------------------------------------------------------------
def sin_link(kappa: float) -> Link:
    """phi(r) = r^2 + kappa sin^2 r as psi(s) = s + kappa sin^2 sqrt(s)."""

    def psi(s):
        return s + kappa * torch.sin(torch.sqrt(s)) ** 2

    def dpsi(s):  # 1 + kappa sin(2r)/(2r); torch.sinc(x) = sin(pi x)/(pi x)
        return 1.0 + kappa * torch.sinc(2.0 * torch.sqrt(s) / math.pi)

    def d2psi(s):  # kappa (cos 2r - sin(2r)/(2r)) / (2s), its Taylor series near 0 (no cancellation)
        r = torch.sqrt(s)
        safe = torch.where(s > 1e-4, s, torch.ones_like(s))
        exact = (torch.cos(2 * r) - torch.sinc(2 * r / math.pi)) / (2 * safe)
        series = -2.0 / 3.0 + 4.0 * s / 15.0 - 4.0 * s**2 / 105.0
        return kappa * torch.where(s > 1e-4, exact, series)

    return Link(f"r^2 + {kappa:g} sin^2 r", psi, dpsi, d2psi, excess=psi, curvature=D.curvature_bound_sin(kappa),
                phi_text=f"phi(r) = r^2 + {kappa:g} sin^2 r")


P1_LINK = sin_link(1.0)
P1NC_LINK = sin_link(3.0)


def _logistic_psi(s):
    return torch.sigmoid(torch.sqrt(s))


def _logistic_dpsi(s):
    """sigma'(r)/(2r) for r > 0; 0 at r = 0 (the subgradient 0 of the cone, docs/papers/dutta2023.md §5.3)."""
    r = torch.sqrt(s)
    sg = torch.sigmoid(r)
    return torch.where(r > 0, sg * (1 - sg) / (2 * torch.where(r > 0, r, torch.ones_like(r))), torch.zeros_like(r))


def _logistic_d2psi(s):
    r = torch.sqrt(s)
    sg = torch.sigmoid(r)
    d1, d2 = sg * (1 - sg), sg * (1 - sg) * (1 - 2 * sg)
    safe = torch.where(r > 0, r, torch.ones_like(r))
    return torch.where(r > 0, (d2 * safe - d1) / (4 * safe**3), torch.zeros_like(r))


P2_LINK = Link("logistic", _logistic_psi, _logistic_dpsi, _logistic_d2psi,
               excess=lambda s: 0.5 * torch.tanh(0.5 * torch.sqrt(s)), curvature=None,
               phi_text="phi(r) = 1/(1 + exp(-r))")

LINKS = {"ls": SQUARE, "p1": P1_LINK, "p1nc": P1NC_LINK, "p2": P2_LINK}


# -- instances ----------------------------------------------------------------------------------------------
class IsotropicAgents(RegressionAgents):
    """Agents with A^{iT} A^i = I (orthonormal columns): G_i = I, so G_i D = D and r_i^2 = ||x - z_i||^2 + s_i exactly,
    without a matrix product (the same costs as :class:`RegressionAgents` with G = I, at a fraction of the time)."""

    def __post_init__(self) -> None:
        super().__post_init__()
        eye = torch.eye(self.dim, dtype=self.G.dtype, device=self.G.device)
        require(bool(torch.equal(self.G, eye.expand_as(self.G))), "G", "IsotropicAgents needs G_i = I for every agent")

    def _gram_times(self, D: torch.Tensor) -> torch.Tensor:
        return D

    def _parts(self, X: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        self._check(X)
        D = X - self.z
        return D, (D.pow(2).sum(-1) + self.s).clamp_min(0.0)


def build(kind: str, generator: torch.Generator, *, N: int = 50, rows: int | None = None, dim: int | None = None,
          isotropic: bool = False, label_noise: float = 0.0, dtype=torch.float64, device="cpu",
          noise_generator: torch.Generator | None = None) -> tuple[RegressionAgents, torch.Tensor]:
    """One instance of a docs/papers/dutta2023.md §5.5 problem: ``ls`` (LS-in-regime defaults l = 2000, d = 5), ``p1`` / ``p1nc`` / ``p2``
    (P1-Gauss defaults l = 100, d = 10). Returns (agents, x°)."""
    require(kind in LINKS, "kind", f"expected one of {sorted(LINKS)}, got {kind!r}")
    rows = rows if rows is not None else (2000 if kind == "ls" else 100)
    dim = dim if dim is not None else (5 if kind == "ls" else 10)
    return gaussian_agents(N, rows, dim, generator, link=LINKS[kind], label_noise=label_noise, isotropic=isotropic,
                           dtype=dtype, device=device, noise_generator=noise_generator)


def label_flip(problem: RegressionAgents, n_byz: int, rows_mask: torch.Tensor) -> RegressionAgents:
    """Attack A5 (data poisoning, docs/papers/dutta2023.md §2.5): in the rows where ``rows_mask [B]`` is true, the Byzantine agents
    0..n_byz-1 run the honest protocol on flipped labels b^j <- -b^j."""
    N = problem.n_clients
    agents = torch.arange(N, device=rows_mask.device) < n_byz
    return problem.flip_labels(rows_mask[:, None] & agents[None, :])


def coordinate_std(sigma, dim: int, batch=1) -> torch.Tensor | float:
    """Per-coordinate standard deviation of the gradient noise: N1 (batch 1) sigma/sqrt(d), so that
    E||noise||^2 = sigma^2; N2 (mini-batch of m N1 draws, averaged) sigma/sqrt(d m)."""
    if isinstance(sigma, torch.Tensor) or isinstance(batch, torch.Tensor):
        return torch.as_tensor(sigma, dtype=torch.float64) / torch.sqrt(torch.as_tensor(batch, dtype=torch.float64) * dim)
    require(sigma >= 0 and batch >= 1, "sigma", f"need sigma >= 0 and batch >= 1, got {sigma}, {batch}")
    return sigma / math.sqrt(dim * batch)


def exact_smoothness(problem: RegressionAgents, first_honest: int = 0) -> Constant:
    """L = curvature(phi) * max_i ||A^i||^2 over the honest agents (docs/papers/dutta2023.md §3, Assumption 1), or infinite when
    phi is not smooth at 0 (problem (12))."""
    G, _, _ = problem.gram_numpy(slice(first_honest, None))
    a2 = float(np.linalg.eigvalsh(G)[:, -1].max())
    if problem.link.curvature is None:
        return Constant("L", math.inf, "exact", f"{problem.link.phi_text} has a cone at zero residual: the gradient is "
                                                f"not Lipschitz (ratio ~ ||A||/(4h) as h -> 0)")
    return Constant("L", problem.link.curvature * a2, "exact",
                    f"sup_r max(|phi''|, phi'/r) = {problem.link.curvature:g} times max_i ||A^i||_2^2 = {a2:.6g} "
                    f"({problem.link.phi_text})")


# -- fedverify constants dutta2023-p1 / -p1nc / -p2 ------------------------------------------------------------
def _add_arguments(p: argparse.ArgumentParser, rows: int = 100, dim: int = 10) -> None:
    from verify.cli_args import int_type

    p.add_argument("--N", type=int_type("--N", 1), default=50, help="agents, Byzantine included (default 50)")
    p.add_argument("--f", type=int_type("--f", 0), default=2, help="Byzantine agents (0..f-1); default 2")
    p.add_argument("--l", type=int_type("--l", 1), default=rows, help=f"rows of A^i (default {rows})")
    p.add_argument("--d", type=int_type("--d", 1), default=dim, help=f"dimension (default {dim})")
    p.add_argument("--isotropic", action="store_true", help="A^i with orthonormal columns (A^iT A^i = I)")
    p.add_argument("--label-noise", type=float, default=0.0, help="label noise std (breaks 2f-redundancy)")
    p.add_argument("--seed", type=int_type("--seed", 0), default=0, help="seed of the instance and of the sampling")


def _size(args) -> tuple[str, int]:
    """The N agents' A^i [l, d] and Gram matrices [d, d]: float64 entries checked before building."""
    return "--N", args.N * (args.l * args.d + args.d * args.d)


def composite_report(kind: str, args) -> list[Constant]:
    """The constants of a docs/papers/dutta2023.md §5.5 instance: L, mu (exact where derivable, else bounds and a sampled estimate),
    the f allowed by condition (9), and 2f-redundancy."""
    require(math.isfinite(args.label_noise) and args.label_noise >= 0, "label_noise", f"must be finite and >= 0, got {args.label_noise}")
    require(0 <= args.f and args.N - 2 * args.f >= 1, "f", f"Definition I.1 needs N - 2f >= 1; got N = {args.N}, f = {args.f}")
    gen = torch.Generator().manual_seed(args.seed)
    prob, x0 = build(kind, gen, N=args.N, rows=args.l, dim=args.d, isotropic=args.isotropic, label_noise=args.label_noise)
    rng = np.random.default_rng(args.seed)
    f, n_h = args.f, args.N - args.f
    link = prob.link
    L = exact_smoothness(prob, f)
    out = [L]
    G, _, _ = prob.gram_numpy(slice(f, None))
    lam = float(np.linalg.eigvalsh(G.sum(0))[0])
    realizable = prob.realizable(slice(f, None))
    oracle = prob.numpy_oracle(slice(f, None))
    if realizable:
        rep = realizable_redundancy(G, f=f, n_total=args.N, rng=rng)
        prefix = "realizable labels, R3 (rank of every size-(N-2f) honest stack); "
        gap = lambda X: oracle.excess(X).mean(1)  # noqa: E731 (psi(r^2) - psi(0): no cancellation)
    else:
        rep = general_redundancy(oracle, f=f, n_total=args.N, rng=rng, x0=np.zeros(args.d), n_sample=2000)
        prefix = "noisy labels, docs/papers/dutta2023.md §1.4 (Levenberg-Marquardt minimisers); "
        q_star = float(oracle.values(rep.x_star[None]).mean())
        gap = lambda X: oracle.values(X).mean(1) - q_star  # noqa: E731
    x_star = x0.cpu().numpy() if realizable else rep.x_star
    sampled = growth_constants(gap, lambda X: oracle.grads(X).mean(1), x_star, rng, directions=60,
                               radii=np.logspace(-3, 2, 26), gap_floor=0.0 if realizable else 1e-9 * max(abs(q_star), 1.0))
    mu_for_f: list[tuple[float, str]] = []
    if realizable and args.isotropic and kind in ("p1", "p1nc"):
        mu, rho = D.isotropic_pl_constant(1.0 if kind == "p1" else 3.0)
        out.append(Constant("mu_PL", mu, "exact",
                            f"A^iT A^i = I, so q^H(x) = phi(||x - x°||) and the PL ratio is phi'(rho)^2/(2 phi(rho)) "
                            f"in rho = ||x - x°|| alone; minimised over rho by a fine grid and a bounded scalar "
                            f"search (minimum at rho = {rho:.4f}); {link.phi_text}"))
        mu_for_f.append((mu, "exact"))
    elif realizable and kind == "p1":
        lo, hi = D.p1_pl_bounds(lam, n_h)
        out.append(Constant("mu_PL_lower", lo, "lower bound",
                            "lambda_min(sum_H A^T A)/(2|H|): phi(r) >= r^2 gives quadratic growth 2 lambda_min/|H|, "
                            "and a convex function with QG(m) is PL(m/4) (docs/papers/dutta2023.md §3)"))
        out.append(Constant("mu_PL_upper", hi, "upper bound", "4 lambda_min(sum_H A^T A)/|H|: the local PL constant at x*"))
        mu_for_f.append((lo, "lower bound"))
    where = "" if realizable else " around the numerical x*_H"
    out.append(Constant("mu_PL_sampled", sampled["mu_PL"].value, "upper bound", sampled["mu_PL"].how + where))
    out.append(Constant("mu_QG_sampled", sampled["mu_QG"].value, "upper bound", sampled["mu_QG"].how + where))
    if not any(label == "exact" for _, label in mu_for_f):
        mu_for_f.append((sampled["mu"].value, "upper bound"))
    if L.finite:
        for mu, label in mu_for_f:
            fmax = D.f_max_condition_9(args.N, mu, L.value) if mu > 0 else 0
            # a lower bound of mu gives a lower bound of the allowed f (certified); an upper bound of mu an upper bound
            out.append(Constant(f"f_max_condition_9{'' if label == 'exact' else '_' + label.split()[0]}", fmax, label,
                                f"floor(N r/(1+r)), r = mu/(3L), with mu = {mu:.6g} ({label}); "
                                f"f = {f} is {'inside' if f <= fmax else 'outside'} condition (9)"))
    else:
        out.append(Constant("f_max_condition_9", 0, "exact", "condition (9) needs a finite L: Theorem 1 does not apply"))
    out += _redundancy_constants(rep, prefix)
    return out


@constants_problem("dutta2023-p1", "dutta2023 problem (11): q^i = ||A^i x - b^i||^2 + sin^2 ||A^i x - b^i|| (convex): "
                   "L, mu_PL, the f allowed by condition (9), 2f-redundancy", _add_arguments, size=_size)
def p1_cli(args) -> list[Constant]:
    return composite_report("p1", args)


@constants_problem("dutta2023-p1nc", "the non-convex PL variant of problem (11): phi(r) = r^2 + 3 sin^2 r", _add_arguments,
                   size=_size)
def p1nc_cli(args) -> list[Constant]:
    return composite_report("p1nc", args)


@constants_problem("dutta2023-p2", "dutta2023 problem (12): q^i = 1/(1 + exp(-||A^i x - b^i||)) (not smooth, not PL)",
                   _add_arguments, size=_size)
def p2_cli(args) -> list[Constant]:
    return composite_report("p2", args)
