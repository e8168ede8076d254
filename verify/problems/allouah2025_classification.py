"""Honest workers holding labelled examples for softmax regression: the problem the label-flipping attack
(LF) poisons (allouah2025 section 5, "Label Flipping"; docs/papers/allouah2025.md §2.6).

Worker i holds m examples (a, y), a in R^p (the last feature is a constant 1, the bias), y in
{0..K-1}; the model is W in R^{K x p}, flattened to theta in R^{K p}, and the per-example loss is the
negative log-likelihood of the softmax, whose gradient is

    grad l(W; a, y) = (softmax(W a) - e_y) a^T.

The data: class k's features are N(mu_k, I) with means mu_k = separation * (random unit vector);
worker i draws its labels with class probabilities softmax(skew * g_i), g_i ~ N(0, I_K) (skew = 0:
homogeneous workers). Label flipping maps y to K - 1 - y (ByzFL's ``targets.sub(K - 1).mul(-1)``; 9 - y
on MNIST). In ByzFL's benchmark the Byzantine workers send the mean of the honest workers'
flipped-label minibatch gradients (:func:`verify.attacks.allouah2025_attacks.label_flipping`).
"""
from __future__ import annotations

from dataclasses import dataclass

import torch

from analytic.errors import InputError, require
from verify.normal_draws import randn
from verify.problems.allouah2025_quadratic import sample_without_replacement


def flipped(labels: torch.Tensor, n_classes: int) -> torch.Tensor:
    """Label flipping: y -> K - 1 - y."""
    return (n_classes - 1) - labels


@dataclass(frozen=True)
class SoftmaxWorkers:
    """``features [R, h, m, p]`` (last column 1), ``labels [R, h, m]`` in {0..K-1}."""

    features: torch.Tensor
    labels: torch.Tensor
    n_classes: int
    name: str = "softmax regression on labelled examples (allouah2025 LF)"

    def __post_init__(self) -> None:
        if self.features.dim() != 4 or self.labels.shape != self.features.shape[:3]:
            raise InputError("features", f"expected features [R, h, m, p] and labels [R, h, m], got "
                                         f"{tuple(self.features.shape)} and {tuple(self.labels.shape)}")
        if int(self.labels.min()) < 0 or int(self.labels.max()) >= self.n_classes:
            raise InputError("labels", f"must lie in [0, {self.n_classes})")

    @property
    def replicates(self) -> int:
        return self.features.shape[0]

    @property
    def n_clients(self) -> int:
        return self.features.shape[1]

    @property
    def samples_per_worker(self) -> int:
        return self.features.shape[2]

    @property
    def n_features(self) -> int:
        return self.features.shape[3]

    @property
    def dim(self) -> int:
        return self.n_classes * self.n_features

    def _per_worker(self, theta: torch.Tensor) -> torch.Tensor:
        """theta ``[R, D]`` or ``[R, h, D]`` as ``[R, h, K, p]``."""
        if theta.dim() == 2:
            theta = theta[:, None, :].expand(-1, self.n_clients, -1)
        if theta.shape != (self.replicates, self.n_clients, self.dim):
            raise InputError("theta", f"expected [R, D] or [R, h, D] with D = {self.dim}, got {tuple(theta.shape)}")
        return theta.reshape(self.replicates, self.n_clients, self.n_classes, self.n_features)

    def _grad(self, theta: torch.Tensor, A: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        W = self._per_worker(theta)
        P = torch.softmax(torch.einsum("rhkp,rhbp->rhbk", W, A), dim=-1)
        P = P - torch.nn.functional.one_hot(y, self.n_classes).to(P)
        return torch.einsum("rhbk,rhbp->rhkp", P, A).reshape(self.replicates, self.n_clients, -1) / A.shape[2]

    def sample_batch(self, generator: torch.Generator, batch_size: int) -> torch.Tensor:
        """Indices ``[R, h, b]`` of a fresh minibatch per worker, without replacement."""
        return sample_without_replacement(generator, (self.replicates, self.n_clients), self.samples_per_worker,
                                          batch_size, self.features.device)

    def batch_grad(self, theta: torch.Tensor, idx: torch.Tensor | None, flip_labels: bool = False) -> torch.Tensor:
        """Minibatch-mean gradient of each worker ``[R, h, K p]`` (labels flipped if asked; ``idx = None``: full batch)."""
        if idx is None:
            return self.full_grad(theta, flip_labels)
        A = torch.gather(self.features, 2, idx[..., None].expand(-1, -1, -1, self.n_features))
        y = torch.gather(self.labels, 2, idx)
        return self._grad(theta, A, flipped(y, self.n_classes) if flip_labels else y)

    def full_grad(self, theta: torch.Tensor, flip_labels: bool = False) -> torch.Tensor:
        """Each worker's full-batch gradient ``[R, h, K p]``."""
        y = flipped(self.labels, self.n_classes) if flip_labels else self.labels
        return self._grad(theta, self.features, y)

    def honest_gradient(self, theta: torch.Tensor) -> torch.Tensor:
        """grad L_H(theta) ``[R, K p]`` (the workers hold the same number of examples)."""
        return self.full_grad(theta).mean(1)

    def loss(self, theta: torch.Tensor) -> torch.Tensor:
        """Honest loss L_H(theta) ``[R]`` (mean negative log-likelihood over all honest examples)."""
        logits = torch.einsum("rhkp,rhmp->rhmk", self._per_worker(theta), self.features)
        logp = torch.log_softmax(logits, dim=-1)
        return -torch.gather(logp, -1, self.labels[..., None]).mean((1, 2, 3))

    def accuracy(self, theta: torch.Tensor) -> torch.Tensor:
        """Fraction of honest examples classified correctly ``[R]``."""
        logits = torch.einsum("rhkp,rhmp->rhmk", self._per_worker(theta), self.features)
        return (logits.argmax(-1) == self.labels).to(self.features.dtype).mean((1, 2))


def softmax_workers(R: int, h: int, m: int, p: int, n_classes: int = 10, *, separation: float = 3.0,
                    skew: float = 0.0, generator: torch.Generator, dtype=torch.float64, device="cpu") -> SoftmaxWorkers:
    """Gaussian class-conditional features in R^{p-1} plus a bias feature, labels skewed per worker."""
    for name, v in (("R", R), ("h", h), ("m", m), ("n_classes", n_classes)):
        require(isinstance(v, int) and v >= 1, name, f"must be an integer >= 1, got {v!r}")
    require(isinstance(p, int) and p >= 2, "p", f"needs at least one feature besides the bias, got {p!r}")
    require(separation >= 0 and skew >= 0, "separation", "separation and skew must be >= 0")
    means = randn(R, 1, n_classes, p - 1, generator=generator, dtype=dtype, device=device)
    means = separation * means / torch.linalg.vector_norm(means, dim=-1, keepdim=True)
    logits = skew * randn(R, h, n_classes, generator=generator, dtype=dtype, device=device)
    probs = torch.softmax(logits, dim=-1).reshape(R * h, n_classes)
    labels = torch.multinomial(probs, m, replacement=True, generator=generator).reshape(R, h, m)
    centre = torch.gather(means.expand(R, h, n_classes, p - 1), 2, labels[..., None].expand(-1, -1, -1, p - 1))
    x = centre + randn(R, h, m, p - 1, generator=generator, dtype=dtype, device=device)
    ones = torch.ones(R, h, m, 1, dtype=dtype, device=device)
    return SoftmaxWorkers(torch.cat([x, ones], -1), labels, n_classes)
