"""Figure-1-style drawings of the three toy counterexamples (werner2023 Fig. 1(a), (b), (c)).

Each ``draw_exampleN(result, path)`` works from a stored :class:`~verify.result.Result` alone (its
``arrays`` and ``observed``; the losses are recomputed from the toy definitions) and writes a PNG
(about 6.5 in wide, 150 dpi). The ``render_exampleN(fig, result, upto=None)`` functions draw onto a
given matplotlib Figure, showing the iterates up to round ``upto``: the demo's GIF redraws one
Figure frame by frame with them. Nothing here touches pyplot's global state.
"""
from __future__ import annotations

import contextlib
import contextvars
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import torch

from analytic.errors import InputError
from counterexamples.legends import MARKER_GID, place_legend
from verify.problems.toys import Example1, Example2

if TYPE_CHECKING:  # matplotlib is imported lazily: the check registry imports this package
    from matplotlib.figure import Figure

DPI = 150
WIDTH = 6.5
#: Figure styles: ``paper`` (6.5 in wide, 5.5-8 pt text, the report's size) and ``slides`` (13.33 in wide, every
#: text at least 12 pt, GIFs 1333 px wide at 100 dpi: readable on a projector). ``width``/``height`` in inches,
#: ``font``: the factor on every font size, ``min_font``: the smallest size drawn, ``gif_dpi``: the GIFs' dpi.
STYLES = {"paper": {"width": WIDTH, "height": 2.7, "font": 1.0, "min_font": 0.0, "lw": 1.0, "gif_dpi": 100},
          "slides": {"width": 13.33, "height": 5.6, "font": 2.0, "min_font": 12.0, "lw": 2.0, "gif_dpi": 100}}
_STYLE = contextvars.ContextVar("fedverify_figure_style", default="paper")


@contextlib.contextmanager
def style(name: str):
    """Draw with style ``name`` (a key of :data:`STYLES`) inside the ``with`` block."""
    if name not in STYLES:
        raise InputError("style", f"unknown style {name!r}; choose one of {', '.join(STYLES)}")
    token = _STYLE.set(name)
    try:
        yield STYLES[name]
    finally:
        _STYLE.reset(token)


def current_style() -> dict:
    return STYLES[_STYLE.get()]


def fs(size: float) -> float:
    """A font size in the current style (the paper size times the style's factor, at least its minimum)."""
    st = current_style()
    return max(size * st["font"], st["min_font"])


def lw(width: float) -> float:
    """A line width in the current style."""
    return width * current_style()["lw"]


def mark_round(ax, t: int | None, text: bool = True) -> None:
    """In an animation frame (``t`` not None), a vertical line at round ``t`` and its number: every panel
    with a round axis shows where the animation is."""
    if t is None:
        return
    ax.axvline(t, color="k", lw=lw(0.8), ls="-", alpha=0.35, zorder=1, gid=MARKER_GID)
    if text:
        ax.text(0.99, 0.02, f"round {t}", transform=ax.transAxes, ha="right", va="bottom", fontsize=fs(7), color="k",
                gid=MARKER_GID)
CLUSTER_COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd")
CLIENT_MARKERS = ("o", "s", "^", "D")
CLIENT_STYLES = ("-", "--", ":")
NEUTRAL = "#7f7f7f"


def title_with_note(ax, title: str, note: str | None) -> None:
    """A panel's title with a one-line note under it, above the axes (inside them a note sits on the data); the
    title keeps its room whether or not there is a note, so that panels line up."""
    ax.set_title(title, fontsize=fs(8), pad=fs(8) * 1.6)
    if note:
        ax.text(0.5, 1.0, note, transform=ax.transAxes, ha="center", va="bottom", fontsize=fs(6))


def new_figure() -> Figure:
    """A bare matplotlib Figure (Agg canvas, no pyplot state) of the current style's size (6.5 in wide for paper)."""
    from matplotlib.figure import Figure

    st = current_style()
    return Figure(figsize=(st["width"], st["height"]))


