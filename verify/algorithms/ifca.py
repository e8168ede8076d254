"""IFCA (Ghosh et al. 2020, Options I and II) and HypCluster (Mansour et al. 2020), batched.

Both keep K cluster models theta_k and assign by LOSS VALUE (werner2023 section 2.1):
    each round, client i picks  j_i = argmin_k f_i(theta_k)  (ties go to the smaller k).

* IFCA Option I (gradient averaging), IFCA's Algorithm 1 (Ghosh et al. 2020), line "theta_j <- theta_j -
  (gamma/m) sum_{i in M_t} s_{i,j} g_i":  theta_k <- theta_k - gamma * (1/m) sum_{i: j_i = k} g_i(theta_k), divided by
  m = N, the number of all participating clients (``normalize="all"``, the default; the authors' reference code
  jichan3751/ifca, synthetic/train_cluster.py ``gradient_update``, divides by m as well). ``normalize="members"``
  divides by the cluster size m_k instead (a step gamma N/m_k times larger for small clusters), an option.
* IFCA Option II (model averaging): each client runs LocalUpdate, ``local_steps`` gradient steps
  of size gamma from theta_{j_i}; theta_k <- average of its members' returned models.
* HypCluster: "a centralized version of Option II": the server takes ``local_steps`` gradient
  steps on each cluster's pooled loss (1/m_k) sum_{i: j_i = k} f_i from theta_k.

A cluster with no members keeps its model. HypCluster normalises by the members (its pooled loss is a mean
over the cluster), so with local_steps = 1 HypCluster, Option II and Option I with ``normalize="members"``
coincide, which the property tests use. tests/verify/test_algorithms_clustering.py pins Option I against
the reference code's per-round assignments and parameters on one instance.
"""
from __future__ import annotations

from dataclasses import dataclass

import torch

from analytic.errors import InputError
from verify.problems.base import ClientProblem, at_cluster_models, per_replicate

OPTIONS = ("I", "II", "hypcluster")


@dataclass
class IFCATrace:
    """theta [T+1, R, K, d]; assign [T, R, N] (the j_i used in round t, index t-1);
    losses [T, R, K, N] f_i(theta_k) seen by the assignment; client_loss [T+1, R, N]
    f_i(theta_{j_i}) at the end of each round (index 0: at initialisation, best model);
    grads [T, R, K, N, d] g_i(theta_k) (Option I and HypCluster's first step; only when recorded)."""

    theta: torch.Tensor
    assign: torch.Tensor
    losses: torch.Tensor
    client_loss: torch.Tensor
    grads: torch.Tensor | None


def _grad(problem: ClientProblem, X: torch.Tensor, generator, batch_size) -> torch.Tensor:
    return problem.stochastic_grad(X, generator, batch_size) if problem.stochastic else problem.grad(X)


def _member_mean(values: torch.Tensor, members: torch.Tensor, normalize: str) -> tuple[torch.Tensor, torch.Tensor]:
    """Sum of ``values [R, K, N, d]`` over members ``[R, K, N]`` divided by m_k or N."""
    s = (members[..., None] * values).sum(2)
    m = members.sum(2)[..., None]
    denom = m.clamp(min=1) if normalize == "members" else torch.full_like(m, values.shape[2])
    return s / denom, m


