"""Three classroom toys beyond werner2023, each run with the project's own algorithms (nothing re-implemented):

* ``byzantine`` (dutta2023): Algorithm 1 (local SGD, :func:`verify.algorithms.local_sgd_ce.local_sgd_ce` through
  :func:`verify.checks.dutta2023.common.simulate`) on the LS-in-regime least-squares instance of checks c18/c20, with
  ``f`` Byzantine agents sending the constant vector 1e3 1 (attack A6). The plain mean follows them away; comparative
  elimination (CE: drop the f messages farthest from the server model, average the rest) does not.
* ``cafcor`` (allouah2025): the protocol noise of CafCor/SecLDP (:func:`verify.correlated_noise.protocol_noise`):
  every pair of workers (i, j) shares a seed and adds +v^(ij) and -v^(ji) = -v^(ij), plus a small independent part.
  Each worker's noise is large (variance (n-1) sigma_cor^2 + sigma_ind^2 per coordinate); in the average the pairs
  cancel and only sigma_ind^2/n is left. Local DP with the same per-worker noise keeps the average's noise
  ((n-1) sigma_cor^2 + sigma_ind^2)/n.
* ``graph`` (buttaci2024): Algorithm 1 of buttaci2024 (:func:`verify.algorithms.local_methods.run_local_rounds`) on
  the SC-Q2 heterogeneous quadratics (:func:`verify.problems.buttaci2024_quadratic.sc_q2`) with their similarity
  graph: each client starts its local steps at beta wbar + (1 - beta) u_i, u_i the graph-weighted average of its
  neighbours' last local models (eq. (5)); the graph pulls the clients' local models together compared with
  FedAvg (beta = 1).

Each ``*_toy(ctx, **knobs)`` returns a :class:`ToyResult` (``id``, ``arrays``, ``observed``) that the demo narrates
and draws; the knobs are keyword arguments with the defaults below.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import torch

from analytic.errors import InputError, require
from verify.engine import Context


@dataclass
class ToyResult:
    """What a toy run produced: the numbers the narration and the figure use."""

    id: str
    arrays: dict = field(default_factory=dict)
    observed: dict = field(default_factory=dict)


# -- dutta2023: a Byzantine attack against the mean, and CE ---------------------------------------------------
def byzantine_toy(ctx: Context, *, eta: float = 0.1, tau: int = 3, byzantine: int = 5, start: float = 0.0,
                  rounds: int = 60) -> ToyResult:
    """``byzantine`` of the N = 50 agents are Byzantine and send 1e3 1 (A6); the filter parameter f = ``byzantine``.
    ``eta``: the step alpha L (alpha = eta / L), ``tau``: local steps T per round, ``start``: every coordinate of
    the initial server model x_0. Two runs of Algorithm 1, aggregated by the plain mean and by CE."""
    from verify.checks.dutta2023.common import N_AGENTS, Config, ls_instance, simulate

    require(eta > 0, "eta", f"the step alpha L must be > 0, got {eta}")
    require(int(tau) == tau and tau >= 1, "tau", f"local steps must be an integer >= 1, got {tau}")
    require(int(byzantine) == byzantine and 1 <= byzantine < N_AGENTS / 2, "byzantine",
            f"the number of Byzantine agents must be an integer in [1, {N_AGENTS // 2 - 1}] (fewer than half of "
            f"{N_AGENTS}), got {byzantine}")
    byzantine, tau = int(byzantine), int(tau)
    inst = ls_instance(ctx, n_byz=byzantine)
    prob = inst.problem
    x_star = prob.honest_average(byzantine).x_star[0]
    alpha = eta / inst.L
    cfg = [Config("A6", "mean", alpha=alpha, T=tau), Config("A6", "ce", alpha=alpha, T=tau)]
    x0 = torch.full((2, prob.dim), float(start), dtype=ctx.dtype, device=ctx.torch_device)
    tr, sl = simulate(ctx, prob, cfg, f=byzantine, n_byz=byzantine, rounds=rounds, stream="teach/byzantine",
                      record=np.arange(rounds + 1), x0=x0, keep_iterates=True)
    gap = np.asarray(tr.gap)  # [2, K+1]
    dist = np.linalg.norm(np.asarray(tr.iterates) - x_star.cpu().numpy()[None, None, :], axis=-1)  # [2, K+1]
    return ToyResult("dutta2023 toy: A6 against the mean and CE",
                     arrays={"rounds": np.asarray(tr.rounds), "gap": gap, "dist": dist},
                     observed={"N": N_AGENTS, "f": byzantine, "eta": eta, "alpha": alpha, "L": inst.L, "T": tau,
                               "start": float(start), "rounds": rounds, "attack": "A6: every Byzantine agent sends 1e3 1",
                               "final_gap_over_e0": {"mean": float(gap[0, -1] / gap[0, 0]), "ce": float(gap[1, -1] / gap[1, 0])}})


# -- allouah2025: correlated noise cancelling in the average -----------------------------------------------------
def cafcor_toy(ctx: Context, *, clients: int = 10, eta: float = 0.2, start: float = 3.0, sigma_cor: float = 1.0,
               sigma_ind: float = 0.1, rounds: int = 40, d: int = 2) -> ToyResult:
    """``clients`` = n workers, each with the protocol noise xi_t^(i) (pairwise shared-seed terms + independent
    part) of :func:`verify.correlated_noise.protocol_noise`, and, for comparison, independent Gaussian noise of the
    same per-worker variance (local DP). Both noises drive noisy gradient descent x <- x - eta (x + mean_i xi^(i))
    on f(x) = ||x||^2 / 2 from x_0 = (start, ..., start)."""
    from verify.correlated_noise import SharedSeeds, independent_noise, protocol_noise

    require(int(clients) == clients and clients >= 2, "clients", f"CafCor needs n >= 2 workers, got {clients}")
    require(0 < eta < 2, "eta", f"the step must lie in (0, 2) (f has L = 1), got {eta}")
    n = int(clients)
    seeds = SharedSeeds(int(ctx.numpy_rng("teach/cafcor/master").integers(2**62)), n)
    gen = ctx.generator("teach/cafcor/ind")
    xi = torch.stack([protocol_noise(seeds, t, 1, d, sigma_cor, sigma_ind, gen, ctx.dtype, ctx.torch_device)[0]
                      for t in range(rounds)])  # [T, n, d]
    per_worker_sd = float(np.sqrt((n - 1) * sigma_cor**2 + sigma_ind**2))
    ldp = independent_noise(ctx.generator("teach/cafcor/ldp"), rounds, n, d, per_worker_sd, ctx.dtype, ctx.torch_device)
    avg_cor, avg_ldp = xi.mean(1), ldp.mean(1)  # [T, d]
    x = {"cafcor": [np.full(d, float(start))], "ldp": [np.full(d, float(start))]}
    for t in range(rounds):
        for key, noise in (("cafcor", avg_cor), ("ldp", avg_ldp)):
            x[key].append(x[key][-1] - eta * (x[key][-1] + noise[t].cpu().numpy()))
    xc, xl = np.stack(x["cafcor"]), np.stack(x["ldp"])
    return ToyResult("allouah2025 toy: correlated noise cancels in the average",
                     arrays={"xi": xi.cpu().numpy(), "ldp": ldp.cpu().numpy(), "avg_cafcor": avg_cor.cpu().numpy(),
                             "avg_ldp": avg_ldp.cpu().numpy(), "x_cafcor": xc, "x_ldp": xl},
                     observed={"n": n, "d": d, "sigma_cor": sigma_cor, "sigma_ind": sigma_ind, "eta": eta, "start": float(start),
                               "rounds": rounds,
                               "worker_rms": float(xi.square().mean().sqrt()), "average_rms_cafcor": float(avg_cor.square().mean().sqrt()),
                               "average_rms_ldp": float(avg_ldp.square().mean().sqrt()),
                               "predicted_worker_sd": per_worker_sd, "predicted_average_sd_cafcor": sigma_ind / np.sqrt(n),
                               "predicted_average_sd_ldp": per_worker_sd / np.sqrt(n),
                               "final_dist": {"cafcor": float(np.linalg.norm(xc[-10:], axis=1).mean()),
                                              "ldp": float(np.linalg.norm(xl[-10:], axis=1).mean())}})


# -- buttaci2024: the similarity graph pulls the clients together ------------------------------------------------
def graph_toy(ctx: Context, *, eta: float = 0.1, tau: int = 5, clients: int = 5, start: float = 3.0, beta: float = 0.5,
              rounds: int = 15) -> ToyResult:
    """SC-Q2 with ``clients`` = C heterogeneous 2-D quadratics and their similarity graph; FedAvg and the perturbed
    method (beta) with step gamma = ``eta``, E = ``tau`` local steps, from wbar_0 = (start, start)."""
    from verify.algorithms.local_methods import fedavg, perturbed, run_local_rounds
    from verify.problems.buttaci2024_quadratic import sc_q2

    require(int(clients) == clients and clients >= 2, "clients", f"the graph needs C >= 2 clients, got {clients}")
    require(int(tau) == tau and tau >= 1, "tau", f"local steps E must be an integer >= 1, got {tau}")
    require(0 < eta < 1, "eta", f"the step gamma must lie in (0, 1) (L = 2), got {eta}")
    prob = sc_q2(ctx.generator("teach/graph/problem"), d=2, C=int(clients), h=1.0, dtype=ctx.dtype)
    w0 = torch.full((2,), float(start), dtype=ctx.dtype, device=ctx.torch_device)
    methods = [fedavg(eta), perturbed(eta, beta)]
    tr = run_local_rounds(prob.oracle(None), methods, prob.weights, w0, T=rounds, E=int(tau), R=1, keep_local=True)
    local = tr.local[:, :, :, 0].cpu().numpy()  # [T, E+1, K, C, d]
    u = tr.u[:, :, 0].cpu().numpy()  # [T, K, C, d]
    starts = tr.perturbed[:, 0, :, 0].cpu().numpy()  # [T, K, C, d]: the first perturbed point of each round
    wbar = tr.wbar[:, :, 0].cpu().numpy()  # [T+1, K, d]
    ends = local[:, -1]  # [T, K, C, d]
    spread = np.linalg.norm(ends - ends.mean(-2, keepdims=True), axis=-1).mean(-1)  # [T, K]
    w_star = prob.w_star()
    return ToyResult("buttaci2024 toy: the similarity graph pulls the clients together",
                     arrays={"P": prob.weights.P.cpu().numpy(), "p": prob.weights.p.cpu().numpy(), "centres": prob.c.cpu().numpy(),
                             "ends": ends, "u": u, "starts": starts, "wbar": wbar, "spread": spread, "w_star": np.asarray(w_star)},
                     observed={"C": int(clients), "E": int(tau), "gamma": eta, "beta": beta, "start": float(start), "rounds": rounds,
                               "spread_final": {"FedAvg": float(spread[-1, 0]), "perturbed": float(spread[-1, 1])},
                               "dist_to_w_star_final": {"FedAvg": float(np.linalg.norm(wbar[-1, 0] - w_star)),
                                                        "perturbed": float(np.linalg.norm(wbar[-1, 1] - w_star))}})


TOYS = {"byzantine": byzantine_toy, "cafcor": cafcor_toy, "graph": graph_toy}


def run_toy(name: str, ctx: Context, **knobs) -> ToyResult:
    if name not in TOYS:
        raise InputError("NAME", f"unknown toy {name!r}; choose one of {', '.join(TOYS)}")
    return TOYS[name](ctx, **knobs)


# -- narration --------------------------------------------------------------------------------------------------
def narrate_byzantine(res: ToyResult, rounds: int) -> list[str]:
    o, a = res.observed, res.arrays
    g, dist = a["gap"], a["dist"]
    out = [f"dutta2023, Algorithm 1 on least squares: N = {o['N']} agents, f = {o['f']} of them Byzantine; every round each "
           f"agent takes T = {o['T']} local steps (alpha L = {o['eta']:g}) from the server model x_k and sends its result.",
           f"Attack ({o['attack']}): the Byzantine messages sit far from everything honest.",
           "The plain mean averages all N messages; comparative elimination (CE) drops the f messages farthest from x_k and "
           "averages the rest.", ""]
    for t in range(1, min(rounds, g.shape[1] - 1) + 1):
        out.append(f"Round {t}: distance to the honest optimum x*: mean {dist[0, t]:.3g}, CE {dist[1, t]:.3g} "
                   f"(gap e_k/e_0: mean {g[0, t] / g[0, 0]:.3g}, CE {g[1, t] / g[1, 0]:.3g}).")
    fin = o["final_gap_over_e0"]
    out += ["", f"After {o['rounds']} rounds: e_K/e_0 = {fin['mean']:.3g} with the mean (each Byzantine vector moves the mean by "
                f"1e3/N per coordinate, every round) and {fin['ce']:.3g} with CE (the attack is eliminated before averaging)."]
    return out


def narrate_cafcor(res: ToyResult, rounds: int) -> list[str]:
    o = res.observed
    n = o["n"]
    out = [f"allouah2025 (CafCor / SecLDP): n = {n} workers. Every pair (i, j) shares a secret seed and draws one Gaussian "
           f"vector z^(ij) (sigma_cor = {o['sigma_cor']:g}); worker i adds +z^(ij) and worker j adds -z^(ij), plus a small "
           f"independent part (sigma_ind = {o['sigma_ind']:g}).",
           f"Each worker's noise: standard deviation sqrt((n-1) sigma_cor^2 + sigma_ind^2) = {o['predicted_worker_sd']:.3f} per "
           f"coordinate (measured rms {o['worker_rms']:.3f}): every single message is well hidden.",
           f"In the average over all workers the pairs cancel: sigma_ind / sqrt(n) = {o['predicted_average_sd_cafcor']:.4f} "
           f"is left (measured {o['average_rms_cafcor']:.4f}).",
           f"Local DP with the same per-worker noise (independent draws) keeps {o['predicted_average_sd_ldp']:.3f} in the average "
           f"(measured {o['average_rms_ldp']:.3f}).", ""]
    xi, ac, al = res.arrays["xi"], res.arrays["avg_cafcor"], res.arrays["avg_ldp"]
    for t in range(min(rounds, xi.shape[0])):
        out.append(f"Round {t + 1}: worker noise norms {', '.join(f'{v:.2f}' for v in np.linalg.norm(xi[t], axis=-1)[:4])}"
                   f"{', ...' if n > 4 else ''}; norm of the average: CafCor {np.linalg.norm(ac[t]):.4f}, local DP {np.linalg.norm(al[t]):.3f}.")
    fd = o["final_dist"]
    out += ["", f"Noisy gradient descent on ||x||^2/2 (eta = {o['eta']:g}, from {o['start']:g}): over the last 10 rounds the "
                f"model stays {fd['cafcor']:.4f} from the optimum with CafCor's noise and {fd['ldp']:.3f} with local DP."]
    return out


def narrate_graph(res: ToyResult, rounds: int) -> list[str]:
    o, a = res.observed, res.arrays
    P, wbar, ws = a["P"], a["wbar"], a["w_star"]
    C = o["C"]
    out = [f"buttaci2024, Algorithm 1 on {C} heterogeneous quadratic clients (SC-Q2, 2-D). The similarity graph gives weights "
           "p_in (symmetric, summing to 1); client i's neighbour average u_i = sum_n (p_in / p_i) w^n is over the other "
           "clients' last local models.",
           f"Every local gradient is taken at the perturbed point beta w + (1 - beta) u_i (w: the client's current local model, "
           f"wbar at the first step; beta = {o['beta']:g}, eq. (5)): the graph pulls every client towards its similar "
           "neighbours. FedAvg is beta = 1 (no pull).",
           f"Step gamma = {o['gamma']:g}, E = {o['E']} local steps, start wbar_0 = ({o['start']:g}, {o['start']:g}).",
           "Strongest edges: " + ", ".join(f"{i + 1}-{j + 1} ({P[i, j]:.3f})" for i, j in
                                           sorted(((i, j) for i in range(C) for j in range(i + 1, C)), key=lambda e: -P[e])[:3]) + ".",
           ""]
    for t in range(min(rounds, wbar.shape[0] - 1)):
        out.append(f"Round {t + 1}: global model FedAvg ({wbar[t + 1, 0, 0]:.3f}, {wbar[t + 1, 0, 1]:.3f}), graph-perturbed "
                   f"({wbar[t + 1, 1, 0]:.3f}, {wbar[t + 1, 1, 1]:.3f}); distance to w*: {np.linalg.norm(wbar[t + 1, 0] - ws):.3f} vs "
                   f"{np.linalg.norm(wbar[t + 1, 1] - ws):.3f}.")
    d = o["dist_to_w_star_final"]
    out += ["", f"After {o['rounds']} rounds the global model is {d['FedAvg']:.3g} from w* with FedAvg and {d['perturbed']:.3g} "
                "with the graph's pull (the paper's speedup of the perturbed method)."]
    return out


# -- figures ----------------------------------------------------------------------------------------------------
def render_byzantine(fig, res: ToyResult, upto: int | None = None) -> None:
    """(a) e_k/e_0 by round, mean vs CE (log); (b) distance to x* at the current round, mean vs CE (log bars)."""
    from counterexamples.figures import CLUSTER_COLOURS, fs, lw, mark_round, place_legend

    a, o = res.arrays, res.observed
    r, g, dist = a["rounds"], a["gap"], a["dist"]
    K = len(r) - 1
    t = K if upto is None else max(0, min(upto, K))
    axes = fig.subplots(1, 2, gridspec_kw={"width_ratios": [1.4, 1]})
    fig.subplots_adjust(left=0.09, right=0.98, bottom=0.18, top=0.86, wspace=0.3)
    ax = axes[0]
    for k, (name, col) in enumerate((("plain mean", CLUSTER_COLOURS[1]), ("CE", CLUSTER_COLOURS[0]))):
        ax.semilogy(r[: t + 1], np.maximum(g[k, : t + 1] / g[k, 0], 1e-300), color=col, lw=lw(1.4), label=name)
        # the current round as a dot: a one-point line draws nothing, so the animation's frame 0 was empty
        ax.semilogy(r[t:t + 1], np.maximum(g[k, t:t + 1] / g[k, 0], 1e-300), "o", color=col, ms=4)
    mark_round(ax, upto)
    ax.set_xlim(0, K)
    ax.set_ylim(max(1e-18, float(np.nanmin(np.maximum(g / g[:, :1], 1e-300))) / 10), float(np.nanmax(g / g[:, :1])) * 10)
    ax.set_title(f"(a) gap $e_k/e_0$ under attack A6 (f = {o['f']} of {o['N']})", fontsize=fs(8))
    ax.set_xlabel("round k", fontsize=fs(7))
    ax.set_ylabel("$e_k / e_0$", fontsize=fs(7))
    place_legend(ax, fontsize=fs(6.5), frameon=False)
    ax = axes[1]
    vals = np.maximum(dist[:, t], 1e-300)
    ax.bar([0, 1], vals, color=[CLUSTER_COLOURS[1], CLUSTER_COLOURS[0]], log=True)
    for k in range(2):
        ax.text(k, vals[k] * 1.5, f"{vals[k]:.2g}", ha="center", fontsize=fs(6.5))
    ax.set_xticks([0, 1])
    ax.set_xticklabels(["plain mean", "CE"], fontsize=fs(7))
    ax.set_ylim(max(1e-12, float(dist.min()) / 10), float(dist.max()) * 20)
    ax.set_title(f"(b) $\\|x_k - x^*\\|$ at round {t}", fontsize=fs(8))
    for x in axes:
        x.tick_params(labelsize=fs(6.5))


def render_cafcor(fig, res: ToyResult, upto: int | None = None) -> None:
    """(a) the workers' noise vectors at round t (large) and their average (small), CafCor vs local DP; (b) the
    norm of the average by round; (c) noisy gradient descent's distance to the optimum."""
    from counterexamples.figures import CLUSTER_COLOURS, NEUTRAL, fs, lw, mark_round, place_legend

    a, o = res.arrays, res.observed
    xi, ldp, ac, al = a["xi"], a["ldp"], a["avg_cafcor"], a["avg_ldp"]
    T = xi.shape[0]
    t = T - 1 if upto is None else max(0, min(upto, T - 1))
    axes = fig.subplots(1, 3, gridspec_kw={"width_ratios": [1, 1, 1]})
    fig.subplots_adjust(left=0.07, right=0.98, bottom=0.18, top=0.86, wspace=0.35)
    ax = axes[0]
    sz = 14 * (fig.get_figwidth() / 6.5) ** 2
    ax.scatter(ldp[t, :, 0], ldp[t, :, 1], s=sz, color=NEUTRAL, marker="x", label="local DP: worker noise")
    ax.scatter(xi[t, :, 0], xi[t, :, 1], s=sz, color=CLUSTER_COLOURS[0], label="CafCor: worker noise")
    ax.scatter([al[t, 0]], [al[t, 1]], s=4 * sz, color=NEUTRAL, marker="*", edgecolors="k", label="local DP: average")
    ax.scatter([ac[t, 0]], [ac[t, 1]], s=4 * sz, color=CLUSTER_COLOURS[1], marker="*", edgecolors="k", label="CafCor: average")
    lim = 3.2 * o["predicted_worker_sd"]
    ax.set_xlim(-lim, lim)
    ax.set_ylim(-lim, lim)
    ax.set_title(f"(a) noise at round {t + 1} (n = {o['n']})", fontsize=fs(8))
    place_legend(ax, fontsize=fs(5.5), frameon=False, prefer="upper left")
    ax = axes[1]
    rr = np.arange(1, t + 2)
    ax.semilogy(rr, np.linalg.norm(xi[: t + 1], axis=-1).mean(-1), color=CLUSTER_COLOURS[0], lw=lw(1.0), ls="--",
                label="a worker's noise (mean norm)")
    ax.semilogy(rr, np.linalg.norm(al[: t + 1], axis=-1), color=NEUTRAL, lw=lw(1.2), label="average, local DP")
    ax.semilogy(rr, np.linalg.norm(ac[: t + 1], axis=-1), color=CLUSTER_COLOURS[1], lw=lw(1.2), label="average, CafCor")
    mark_round(ax, None if upto is None else t + 1)
    ax.set_xlim(0, T + 1)
    ax.set_ylim(1e-3, 10 * o["predicted_worker_sd"])
    ax.set_title("(b) noise norm by round", fontsize=fs(8))
    ax.set_xlabel("round t", fontsize=fs(7))
    place_legend(ax, fontsize=fs(5.5), frameon=False, prefer="lower left")
    ax = axes[2]
    xc, xl = a["x_cafcor"], a["x_ldp"]
    rr = np.arange(t + 2)
    ax.semilogy(rr, np.linalg.norm(xl[: t + 2], axis=-1), color=NEUTRAL, lw=lw(1.2), label="local DP")
    ax.semilogy(rr, np.linalg.norm(xc[: t + 2], axis=-1), color=CLUSTER_COLOURS[1], lw=lw(1.2), label="CafCor")
    mark_round(ax, None if upto is None else t + 1)
    ax.set_xlim(0, T + 1)
    ax.set_ylim(1e-3, 3 * max(float(np.linalg.norm(xl, axis=-1).max()), 1.0))
    ax.set_title(f"(c) noisy GD: $\\|x_t\\|$ ($\\eta$ = {o['eta']:g})", fontsize=fs(8))
    ax.set_xlabel("round t", fontsize=fs(7))
    place_legend(ax, fontsize=fs(6), frameon=False)
    for x in axes:
        x.tick_params(labelsize=fs(6.5))