def _arr(result, name: str) -> np.ndarray:
    if name not in result.arrays:
        raise KeyError(f"{result.id}: array {name!r} missing (have {sorted(result.arrays)})")
    return np.asarray(result.arrays[name])


def _pick(values: np.ndarray, target: float) -> int:
    """Index of the replicate whose parameter is closest to ``target``."""
    return int(np.argmin(np.abs(np.asarray(values, float) - target)))


def _finish(fig: Figure, path) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=DPI, format="png")
    return path


def _legend_clusters(ax, labels=("cluster A", "cluster B")) -> None:
    from matplotlib.lines import Line2D

    handles = [Line2D([], [], marker="o", ls="", color=c, label=lab) for c, lab in zip(CLUSTER_COLOURS, labels)]
    place_legend(ax, handles=handles, fontsize=fs(6), frameon=False, prefer="upper right")


# -- Example 1 -------------------------------------------------------------------------------
def render_example1(fig: Figure, result, upto: int | None = None) -> None:
    """(a) losses and Myopic iterates coloured by cluster; (b) Myopic x_i,t; (c) FC x_i,t."""
    x, labels, etas = _arr(result, "myopic_x"), _arr(result, "myopic_labels"), _arr(result, "myopic_eta")
    r = _pick(etas, 0.5)
    eta = float(etas[r])
    T = labels.shape[0]
    t_end = T if upto is None else max(0, min(upto, T))
    axes = fig.subplots(1, 3, gridspec_kw={"width_ratios": [1.25, 1, 1]})
    fig.subplots_adjust(left=0.07, right=0.99, bottom=0.17, top=0.86, wspace=0.32)

    ax = axes[0]
    grid = np.linspace(min(-0.45, float(x[:, r].min()) - 0.1), max(2.45, float(x[:, r].max()) + 0.1), 400)
    X = torch.tensor(grid, dtype=torch.float64)[:, None, None].expand(-1, 3, 1)
    F = Example1(eta).loss(X).numpy()
    for i in range(3):
        ax.plot(grid, F[:, i], color=NEUTRAL, ls=CLIENT_STYLES[i], lw=1.0, label=f"$f_{i + 1}$")
    fx = Example1(eta).loss(torch.tensor(x[: t_end + 1, r, :, None], dtype=torch.float64)).numpy()  # [t, 3]
    for i in range(3):
        cols = [NEUTRAL] + [CLUSTER_COLOURS[int(labels[t - 1, r, i])] for t in range(1, t_end + 1)]
        ax.scatter(x[: t_end + 1, r, i], fx[:, i], c=cols, marker=CLIENT_MARKERS[i], s=16 * current_style()["font"] ** 2, zorder=3, edgecolors="none")
    if upto is not None:  # the animation's current models: large markers with a black edge
        for i in range(3):
            ax.scatter([x[t_end, r, i]], [fx[t_end, i]], s=60 * current_style()["font"] ** 2, marker=CLIENT_MARKERS[i],
                       facecolors="none", edgecolors="k", linewidths=lw(1.0), zorder=5)
    stuck2 = abs(float(x[-1, r, 1]) - 1.0) < 1e-9
    y_top = max(3.2, 1.15 * float(np.nanmax(fx))) if np.isfinite(fx).all() else 3.2
    if t_end >= 2 and stuck2:
        ax.annotate("client 2 stuck\nat x = 1 (saddle)", xy=(1.0, 1.0), xytext=(1.15, 0.77 * y_top), fontsize=fs(6.5),
                    arrowprops={"arrowstyle": "->", "lw": 0.8})
    lo, hi = min(-0.45, float(x[:, r].min()) - 0.1), max(2.45, float(x[:, r].max()) + 0.1)
    ax.set_xlim(lo, hi)
    ax.set_ylim(-0.05 * y_top, y_top)
    ax.set_title(f"(a) Myopic-Clustering ($\\eta$ = {eta:g})", fontsize=fs(8))
    ax.set_xlabel("x (marker colour = cluster in that round)", fontsize=fs(7))
    ax.set_ylabel("$f_i(x)$", fontsize=fs(7))
    place_legend(ax, fontsize=fs(6), frameon=False, prefer="upper left")

    ax = axes[1]
    rounds = np.arange(t_end + 1)
    for i in range(3):
        ax.plot(rounds, x[: t_end + 1, r, i], color=NEUTRAL, ls=CLIENT_STYLES[i], lw=0.9)
        cols = [NEUTRAL] + [CLUSTER_COLOURS[int(labels[t - 1, r, i])] for t in range(1, t_end + 1)]
        ax.scatter(rounds, x[: t_end + 1, r, i], c=cols, marker=CLIENT_MARKERS[i], s=12 * current_style()["font"] ** 2, zorder=3, edgecolors="none",
                   label=f"client {i + 1}")
    wrong = np.nonzero(labels[:t_end, r, 1] == labels[:t_end, r, 2])[0]
    if len(wrong):
        t_w = int(wrong[0]) + 1
        ax.axvline(t_w - 1, color=CLUSTER_COLOURS[1], lw=0.6, ls=":")
        ax.text(t_w - 0.6, 1.65, f"round {t_w}: {{2, 3}}\ngrouped (wrong)", fontsize=fs(6), color=CLUSTER_COLOURS[1])
    mark_round(ax, upto)
    ax.set_xlim(-0.5, max(T, 1) + 0.5)
    ax.set_ylim(min(-0.1, float(x[:, r].min()) - 0.1), max(2.2, float(x[:, r].max()) + 0.2))
    ax.set_title("(b) Myopic: models $x_{i,t}$", fontsize=fs(8))
    ax.set_xlabel("round t (colour = cluster)", fontsize=fs(7))
    place_legend(ax, fontsize=fs(6), frameon=False, prefer="center right")

    ax = axes[2]
    if "fc_x" in result.arrays:
        fx_all, fc_eta = _arr(result, "fc_x"), _arr(result, "fc_eta")
        rf = _pick(fc_eta, 0.1)
        show = min(fx_all.shape[0] - 1, 40)
        t_fc = show if upto is None else min(show, upto)
        for i in range(3):
            ax.plot(np.arange(t_fc + 1), fx_all[: t_fc + 1, rf, i], color=CLUSTER_COLOURS[0 if i < 2 else 1], ls=CLIENT_STYLES[i],
                    lw=lw(1.2), marker=CLIENT_MARKERS[i], ms=2.5 * current_style()["font"], label=f"client {i + 1}")
        tau = float(_arr(result, "fc_tau")[rf])
        ax.set_title(f"(c) FC ($\\eta$ = {float(fc_eta[rf]):g}, $\\tau$ = {tau:g})", fontsize=fs(8))
        mark_round(ax, None if upto is None else t_fc)
        ax.set_xlim(-0.5, show + 0.5)
        ax.set_ylim(min(-0.1, float(fx_all[: show + 1, rf].min()) - 0.1), max(2.2, float(fx_all[: show + 1, rf].max()) + 0.2))
        place_legend(ax, fontsize=fs(6), frameon=False, prefer="center right")
    ax.set_xlabel("round t", fontsize=fs(7))
    for a in axes:
        a.tick_params(labelsize=fs(6.5))