def ifca(
    problem: ClientProblem,
    theta0: torch.Tensor,
    gamma,
    T: int,
    *,
    option: str = "I",
    local_steps: int = 1,
    normalize: str | None = None,
    generator: torch.Generator | None = None,
    batch_size=1,
    record_grads: bool = True,
) -> IFCATrace:
    """Run IFCA (option ``I`` or ``II``) or HypCluster (``option="hypcluster"``) for T rounds.

    ``theta0 [R, K, d]``; ``gamma`` a float or ``[R]`` tensor; ``local_steps`` is tau_loc. ``normalize`` (Option I
    and HypCluster): ``"all"`` divides the members' gradient sum by N (IFCA's Algorithm 1), ``"members"`` by the
    cluster size; ``None`` picks ``"all"`` for Option I and ``"members"`` for HypCluster.
    """
    if option not in OPTIONS:
        raise InputError("option", f"expected one of {OPTIONS}, got {option!r}")
    if normalize is None:
        normalize = "members" if option == "hypcluster" else "all"
    if normalize not in ("members", "all"):
        raise InputError("normalize", f"expected members or all, got {normalize!r}")
    if theta0.dim() != 3:
        raise InputError("theta0", f"expected [R, K, d], got {tuple(theta0.shape)}")
    if T < 1 or local_steps < 1:
        raise InputError("T, local_steps", f"must be >= 1, got T={T}, local_steps={local_steps}")
    R, K, d = theta0.shape
    N = problem.n_clients
    step = per_replicate(gamma, theta0)
    need_grad = option != "II"

    def evaluate(th):
        X = at_cluster_models(th, N)
        if not need_grad:
            return problem.loss(X), None
        if problem.stochastic:
            return problem.loss(X), problem.stochastic_grad(X, generator, batch_size)
        return problem.loss_and_grad(X)

    if option == "I" and not record_grads and not problem.stochastic and hasattr(problem, "ifca_pass"):
        return _ifca_member_sums(problem, theta0, step, T, normalize)
    theta = theta0.clone()
    L, G = evaluate(theta)
    thetas, assigns, losses, grads = [theta.clone()], [], [], []
    client_loss = [L.min(1).values]
    for _ in range(T):
        j = L.argmin(1)  # loss-based assignment, ties to the smaller k
        members = torch.nn.functional.one_hot(j, K).transpose(1, 2).to(theta.dtype)  # [R, K, N]
        if record_grads and G is not None:
            grads.append(G)
        if option == "II":
            x = theta.gather(1, j[..., None].expand(R, N, d))  # each client starts at its model
            for _ in range(local_steps):
                x = x - step * _grad(problem, x, generator, batch_size)
            avg, m = _member_mean(x[:, None].expand(R, K, N, d), members, "members")
            theta = torch.where(m > 0, avg, theta)
        else:
            for s in range(1 if option == "I" else local_steps):
                if s > 0:
                    G = _grad(problem, at_cluster_models(theta, N), generator, batch_size)
                upd, m = _member_mean(G, members, normalize)
                theta = theta - step * torch.where(m > 0, upd, torch.zeros_like(upd))
        thetas.append(theta.clone()), assigns.append(j), losses.append(L)
        L, G = evaluate(theta)
        client_loss.append(L.gather(1, j[:, None]).squeeze(1))
    return IFCATrace(
        torch.stack(thetas), torch.stack(assigns), torch.stack(losses), torch.stack(client_loss),
        torch.stack(grads) if grads else None,
    )


def _ifca_member_sums(problem, theta0: torch.Tensor, step, T: int, normalize: str) -> IFCATrace:
    """IFCA Option I by the problem's ``ifca_pass`` (every client's loss at every model, its gradient only at its
    assigned model, summed per cluster: S_k): theta_k <- theta_k - gamma S_k / N, or gamma S_k / max(m_k, 1) with
    ``normalize="members"`` (S_k = 0 for an empty cluster, which keeps its model). The trace of :func:`ifca` without
    ``grads``, written in place round by round; the models within rounding of the general path's (the members'
    gradients summed in another order; a cluster's sum also stays free of non-members' non-finite values)."""
    R, K, d = theta0.shape
    N = problem.n_clients
    thetas = theta0.new_empty(T + 1, R, K, d)
    losses = theta0.new_empty(T, R, K, N)
    assign = torch.empty(T, R, N, dtype=torch.long, device=theta0.device)
    thetas[0] = theta0
    run = problem.ifca_pass(thetas, losses, assign)
    theta = thetas.unbind(0)  # per-round views, made once
    tensor_step = isinstance(step, torch.Tensor)
    for t in range(T):
        S = run.member_sums(t)
        if normalize == "members":  # gamma / max(m_k, 1), m_k the members of cluster k
            m_k = torch.nn.functional.one_hot(assign[t], K).sum(1).clamp_(min=1).to(theta0.dtype)[..., None]
            torch.addcmul(theta[t], S, step / m_k, value=-1.0, out=theta[t + 1])
        elif tensor_step:
            torch.addcmul(theta[t], S, step, value=-1.0 / N, out=theta[t + 1])
        else:
            torch.add(theta[t], S, alpha=-step / N, out=theta[t + 1])
    client_loss = theta0.new_empty(T + 1, R, N)
    torch.amin(losses[0], 1, out=client_loss[0])
    torch.gather(losses[1:], 2, assign[:-1, :, None], out=client_loss[1:T, :, None])
    run.assigned_losses(T, assign[-1], client_loss[T])  # after the last round: each client at its model only
    return IFCATrace(thetas, assign, losses, client_loss, None)


def hypcluster(problem: ClientProblem, theta0: torch.Tensor, gamma, T: int, *, local_steps: int = 1, **kw) -> IFCATrace:
    """HypCluster: loss-based assignment, then ``local_steps`` centralised steps per cluster."""
    return ifca(problem, theta0, gamma, T, option="hypcluster", local_steps=local_steps, **kw)


def partition_matches(labels: torch.Tensor, truth) -> torch.Tensor:
    """``[..., N]`` labels -> bool ``[...]``: same partition as ``truth`` up to renaming clusters."""
    t = torch.as_tensor(truth, device=labels.device)
    same_pred = labels[..., :, None] == labels[..., None, :]
    same_true = t[:, None] == t[None, :]
    return (same_pred == same_true).all(-1).all(-1)