def render_graph(fig, res: ToyResult, upto: int | None = None) -> None:
    """(a) the clients' optima, the graph's edges (width ~ p_in) and, at round t, each client's start point pulled
    from wbar towards its neighbours; (b) the global model's distance to w*, FedAvg vs the graph's pull."""
    from counterexamples.figures import CLUSTER_COLOURS, NEUTRAL, fs, lw, mark_round, place_legend

    a, o = res.arrays, res.observed
    P, cen, starts, wbar, ws = a["P"], a["centres"], a["starts"], a["wbar"], a["w_star"]
    T = starts.shape[0]
    t = min(1, T - 1) if upto is None else max(0, min(upto, T - 1))  # the still shows round 2, where the pull is visible
    C = P.shape[0]
    axes = fig.subplots(1, 2, gridspec_kw={"width_ratios": [1.2, 1]})
    fig.subplots_adjust(left=0.07, right=0.98, bottom=0.18, top=0.86, wspace=0.25)
    ax = axes[0]
    big = fig.get_figwidth() / 6.5
    for i in range(C):
        for j in range(i + 1, C):
            ax.plot(cen[[i, j], 0], cen[[i, j], 1], color=NEUTRAL, lw=lw(0.3) + 40 * P[i, j] * big, alpha=0.35, zorder=1)
    ax.scatter(cen[:, 0], cen[:, 1], s=40 * big**2, marker="*", color="k", zorder=3, label="client optima $c_i$ (edges: graph)")
    for i in range(C):
        ax.text(cen[i, 0], cen[i, 1], f" {i + 1}", fontsize=fs(6.5), va="bottom")
    wb = wbar[t, 1]
    ax.scatter([wb[0]], [wb[1]], s=50 * big**2, color=CLUSTER_COLOURS[1], marker="o", zorder=4, label=f"$\\bar w$, round {t + 1}")
    for i in range(C):
        s0 = starts[t, 1, i]
        ax.annotate("", xy=(s0[0], s0[1]), xytext=(wb[0], wb[1]), arrowprops={"arrowstyle": "->", "lw": lw(1.0), "color": CLUSTER_COLOURS[0]})
    ax.scatter(starts[t, 1, :, 0], starts[t, 1, :, 1], s=18 * big**2, color=CLUSTER_COLOURS[0], zorder=4,
               label="start points $\\beta \\bar w + (1-\\beta) u_i$")
    ax.scatter([ws[0]], [ws[1]], s=60 * big**2, marker="P", color=CLUSTER_COLOURS[2], zorder=4, label="$w^*$")
    for k, (name, col) in enumerate((("FedAvg", NEUTRAL), ("graph pull", CLUSTER_COLOURS[1]))):
        ax.plot(wbar[: t + 2, k, 0], wbar[: t + 2, k, 1], color=col, lw=lw(1.0), marker=".", label=f"$\\bar w$ path, {name}", zorder=2)
    pts = np.concatenate([cen, starts[:, 1].reshape(-1, 2), wbar[:, 1]])
    lo, hi = pts.min(0), pts.max(0)
    pad = 0.1 * (hi - lo).max()
    ax.set_xlim(lo[0] - pad, hi[0] + pad)
    ax.set_ylim(lo[1] - pad, hi[1] + 3 * pad)
    ax.set_title(f"(a) the graph's pull at round {t + 1} ($\\beta$ = {o['beta']:g})", fontsize=fs(8))
    place_legend(ax, fontsize=fs(5.5), frameon=False, prefer="upper left")
    ax = axes[1]
    t = T - 1 if upto is None else t  # the still's panel (b) shows every round
    rr = np.arange(t + 2)
    for k, (name, col) in enumerate((("FedAvg ($\\beta$ = 1)", NEUTRAL), (f"graph pull ($\\beta$ = {o['beta']:g})", CLUSTER_COLOURS[1]))):
        ax.semilogy(rr, np.maximum(np.linalg.norm(wbar[: t + 2, k] - ws, axis=-1), 1e-300), color=col, lw=lw(1.3), label=name)
    mark_round(ax, None if upto is None else t + 1)
    ax.set_xlim(0, T)
    dd = np.linalg.norm(wbar - ws, axis=-1)
    ax.set_ylim(max(float(dd.min()), 1e-16) / 3, float(dd.max()) * 3)
    ax.set_title(f"(b) $\\|\\bar w_t - w^*\\|$ ($\\gamma$ = {o['gamma']:g}, $E$ = {o['E']})", fontsize=fs(8))
    ax.set_xlabel("round t", fontsize=fs(7))
    place_legend(ax, fontsize=fs(6), frameon=False)
    for x in axes:
        x.tick_params(labelsize=fs(6.5))