def draw_example1(result, path) -> Path:
    fig = new_figure()
    render_example1(fig, result)
    return _finish(fig, path)


# -- Example 2 -------------------------------------------------------------------------------
EXAMPLE2_ALGOS = {"ifca1": "IFCA Option I", "ifca2": "IFCA Option II", "hyp": "HypCluster"}


def _example2_prefix(result, algorithm: str | None) -> str:
    if algorithm is not None:
        key = {"ifca": "ifca1", "ifca1": "ifca1", "ifca2": "ifca2", "hypcluster": "hyp", "hyp": "hyp"}.get(algorithm, algorithm)
        if f"{key}_theta" not in result.arrays:
            raise KeyError(f"{result.id}: no arrays for algorithm {algorithm!r}")
        return key
    for key in EXAMPLE2_ALGOS:
        if f"{key}_theta" in result.arrays:
            return key
    raise KeyError(f"{result.id}: no IFCA/HypCluster arrays")


def _example2_replicate(result, pre: str) -> int:
    """The replicate drawn: gamma closest to 0.1 (among 5 local steps for HypCluster / Option II when run)."""
    gam = _arr(result, f"{pre}_gamma")
    steps = result.arrays.get(f"{pre}_local_steps")
    cand = list(range(len(gam)))
    if pre != "ifca1" and steps is not None:
        cand = [i for i in cand if steps[i] == 5] or cand
    return cand[_pick(np.asarray(gam)[cand], 0.1)]


