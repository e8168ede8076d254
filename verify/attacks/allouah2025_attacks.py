"""Attacks for allouah2025 beyond the classic ones (ALIE, FOE, SF live in :mod:`verify.attacks.classic`).

* LF, label flipping (paper section 5; docs/papers/allouah2025.md §2.6): a data-level attack. The Byzantine workers compute
  gradients with labels y -> K-1-y; as in ByzFL's benchmark they all send the mean of the honest workers'
  flipped-label minibatch gradients, passed as ``flipped_gradients [R, h, d]`` (what an omniscient
  attacker computes with the honest data; the problem it poisons is
  :mod:`verify.problems.allouah2025_classification`).
* Adversarial inputs for Proposition 4.1 (Claim 11), in units of the honest top standard
  deviation sigma_H = sqrt(lambda_max(Cov_H)) about the honest mean mu_H:

  - ``top_eigen``: all f at mu_H + k sigma_H v_1, v_1 the honest top eigenvector (the direction where a
    covariance filter is weakest: it inflates the top eigenvalue least per unit of bias);
  - ``far_cluster``: a tight cluster at distance ``distance`` sigma_H in a random direction;
  - ``mixture``: each Byzantine picks one of ALIE (tau in +-{0.5, 1, 1.5, 3}), FOE (tau = 2),
    ``top_eigen`` (k in {1, 2, 4}) and ``far_cluster`` (distance 20) at random.

All take ``honest [R, h, d]`` and return ``[R, f, d]``; random ones need an explicit generator.
"""
from __future__ import annotations

import torch

from analytic.errors import require
from verify.aggregators.caf import top_eigenpair
from verify.attacks import attack
from verify.attacks.classic import alie, fall_of_empires
from verify.normal_draws import randn


def honest_top_direction(honest: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """(mu_H [R, d], sigma_H [R], v_1 [R, d]): honest mean, top standard deviation and top eigenvector
    of the honest covariance (1/h) sum (x - mu_H)(x - mu_H)^T (exact eigensolver)."""
    mu = honest.mean(1)
    w = torch.full(honest.shape[:2], 1.0 / honest.shape[1], dtype=honest.dtype, device=honest.device)
    lam, v = top_eigenpair(honest - mu[:, None], w)
    return mu, lam.sqrt(), v


def _check_f(f: int) -> None:
    require(isinstance(f, int) and f >= 0, "f", f"must be an integer >= 0, got {f!r}")


@attack("lf")
def label_flipping(honest: torch.Tensor, f: int, *, flipped_gradients: torch.Tensor | None = None, **_) -> torch.Tensor:
    """Every Byzantine sends the mean of the honest workers' flipped-label gradients (ByzFL's LabelFlipping)."""
    _check_f(f)
    require(flipped_gradients is not None, "flipped_gradients",
            "label flipping is a data-level attack: pass the honest workers' flipped-label gradients [R, h, d]")
    require(flipped_gradients.dim() == 3 and flipped_gradients.shape[0] == honest.shape[0]
            and flipped_gradients.shape[2] == honest.shape[2], "flipped_gradients",
            f"expected [R, h, d] matching honest {tuple(honest.shape)}, got {tuple(flipped_gradients.shape)}")
    return flipped_gradients.mean(1)[:, None, :].expand(-1, f, -1).clone()


@attack("top_eigen")
def top_eigen(honest: torch.Tensor, f: int, *, k: float = 2.0, **_) -> torch.Tensor:
    """All f Byzantines at mu_H + k sigma_H v_1 (v_1: top eigenvector of the honest covariance)."""
    _check_f(f)
    mu, sigma, v = honest_top_direction(honest)
    return (mu + k * sigma[:, None] * v)[:, None, :].expand(-1, f, -1).clone()


@attack("far_cluster")
def far_cluster(honest: torch.Tensor, f: int, *, distance: float = 20.0, spread: float = 0.1,
                generator: torch.Generator | None = None, **_) -> torch.Tensor:
    """A cluster at mu_H + distance sigma_H u (u a random unit vector) with spread sigma_H * spread per coordinate."""
    _check_f(f)
    require(generator is not None, "generator", "a random attack needs an explicit torch.Generator")
    R, _, d = honest.shape
    mu, sigma, _ = honest_top_direction(honest)
    u = randn(R, d, generator=generator, dtype=honest.dtype, device=honest.device)
    u = u / torch.linalg.vector_norm(u, dim=-1, keepdim=True)
    z = randn(R, f, d, generator=generator, dtype=honest.dtype, device=honest.device)
    s = sigma[:, None, None]
    return mu[:, None, :] + distance * s * u[:, None, :] + spread * s * z


@attack("mixture")
def mixture(honest: torch.Tensor, f: int, *, generator: torch.Generator | None = None, **_) -> torch.Tensor:
    """Each Byzantine vector is drawn from one of ALIE (+-tau), FOE, top_eigen and far_cluster, at random."""
    _check_f(f)
    require(generator is not None, "generator", "a random attack needs an explicit torch.Generator")
    R, _, d = honest.shape
    candidates = [alie(honest, 1, tau=s * t) for t in (0.5, 1.0, 1.5, 3.0) for s in (1.0, -1.0)]
    candidates += [fall_of_empires(honest, 1, tau=2.0)]
    candidates += [top_eigen(honest, 1, k=k) for k in (1.0, 2.0, 4.0)]
    candidates += [far_cluster(honest, 1, distance=20.0, generator=generator)]
    pool = torch.cat(candidates, 1)  # [R, P, d]
    pick = torch.randint(0, pool.shape[1], (R, f), generator=generator, device=honest.device)
    return torch.gather(pool, 1, pick[..., None].expand(-1, -1, d))
