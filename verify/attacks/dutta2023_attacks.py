"""The attacks of dutta2023's library that the classic module lacks (docs/papers/dutta2023.md §2.5; the paper names none).

The Byzantine agents send models y^j (not updates). They are omniscient: they see the server's
model x_k (context ``reference`` [R, d]), every honest model and the honest optimum x*_H (context
``x_star`` [R, d] or [d]). Each function returns ``[R, f, d]`` from the honest models ``[R, h, d]``.

* A1 ``reference_random``: x_k + s xi, xi ~ N(0, I_d) per Byzantine agent, s = ``scale`` times the median
  honest distance ||y^i - x_k|| (default 100): far outside the honest ball, CE always removes it.
* A2 ``reference_sign_flip``: x_k - kappa (ybar_H - x_k), the honest mean update reversed (kappa in {1, 3}).
* A3 ``ce_evasion``: x_k + rho_k u_k, rho_k the q-quantile of the honest distances (q in {0.5, 0.9, 1 - 1e-9})
  and u_k = (x_k - x*_H)/||x_k - x*_H|| (a random unit vector when x_k = x*_H): it pushes away from the
  optimum while staying inside the honest radius (the strongest attack on CE). The f copies are identical, so
  CE keeps as many as fit among its N - f closest: all f at q = 0.5, only one at q = 1 - 1e-9.

A4 (ALIE, mean - z std) is the classic ``alie`` with ``tau = -z``; A5 (label flip) changes the Byzantine
agents' data (:func:`verify.problems.dutta2023_problems.label_flip`); A6 (constant 1e3) is the classic ``large``.
"""
from __future__ import annotations

import torch

from analytic.errors import require
from verify.attacks import attack
from verify.normal_draws import randn


def _distances(honest: torch.Tensor, reference) -> tuple[torch.Tensor, torch.Tensor]:
    require(reference is not None, "reference", "this attack needs the server's current model (context 'reference')")
    ref = torch.as_tensor(reference, dtype=honest.dtype, device=honest.device)
    ref = ref.expand(honest.shape[0], -1) if ref.dim() == 1 else ref
    return ref, torch.linalg.vector_norm(honest - ref[:, None], dim=-1)


def _quantile(dist: torch.Tensor, q: float) -> torch.Tensor:
    """The q-quantile of each row with linear interpolation (torch.quantile's rule), from one sort."""
    s = dist.sort(dim=1).values
    pos = q * (s.shape[1] - 1)
    lo = min(int(pos), s.shape[1] - 1)
    hi = min(lo + 1, s.shape[1] - 1)
    return s[:, lo] + (pos - lo) * (s[:, hi] - s[:, lo])


def _stack(v: torch.Tensor, f: int) -> torch.Tensor:
    require(isinstance(f, int) and f >= 0, "f", f"must be an integer >= 0, got {f!r}")
    return v[:, None, :].expand(-1, f, -1).clone()


@attack("reference_random")
def reference_random(honest: torch.Tensor, f: int, *, reference=None, scale: float = 100.0,
                     generator: torch.Generator | None = None, **_) -> torch.Tensor:
    """A1: x_k + s xi with s = scale * median_i ||y^i - x_k||, xi ~ N(0, I) independently per Byzantine agent."""
    require(generator is not None, "generator", "a random attack needs an explicit torch.Generator")
    require(isinstance(f, int) and f >= 0, "f", f"must be an integer >= 0, got {f!r}")
    ref, dist = _distances(honest, reference)
    s = scale * dist.median(dim=1).values
    xi = randn(honest.shape[0], f, honest.shape[2], generator=generator, dtype=honest.dtype, device=honest.device)
    return ref[:, None] + s[:, None, None] * xi


@attack("reference_sign_flip")
def reference_sign_flip(honest: torch.Tensor, f: int, *, reference=None, kappa: float = 1.0, **_) -> torch.Tensor:
    """A2: x_k - kappa (ybar_H - x_k)."""
    ref, _ = _distances(honest, reference)
    return _stack(ref - kappa * (honest.mean(1) - ref), f)


@attack("ce_evasion")
def ce_evasion(honest: torch.Tensor, f: int, *, reference=None, x_star=None, q: float = 0.5,
               generator: torch.Generator | None = None, **_) -> torch.Tensor:
    """A3: x_k + rho_k u_k, rho_k = q-quantile of the honest distances to x_k, u_k the unit vector from x*_H to x_k."""
    require(0.0 <= q <= 1.0, "q", f"must lie in [0, 1], got {q}")
    require(x_star is not None, "x_star", "the CE-evasion attack needs the honest optimum (context 'x_star')")
    ref, dist = _distances(honest, reference)
    xs = torch.as_tensor(x_star, dtype=honest.dtype, device=honest.device)
    u = ref - (xs.expand_as(ref) if xs.dim() == 1 else xs)
    norm = torch.linalg.vector_norm(u, dim=-1, keepdim=True)
    if not bool(norm.all()):  # some x_k = x*_H (one reduction; the mask only then)
        at_optimum = norm[:, 0] == 0
        require(generator is not None, "generator", "x_k = x*_H: a random direction needs an explicit torch.Generator")
        v = randn(u.shape, generator=generator, dtype=u.dtype, device=u.device)
        u = torch.where(at_optimum[:, None], v, u)
        norm = torch.linalg.vector_norm(u, dim=-1, keepdim=True)
    return _stack(ref + _quantile(dist, q)[:, None] * u / norm, f)