def _fc_clients_and_optima(ax, result, rounds, t_end: int, upto: int, T: int) -> None:
    """Example 2's panels share this: FC's two clients by round (when the Result has them), the clusters' optima
    at +-0.5 dotted, the current round marked, the first 30 rounds shown."""
    if "fc_x" in result.arrays:
        fx = _arr(result, "fc_x")
        for i in range(2):
            ax.plot(rounds[: fx.shape[0]], fx[: t_end + 1, 0, i], color=CLUSTER_COLOURS[i], lw=lw(1.1), marker=CLIENT_MARKERS[i],
                    ms=2.5 * current_style()["font"], label=f"FC client {i + 1}")
    for c in (-0.5, 0.5):
        ax.axhline(c, color="k", lw=0.4, ls=":")
    mark_round(ax, upto)
    ax.set_xlim(-0.5, min(T, 30) + 0.5)


def _example2_models_panel(ax, result, pre: str, r: int, t_end: int, upto, title: str) -> None:
    """theta_k,t of the drawn replicate (grey) and Federated-Clustering's x_i,t (colours) by round."""
    theta, assign = _arr(result, f"{pre}_theta"), _arr(result, f"{pre}_assign")
    T = assign.shape[0]
    rounds = np.arange(t_end + 1)
    for k in range(2):
        ax.plot(rounds, theta[: t_end + 1, r, k], color=NEUTRAL, ls=CLIENT_STYLES[k], lw=lw(1.3),
                label=f"{EXAMPLE2_ALGOS[pre]} $\\theta_{k + 1}$")
    _fc_clients_and_optima(ax, result, rounds, t_end, upto, T)
    lo = min(-1.7, float(theta[:, r].min()) - 0.2)
    ax.set_ylim(lo, max(0.8, float(theta[:, r].max()) + 0.3))
    ax.set_title(title, fontsize=fs(8))
    ax.set_xlabel("round t", fontsize=fs(7))
    place_legend(ax, fontsize=fs(6), frameon=False, prefer="lower right")


