"""Baselines of werner2023 (section 2.5 of our reading (docs/papers/werner2023.md); Fig. 3, Table 1), batched over replicates:

* ``local``  -- every client trains alone: x_i <- x_i - eta g_i(x_i);
* ``fedavg`` -- one global model for (1): x <- x - eta (1/N') sum_j g_j(x), N' counting any Byzantine
  vectors, which a plain average takes in (the "Global" of the paper);
* ``ground_truth`` -- FedAvg inside each true cluster (the oracle "GT"): x_k <- x_k - eta mean_{j in k} g_j(x_k).

IFCA, CFL and Myopic-Clustering live in their own modules (verify.algorithms.ifca, .cfl, .myopic).
Each baseline returns a :class:`BaselineRun` with the per-round quantities Federated-Clustering
records (verify.algorithms.federated_clustering.FCRun), so all run on the same problems and seeds.
"""
from __future__ import annotations

from dataclasses import dataclass

import torch

from analytic.errors import InputError
from verify.algorithms.federated_clustering import client_steps
from verify.problems.base import ClientProblem

BASELINES = ("local", "fedavg", "ground_truth")


@dataclass
class BaselineRun:
    """grad_sq [T, R, N] ||grad f_i(x_{i,t-1})||^2 with x_i the model client i uses; dist_sq [T+1, R, N]
    ||x_{i,t} - x*_i||^2; x [R, N, d] final models (per client); communication per round."""

    grad_sq: torch.Tensor
    dist_sq: torch.Tensor
    x: torch.Tensor
    communication: dict
    models: torch.Tensor | None = None  # [T+1, R, N, d] when recorded

    def running_mean(self) -> torch.Tensor:
        t = torch.arange(1, self.grad_sq.shape[0] + 1, dtype=self.grad_sq.dtype, device=self.grad_sq.device)
        return self.grad_sq.cumsum(0) / t[:, None, None]


def _oracle(problem: ClientProblem, X: torch.Tensor, generator, batch_size) -> torch.Tensor:
    return problem.stochastic_grad(X, generator, batch_size) if problem.stochastic else problem.grad(X)


def baseline(
    name: str,
    problem: ClientProblem,
    x0: torch.Tensor,
    eta,
    T: int,
    *,
    batch_size=1,
    generator: torch.Generator | None = None,
    byzantine=None,
    record_models: bool = False,
) -> BaselineRun:
    """Run ``local``, ``fedavg`` or ``ground_truth`` for T rounds from per-client models ``x0 [R, N, d]``
    with step ``eta`` (a float, ``[R]`` or ``[R, N]``; GT needs one step per cluster)
    (FedAvg starts from the clients' mean model, GT from each cluster's mean model). ``byzantine``
    (verify.attacks.werner2023_attacks.Byzantine, round-level attacks) corrupts FedAvg's average;
    ``record_models`` keeps every round's per-client models."""
    if name not in BASELINES:
        raise InputError("baseline", f"expected one of {BASELINES}, got {name!r}")
    problem.check_run(x0, T, generator)
    if byzantine is not None and byzantine.count and (name != "fedavg" or byzantine.per_step):
        raise InputError("byzantine", "only FedAvg's plain average takes Byzantine vectors (round-level attacks)")
    R, N, d = x0.shape
    step = client_steps(eta, x0)
    truth = torch.as_tensor(problem.true_labels, device=x0.device)
    onehot = torch.nn.functional.one_hot(truth).to(x0.dtype)  # [N, K]
    size = onehot.sum(0)
    if name == "fedavg":
        x = x0.mean(1, keepdim=True).expand(R, N, d).clone()
    elif name == "ground_truth":
        x = (torch.einsum("rnd,nk->rkd", x0, onehot) / size[None, :, None])[:, truth]
    else:
        x = x0.clone()
    opt = problem.optima()
    grad_sq, dist_sq, models = [], [((x - opt) ** 2).sum(-1)], [x.clone()] if record_models else None
    comm = {"uplink": [], "downlink": [], "gradient_evaluations": []}
    for _ in range(T):
        grad_sq.append((problem.grad(x) ** 2).sum(-1))
        g = _oracle(problem, x, generator, batch_size)  # every client at the model it uses
        if name == "local":
            v, up = g, 0
        elif name == "fedavg":
            if byzantine is not None and byzantine.count:
                g = torch.cat([g, byzantine.vectors(g, generator)], 1)
            v, up = g.mean(1, keepdim=True).expand(R, N, d), N
        else:
            v, up = (torch.einsum("rnd,nk->rkd", g, onehot) / size[None, :, None])[:, truth], N
        x = x - step * v
        dist_sq.append(((x - opt) ** 2).sum(-1))
        if record_models:
            models.append(x.clone())
        comm["gradient_evaluations"].append(N), comm["uplink"].append(up), comm["downlink"].append(up)
    return BaselineRun(torch.stack(grad_sq), torch.stack(dist_sq), x, comm, torch.stack(models) if record_models else None)
