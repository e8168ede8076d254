"""Byzantine attacks of werner2023 (section 4.4, docs/papers/werner2023.md §1.6 and 5.6), batched.

Registered attacks (``attack(honest [R, h, d], f, ...) -> [R, f, d]``, the package's interface):

* ``large_gaussian`` -- "very large gradients": every coordinate ~ N(mean, std^2), fresh per vector
  (reference code: mean 1e6, std 200);
* ``bit_flip`` -- "gradients with opposite signs": -g of one fixed good client (reference code: good
  worker 0), ``reference`` its index among the honest vectors.

The threat model's worst case against Threshold-Clustering is different in kind: the bad points sit
just inside the current ball, v + tau (1 - 1e-9) u, and move with the center at every clustering
step (``edge_of_ball_attack`` in verify.algorithms.threshold_clustering). :class:`Byzantine` bundles
one of these attacks with the number of bad clients for the algorithms of werner2023: round-level
attacks send one vector per recipient and round, the edge-of-ball attack is placed at every step.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import torch

from analytic.errors import InputError, require
from verify.attacks import ATTACKS, attack
from verify.algorithms.threshold_clustering import edge_of_ball_attack
from verify.normal_draws import randn

EDGE_OF_BALL = "edge_of_ball"


@attack("large_gaussian")
def large_gaussian(honest: torch.Tensor, f: int, *, mean: float = 1e6, std: float = 200.0,
                   generator: torch.Generator | None = None, **_) -> torch.Tensor:
    """f vectors with i.i.d. N(mean, std^2) coordinates (werner2023 reference code's Gaussian attack)."""
    require(isinstance(f, int) and f >= 0, "f", f"must be an integer >= 0, got {f!r}")
    require(generator is not None, "generator", "a random attack needs an explicit torch.Generator")
    R, _, d = honest.shape
    return mean + std * randn(R, f, d, generator=generator, dtype=honest.dtype, device=honest.device)


@attack("bit_flip")
def bit_flip(honest: torch.Tensor, f: int, *, reference: int = 0, **_) -> torch.Tensor:
    """f copies of -g_ref, the negated vector of one fixed good client (index ``reference``)."""
    require(isinstance(f, int) and f >= 0, "f", f"must be an integer >= 0, got {f!r}")
    require(0 <= reference < honest.shape[1], "reference", f"must index one of {honest.shape[1]} honest vectors, got {reference}")
    return (-honest[:, reference])[:, None, :].expand(-1, f, -1).clone()


@dataclass(frozen=True)
class Byzantine:
    """``count`` Byzantine clients running ``name``: a registered attack (verify.attacks) or
    ``edge_of_ball``. ``direction [R, d]`` is the edge-of-ball attack's unit vector per replicate;
    ``options`` are the registered attack's keyword arguments."""

    name: str
    count: int
    options: dict = field(default_factory=dict)
    direction: torch.Tensor | None = None

    def __post_init__(self) -> None:
        require(isinstance(self.count, int) and self.count >= 0, "count", f"must be an integer >= 0, got {self.count!r}")
        if self.name == EDGE_OF_BALL:
            require(self.direction is not None and self.direction.dim() == 2, "direction",
                    "the edge-of-ball attack needs a unit vector per replicate [R, d]")
        elif self.name not in ATTACKS:
            raise InputError("attack", f"unknown attack {self.name!r}; known: {', '.join(sorted(ATTACKS))}, {EDGE_OF_BALL}")

    @property
    def per_step(self) -> bool:
        """True when the bad points move with the center at every Threshold-Clustering step."""
        return self.name == EDGE_OF_BALL

    def vectors(self, honest: torch.Tensor, generator: torch.Generator | None = None) -> torch.Tensor:
        """Round-level attack: the bad vectors ``[R', count, d]`` sent to each of R' recipients whose
        honest vectors are ``honest [R', h, d]``."""
        require(not self.per_step, "attack", "the edge-of-ball attack is placed per clustering step (tc_attack)")
        return ATTACKS[self.name](honest, self.count, generator=generator, **self.options)

    def tc_attack(self, rows_per_replicate: int):
        """Per-step attack for Threshold-Clustering on ``[R * rows_per_replicate, K, d]`` centers."""
        require(self.per_step, "attack", f"{self.name!r} is a round-level attack (vectors)")
        return edge_of_ball_attack(self.direction.repeat_interleave(rows_per_replicate, 0), self.count)