def render_example2(fig: Figure, result, upto: int | None = None, algorithm: str | None = None) -> None:
    """IFCA (Option I / II): (a) f_1, f_2, the cluster models, who picked which (by loss value) and each
    client's step -gamma g_i at the model it picked, with their average (zero: the steps cancel); (b)
    theta_k,t and FC's x_i,t. HypCluster has its own picture (:func:`render_hypcluster`)."""
    pre = _example2_prefix(result, algorithm)
    if pre == "hyp":
        return render_hypcluster(fig, result, upto)
    theta, assign, gam = _arr(result, f"{pre}_theta"), _arr(result, f"{pre}_assign"), _arr(result, f"{pre}_gamma")
    r = _example2_replicate(result, pre)
    T = assign.shape[0]
    t_end = T if upto is None else max(0, min(upto, T))
    axes = fig.subplots(1, 2, gridspec_kw={"width_ratios": [1.2, 1]})
    fig.subplots_adjust(left=0.08, right=0.99, bottom=0.17, top=0.86, wspace=0.25)

    ax = axes[0]
    th = theta[t_end, r]
    lo, hi = min(-2.0, float(th.min()) - 0.3), max(1.6, float(th.max()) + 0.3)
    grid = np.linspace(lo, hi, 300)
    F = Example2().loss(torch.tensor(grid)[:, None, None].expand(-1, 2, 1)).numpy()
    for i in range(2):
        ax.plot(grid, F[:, i], color=CLUSTER_COLOURS[i], lw=lw(1.1), ls=CLIENT_STYLES[i], label=f"$f_{i + 1}$ (client {i + 1})")
    for k in range(2):
        ax.axvline(th[k], color=NEUTRAL, lw=0.8, ls=(":", "-.")[k], label=f"$\\theta_{k + 1}$ = {th[k]:.2f} (round {t_end})")
    j = assign[min(t_end, T - 1), r]
    L = Example2().loss(torch.tensor(th)[:, None, None].expand(2, 2, 1)).numpy()  # [K, N]
    G = Example2().grad(torch.tensor(th)[:, None, None].expand(2, 2, 1)).numpy()[..., 0]  # [K, N]: g_i(theta_k)
    for i in range(2):
        ax.scatter([th[j[i]]], [L[j[i], i]], color=CLUSTER_COLOURS[i], marker=CLIENT_MARKERS[i], s=30 * current_style()["font"] ** 2,
                   zorder=4, edgecolors="k", linewidths=0.5)
        ax.annotate(f"client {i + 1} picks $\\theta_{j[i] + 1}$\n(loss {L[j[i], i]:.2f} vs {L[1 - j[i], i]:.2f})",
                    xy=(th[j[i]], L[j[i], i]), xytext=((-1.25, 0.15)[i], 4.7), fontsize=fs(6),
                    arrowprops={"arrowstyle": "->", "lw": 0.6})
    g = float(gam[r])
    if j[0] == j[1]:  # both in one cluster: their steps at that model, and the average IFCA takes
        k = int(j[0])
        steps = -g * G[k]
        y0 = 3.4
        for i in range(2):
            ax.annotate("", xy=(th[k] + steps[i] / max(g, 1e-12) * 0.35, y0 - 0.45 * i), xytext=(th[k], y0 - 0.45 * i),
                        arrowprops={"arrowstyle": "->", "lw": lw(1.2), "color": CLUSTER_COLOURS[i]})
        avg = float(steps.mean())
        note = (f"steps $-\\gamma g_i$: {steps[0]:+.2f}, {steps[1]:+.2f}; average {avg:+.3f}"
                + (" (they cancel)" if abs(avg) < 1e-12 else ""))
    else:
        note = None
    ax.set_xlim(lo, hi)
    ax.set_ylim(-0.2, 7.6)
    title_with_note(ax, f"(a) {EXAMPLE2_ALGOS[pre]}: pick by loss, average the gradients", note)
    ax.set_xlabel("x", fontsize=fs(7))
    ax.set_ylabel("$f_i(x)$", fontsize=fs(7))
    place_legend(ax, fontsize=fs(5.5), ncol=2, frameon=False, prefer="upper center")

    _example2_models_panel(axes[1], result, pre, r, t_end, upto, f"(b) models by round ($\\gamma$ = {g:g})")
    for a in axes:
        a.tick_params(labelsize=fs(6.5))


def render_hypcluster(fig: Figure, result, upto: int | None = None) -> None:
    """HypCluster: (a) the pooled loss of cluster 2's members, (f_1 + f_2)/2, whose minimum is where theta_2 sits,
    and the server's local steps on it from theta_2 (they do not move it); (b) theta_2 by round for every number
    of server steps run, and FC; (c) who is in which cluster, round by round."""
    pre = "hyp"
    theta, assign, gam = _arr(result, "hyp_theta"), _arr(result, "hyp_assign"), _arr(result, "hyp_gamma")
    steps_all = _arr(result, "hyp_local_steps")
    r = _example2_replicate(result, pre)
    g, E = float(gam[r]), int(steps_all[r])
    T = assign.shape[0]
    t_end = T if upto is None else max(0, min(upto, T))
    axes = fig.subplots(1, 3, gridspec_kw={"width_ratios": [1.2, 1, 0.8]})
    fig.subplots_adjust(left=0.07, right=0.99, bottom=0.17, top=0.86, wspace=0.3)

    ax = axes[0]
    th = theta[t_end, r]
    j = assign[min(t_end, T - 1), r]
    lo, hi = min(-2.0, float(th.min()) - 0.3), max(1.6, float(th.max()) + 0.3)
    grid = np.linspace(lo, hi, 300)
    prob = Example2()
    F = prob.loss(torch.tensor(grid)[:, None, None].expand(-1, 2, 1)).numpy()  # [grid, N]
    for i in range(2):
        ax.plot(grid, F[:, i], color=CLUSTER_COLOURS[i], lw=lw(0.8), ls=CLIENT_STYLES[i], alpha=0.6, label=f"$f_{i + 1}$")
    k = int(j[0])
    members = [i for i in range(2) if j[i] == k]
    pooled = F[:, members].mean(1)
    ax.plot(grid, pooled, color="k", lw=lw(1.6), label=f"pooled loss of cluster {k + 1} ({len(members)} members)")
    for kk in range(2):
        ax.axvline(th[kk], color=NEUTRAL, lw=0.8, ls=(":", "-.")[kk], label=f"$\\theta_{kk + 1}$ = {th[kk]:.2f} (round {t_end})")
    # the server's E gradient steps on the pooled loss from theta_k (what HypCluster does each round)
    x = float(th[k])
    path = [x]
    for _ in range(E):
        gx = prob.grad(torch.tensor([x, x], dtype=torch.float64)[None, :, None]).numpy()[0, :, 0]
        x = x - g * float(gx[members].mean())
        path.append(x)
    pv = prob.loss(torch.tensor(path)[:, None, None].expand(-1, 2, 1)).numpy()[:, members].mean(1)
    ax.plot(path, pv, color=CLUSTER_COLOURS[2], marker="o", ms=3 * current_style()["font"], lw=lw(1.0),
            label=f"{E} server steps from $\\theta_{k + 1}$")
    gk = prob.grad(torch.tensor([float(th[k])] * 2, dtype=torch.float64)[None, :, None]).numpy()[0, :, 0]
    ax.set_xlim(lo, hi)
    ax.set_ylim(-0.2, 4.0)
    title_with_note(ax, "(a) HypCluster: steps on the pooled loss",
                    f"pooled gradient at $\\theta_{k + 1}$: {float(gk[members].mean()):+.3f}")
    ax.set_xlabel("x", fontsize=fs(7))
    ax.set_ylabel("loss", fontsize=fs(7))
    place_legend(ax, fontsize=fs(5.5), frameon=False, prefer="upper right")

    ax = axes[1]
    rounds = np.arange(t_end + 1)
    same_gamma = [i for i in range(len(gam)) if gam[i] == gam[r]]
    for n, i in enumerate(same_gamma):
        ax.plot(rounds, theta[: t_end + 1, i, 1], color=NEUTRAL, ls=CLIENT_STYLES[n % 3], lw=lw(1.2) + 0.6 * n,
                alpha=0.8, label=f"$\\theta_2$, {int(steps_all[i])} server steps")
    _fc_clients_and_optima(ax, result, rounds, t_end, upto, T)
    ax.set_ylim(min(-0.8, float(theta[:, same_gamma, 1].min()) - 0.2), max(0.8, float(theta[:, same_gamma, 1].max()) + 0.2))
    ax.set_title(f"(b) $\\theta_2$ by round ($\\gamma$ = {g:g})", fontsize=fs(8))
    ax.set_xlabel("round t", fontsize=fs(7))
    place_legend(ax, fontsize=fs(5.5), frameon=False, prefer="center right")

    ax = axes[2]
    from matplotlib.colors import ListedColormap

    show = min(T, 30)
    strip = np.full((2, show), np.nan)
    strip[:, : min(t_end, show)] = assign[: min(t_end, show), r, :].T
    ax.imshow(strip, aspect="auto", cmap=ListedColormap(CLUSTER_COLOURS[:2]), vmin=0, vmax=1, interpolation="nearest",
              extent=(0.5, show + 0.5, 1.5, -0.5))
    ax.set_yticks([0, 1])
    ax.set_yticklabels(["client 1", "client 2"], fontsize=fs(6.5))
    ax.set_xlabel("round t", fontsize=fs(7))
    title_with_note(ax, "(c) cluster picked", "blue: $\\theta_1$, red: $\\theta_2$")
    for a in axes:
        a.tick_params(labelsize=fs(6.5))


def draw_example2(result, path, algorithm: str | None = None) -> Path:
    fig = new_figure()
    render_example2(fig, result, algorithm=algorithm)
    return _finish(fig, path)


# -- Example 3 -------------------------------------------------------------------------------
def render_example3(fig: Figure, result, upto: int | None = None) -> None:
    """(a) gradients g_1, g_2 and both branches of g_3 with the FedAvg optimum; (b) CFL's first split
    at x = 1/3 over the Monte-Carlo draws; (c) probability that 2 and 3 are apart, CFL vs FC."""
    axes = fig.subplots(1, 3, gridspec_kw={"width_ratios": [1.1, 1, 1.1]})
    fig.subplots_adjust(left=0.085, right=0.99, bottom=0.2, top=0.86, wspace=0.38)
    ax = axes[0]
    xs = np.linspace(-0.2, 1.05, 50)
    ax.plot(xs, xs, color=CLUSTER_COLOURS[0], lw=1.2, label="$g_1 = x$")
    ax.plot(xs, xs - 0.5, color=CLUSTER_COLOURS[1], lw=1.2, label="$g_2 = x - 1/2$")
    ax.plot(xs, xs - 1.0, color=CLUSTER_COLOURS[1], lw=1.0, ls="--", label="$g_3 = x$ or $x - 1$")
    ax.plot(xs, xs, color=CLUSTER_COLOURS[1], lw=1.0, ls="--")
    ax.axhline(0, color="k", lw=0.4)
    ax.set_ylim(-1.25, 1.15)
    ax.axvline(1 / 3, color="k", lw=0.8, ls=":")
    ax.axvline(0.25, color=NEUTRAL, lw=0.8, ls=":")
    ax.text(1.04, -1.18, "black: FedAvg optimum 1/3\ngrey: the paper's 1/4", fontsize=fs(5.5), ha="right", va="bottom")
    sep = _arr(result, "cfl_sep_by_round")  # [rules, T+1]
    T = sep.shape[1] - 1
    t_end = T if upto is None else max(0, min(upto, T))
    if upto is not None and "cfl_x_sample" in result.arrays:  # where CFL's models are in this frame (run 1)
        xs = _arr(result, "cfl_x_sample")[min(t_end, _arr(result, "cfl_x_sample").shape[0] - 1), 0]
        for i, xi in enumerate(np.ravel(xs)[:3]):
            ax.axvline(float(xi), color=CLUSTER_COLOURS[3], lw=lw(1.0), alpha=0.7)
        ax.text(0.02, 0.02, f"purple: CFL's models, round {t_end}", transform=ax.transAxes, fontsize=fs(5.5), color=CLUSTER_COLOURS[3])
    ax.set_title("(a) Example 3 gradients", fontsize=fs(8))
    ax.set_xlabel("x", fontsize=fs(7))
    ax.set_ylabel("$g_i(x)$", fontsize=fs(7))
    place_legend(ax, fontsize=fs(5.5), frameon=False, prefer="upper left")

    ax = axes[1]
    counts = _arr(result, "partition_counts_x_1_3")
    n = float(counts.sum())
    names = ["{1}|{2,3}", "{1,3}|{2}", "{1,2}|{3}"]
    p = counts / n
    err = 1.96 * np.sqrt(p * (1 - p) / n)
    split_seen = upto is None or bool(sep[:, : t_end + 1].max() > 0)  # the bars appear once CFL has split
    ax.bar(range(3), p, yerr=err, color=[CLUSTER_COLOURS[2], CLUSTER_COLOURS[1], NEUTRAL], capsize=2,
           alpha=1.0 if split_seen else 0.15)
    if not split_seen:
        ax.text(1, 0.6, f"no split yet (round {t_end})", ha="center", fontsize=fs(6.5))
    for k in range(3):
        ax.text(k, p[k] + 0.03, f"{int(counts[k])}", ha="center", fontsize=fs(6))
    ax.set_xticks(range(3))
    ax.set_xticklabels(names, fontsize=fs(6))
    ax.set_ylim(0, 0.75)
    ax.set_title("(b) CFL's split at x = 1/3", fontsize=fs(8))
    ax.set_xlabel(f"{int(n)} draws of $g_3$", fontsize=fs(7))
    ax.set_ylabel("fraction", fontsize=fs(7))

    ax = axes[2]
    for k, lab in enumerate(["CFL (optimal split)", "CFL (agglomerative)"][: sep.shape[0]]):
        ax.plot(np.arange(t_end + 1), sep[k, : t_end + 1], color=CLUSTER_COLOURS[1], ls=CLIENT_STYLES[k], lw=1.2, label=lab)
    if "fc_ball2_is_23" in result.arrays:
        fb = _arr(result, "fc_ball2_is_23").astype(float)  # [T_fc, seeds]
        tt = np.arange(1, fb.shape[0] + 1)
        keep = tt <= (tt[-1] if upto is None else upto)
        batch = (result.observed.get("fc") or {}).get("batch", 64) if isinstance(result.observed, dict) else 64
        ax.plot(tt[keep], 1 - fb.mean(1)[keep], color=CLUSTER_COLOURS[2], lw=1.2, label=f"FC, |B| = {batch}")
    mark_round(ax, upto)
    ax.set_xlim(0, max(T, 1))
    ax.set_ylim(-0.03, 0.7)
    ax.set_title("(c) P(clients 2 and 3 apart)", fontsize=fs(8))
    ax.set_xlabel("round t", fontsize=fs(7))
    place_legend(ax, fontsize=fs(6), frameon=False, prefer="upper left")
    for a in axes:
        a.tick_params(labelsize=fs(6.5))


def draw_example3(result, path) -> Path:
    fig = new_figure()
    render_example3(fig, result)
    return _finish(fig, path)


RENDERERS = {"example1": render_example1, "example2": render_example2, "example3": render_example3}


def animate(render, result, path, frames, fps: float = 2.0, dpi: float | None = None, **kw) -> Path:
    """Write a GIF of ``render(fig, result, upto=t, **kw)`` for t in ``frames`` (matplotlib's PillowWriter), at
    ``dpi`` (default: the current style's GIF dpi)."""
    from matplotlib.animation import PillowWriter

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig = new_figure()
    writer = PillowWriter(fps=fps)
    with writer.saving(fig, str(path), dpi=dpi or current_style()["gif_dpi"]):
        for t in frames:
            fig.clf()
            render(fig, result, upto=int(t), **kw)
            writer.grab_frame()
    return path
