"""Classroom demos: ``fedverify demo myopic|ifca|hypcluster|cfl``.

Each demo runs the corresponding check (c01, c04, c05, c07) at quick fidelity, tells the story
round by round in plain words (models, gradients or losses, clusters, and where it goes wrong),
contrasts it with Federated-Clustering, and writes the Figure-1-style PNG (and, on request, a GIF)
drawn by :mod:`counterexamples.figures` from the same Result.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import torch

from counterexamples import figures
from verify.algorithms.myopic import partition_text
from analytic.errors import InputError
from verify.engine import Context
from verify.problems.base import all_pairs
from verify.problems.toys import Example1, Example2

DEMOS = {"myopic": "werner2023.c01", "ifca": "werner2023.c04", "hypcluster": "werner2023.c05", "cfl": "werner2023.c07"}


@dataclass
class DemoOutput:
    name: str
    lines: list[str]
    png: Path
    gif: Path | None = None
    result: object = field(default=None, repr=False)


def _v(values, fmt: str = "{:.3f}") -> str:
    """Models as text; values below 1e-12 in size print as 0 (FC's iterates decay to subnormals)."""
    return "(" + ", ".join("0" if abs(float(v)) < 1e-12 else fmt.format(float(v)) for v in np.ravel(values)) + ")"


def _pick(values, target: float) -> int:
    return int(np.argmin(np.abs(np.asarray(values, float) - target)))


# -- Myopic-Clustering on Example 1 -----------------------------------------------------------
def narrate_myopic(result, rounds: int) -> list[str]:
    a = result.arrays
    r = _pick(a["myopic_eta"], 0.5)
    eta = float(a["myopic_eta"][r])
    x, g, lab, cen = a["myopic_x"][:, r], a["myopic_grads"][:, r], a["myopic_labels"][:, r], a["myopic_centers"][:, r]
    T = lab.shape[0]
    out = [
        f"Example 1 (werner2023, Fig. 1(a)), learning rate eta = {eta:g}. Three clients:",
        "  f1(x) = x^2/(6 eta) and f2 (a flat 'saddle' at x = 1, global minimum at x = 0) share the optimum 0: true cluster {1, 2};",
        "  f3(x) = (x - 2)^2/(2 eta) has its optimum at 2: true cluster {3}. Everyone starts at x = 1.5.",
        "Myopic-Clustering: each client sends the gradient at ITS OWN model; the server splits these gradients into",
        "2 clusters (exact 2-means) and sends every client its cluster's average; the client steps x <- x - eta * average.",
        "",
    ]
    wrong_reported = False
    for t in range(1, min(rounds, T) + 1):
        part = partition_text(lab[t - 1])
        grouped_23 = lab[t - 1, 1] == lab[t - 1, 2]
        verdict = "WRONG" if grouped_23 else "correct"
        out.append(f"Round {t}: models x = {_v(x[t - 1])}, gradients g = {_v(g[t - 1])}.")
        note = ""
        if grouped_23 and not wrong_reported:
            note = (" Client 2 belongs with client 1, but its gradient (0 at the flat point x = 1) equals client 3's (0 at its "
                    "optimum), so 2-means puts {2, 3} together. Client 2 receives the average 0 and does not move.")
            wrong_reported = True
        out.append(f"         The server groups {part} -- {verdict}. Cluster averages {_v(cen[t - 1])}; new models x = {_v(x[t])}.{note}")
    if rounds < T:
        out.append(f"... (rounds {rounds + 1} to {T - 1} repeat the grouping {partition_text(lab[-1])}) ...")
        out.append(f"Round {T}: gradients g = {_v(g[-1], '{:.1e}')}; grouping {partition_text(lab[-1])}; models x = {_v(x[-1], '{:.6f}')}.")
    f2 = float(a["myopic_losses"][-1, r, 1])
    out += [
        "",
        (f"After {T} rounds client 2 is still at x = {x[-1, 1]:.6f}, the saddle, with loss f2 = {f2:.3f} instead of 0. Clients 1 and 3 "
         f"reached their optima, and every gradient is now below {np.abs(g[-1]).max():.1e}: the server can no longer tell the "
         "clusters apart (the paper's collapse: 'all clients are clustered together')."),
    ]
    if "fc_x" in a:
        rf = _pick(a["fc_eta"], 0.1)
        eta_f, tau = float(a["fc_eta"][rf]), float(a["fc_tau"][rf])
        fx, ball = a["fc_x"][:, rf], a["fc_ball"][:, rf]
        prob = Example1(eta_f)
        out += ["", (f"Federated-Clustering on the same losses (eta = {eta_f:g}, radius tau = {tau:g}): every client evaluates ITS "
                     "gradient at EVERY client's model, and each client averages the gradients that fall within tau of its own.")]
        for t in range(1, min(rounds, fx.shape[0] - 1) + 1):
            G = prob.grad(all_pairs(torch.tensor(fx[t - 1][None, :, None])))[0, 1, :, 0].numpy()  # all clients at x_2
            members = [j + 1 for j in range(3) if ball[t - 1, 1, j]]
            out.append(f"Round {t}: x = {_v(fx[t - 1])}; at client 2's model the gradients are {_v(G)}; client 2 averages "
                       f"clients {members} and moves to x_2 = {fx[t, 1]:.3f}.")
        out.append(f"FC ends at x = {_v(fx[-1], '{:.2e}')} after {fx.shape[0] - 1} rounds: client 2 passed the saddle and reached 0.")
    return out


# -- IFCA / HypCluster on Example 2 ---------------------------------------------------------
def narrate_example2(result, rounds: int, algorithm: str) -> list[str]:
    a = result.arrays
    pre = {"ifca": "ifca1", "hypcluster": "hyp"}[algorithm]
    gam, steps = a[f"{pre}_gamma"], a[f"{pre}_local_steps"]
    want_steps = 1 if algorithm == "ifca" else 5
    cand = [i for i in range(len(gam)) if steps[i] == want_steps] or list(range(len(gam)))
    r = cand[_pick(gam[cand], 0.1)]
    theta, assign = a[f"{pre}_theta"][:, r], a[f"{pre}_assign"][:, r]
    T = assign.shape[0]
    prob = Example2()
    name = {"ifca": "IFCA (Option I: the cluster model steps along its members' average gradient)",
            "hypcluster": f"HypCluster (the server takes {int(steps[r])} gradient steps on each cluster's pooled loss)"}[algorithm]
    out = [
        "Example 2 (werner2023, Fig. 1(b)): f1(x) = (x + 0.5)^2 wants x = -0.5, f2(x) = (x - 0.5)^2 wants x = +0.5:",
        "two clients, two true clusters {1} and {2}.",
        f"{name}, step gamma = {float(gam[r]):g}.",
        "It keeps K = 2 cluster models, starting at theta_1 = -1.5 and theta_2 = 0, and every round each client joins the",
        "model where its LOSS is lowest.",
        "",
    ]
    for t in range(1, min(rounds, T) + 1):
        th = theta[t - 1]
        L = prob.loss(torch.tensor(th)[:, None, None].expand(2, 2, 1)).numpy()  # [K, N]
        G = prob.grad(torch.tensor(th)[:, None, None].expand(2, 2, 1)).numpy()[..., 0]
        j = assign[t - 1]
        together = j[0] == j[1]
        out.append(f"Round {t}: theta = {_v(th)}. Losses at theta_1: client 1 {L[0, 0]:.3f}, client 2 {L[0, 1]:.3f}; "
                   f"at theta_2: {L[1, 0]:.3f}, {L[1, 1]:.3f}.")
        k = int(j[0])
        if together:
            out.append(f"         Both clients pick theta_{k + 1} -- WRONG (they are in different true clusters); theta_{2 - k} has "
                       f"no members and keeps its value. Their gradients at theta_{k + 1} are {G[k, 0]:+.3f} and {G[k, 1]:+.3f}: "
                       f"the average is {G[k].mean():+.3f}, so theta_{k + 1} "
                       + (f"stays at {theta[t, k]:.3f}." if theta[t, k] == th[k] else f"moves to {theta[t, k]:.3f}."))
        else:
            out.append(f"         Client 1 picks theta_{j[0] + 1}, client 2 picks theta_{j[1] + 1}; new theta = {_v(theta[t])}.")
    cl = a[f"{pre}_client_loss"][-1, r]
    out += ["", (f"After {T} rounds theta = {_v(theta[-1])}, both clients still share cluster {int(assign[-1, 0]) + 1}, and each has "
                 f"loss {_v(cl)} instead of 0: the models never moved, and the loss values keep confirming the wrong clustering.")]
    if "fc_x" in a:
        fx, ball = a["fc_x"][:, 0], a["fc_ball"][:, 0]
        tau = float(a["fc_tau"][0])
        out += ["", (f"Federated-Clustering (eta = {float(a['fc_eta'][0]):g}, tau = {tau:g}) clusters GRADIENTS evaluated at each "
                     "client's model; the two clients' gradients are always exactly 2 apart, more than tau.")]
        for t in range(1, min(rounds, fx.shape[0] - 1) + 1):
            G = prob.grad(all_pairs(torch.tensor(fx[t - 1][None, :, None])))[0, :, :, 0].numpy()
            members = [[j + 1 for j in range(2) if ball[t - 1, i, j]] for i in range(2)]
            out.append(f"Round {t}: x = {_v(fx[t - 1])}; at client 1's model the gradients are {_v(G[0])}, at client 2's "
                       f"{_v(G[1])}; client 1 averages {members[0]}, client 2 averages {members[1]}; x -> {_v(fx[t])}.")
        out.append(f"FC ends at x = {_v(fx[-1])}: each client at its own optimum.")
    return out


# -- CFL on Example 3 -----------------------------------------------------------------------
def narrate_cfl(result, rounds: int) -> list[str]:
    a, obs = result.arrays, result.observed
    xs, labs, gs = a["cfl_x_sample"], a["cfl_labels_sample"], a["cfl_grads_sample"]
    T = gs.shape[0]
    split_round = next((t for t in range(1, T + 1) if labs[t, :, :].max() > 0), None)
    out = [
        "Example 3 (werner2023, Fig. 1(c)): gradients g1 = x, g2 = x - 1/2, and g3 = x or x - 1 with probability 1/2 each",
        "(on average x - 1/2). True clusters: {1} (optimum 0) and {2, 3} (optimum 1/2).",
        "CFL trains one FedAvg model until it is (nearly) stationary, then splits the clients in two by the cosine similarity",
        "of their gradients (in 1-D: their signs) and recurses on each part; parts are never merged again.",
        "",
    ]
    for t in range(1, min(rounds, T) + 1):
        out.append(f"Round {t} (run 1): common model x = {xs[t - 1, 0, 0]:.3f}; gradients {_v(gs[t - 1, 0])}; FedAvg steps to "
                   f"x = {xs[t, 0, 0]:.3f}.")
    if split_round is None:
        return out + ["(no split happened in the recorded runs)"]
    pre = split_round - 1
    out.append(f"... FedAvg continues until round {pre}: x = {xs[pre, 0, 0]:.3f}. Its fixed point is x* = 1/3, where "
               "x + (x - 1/2) + (x - 1/2) = 0 (the paper says 1/4, which is the optimum of clients 1 and 2 only).")
    shown = set()
    for run in range(xs.shape[1]):
        lab = labs[split_round, run]
        kind = "wrong" if lab[1] != lab[2] else "right"
        if kind in shown:
            continue
        shown.add(kind)
        g = gs[split_round - 1, run]
        signs = "".join("+" if v > 0 else "-" for v in g)
        part = partition_text(lab)
        text = ("WRONG: clients 2 and 3 (same true cluster) are separated, and CFL never merges parts again"
                if kind == "wrong" else "correct")
        out.append(f"Round {split_round} (run {run + 1}): at x = {xs[split_round - 1, run, 0]:.3f} the gradients are {_v(g)} "
                   f"(signs {signs}: client 3 drew g3 = {'x' if g[2] > 0 else 'x - 1'}). CFL splits {part} -- {text}.")
        if len(shown) == 2:
            break
    p = obs["p_separate_(p,lo,hi)"]
    key = next(iter(p))
    out += ["", (f"Over {obs['draws']} draws at x = 1/3 the split separated clients 2 and 3 in {p[key][0]:.3f} of cases "
                 f"(95% CI {p[key][1]:.3f} to {p[key][2]:.3f}); the wrong split is always {{1, 3}} | {{2}}."),
            (f"Federated-Clustering with batches of {obs['fc']['batch']} (client 3 averages {obs['fc']['batch']} draws) puts client 2's "
             f"ball at exactly {{2, 3}} in {obs['fc']['frac_rounds_ball2_is_23']:.3f} of rounds; with single draws it never does "
             "(check werner2023.c08).")]
    return out


NARRATORS = {"myopic": narrate_myopic, "ifca": lambda r, n: narrate_example2(r, n, "ifca"),
             "hypcluster": lambda r, n: narrate_example2(r, n, "hypcluster"), "cfl": narrate_cfl}
RENDER = {"myopic": (figures.render_example1, {}, 13), "ifca": (figures.render_example2, {"algorithm": "ifca1"}, 11),
          "hypcluster": (figures.render_example2, {"algorithm": "hyp"}, 11), "cfl": (figures.render_example3, {}, None)}


def run_demo(name: str, out_dir, *, animate: bool = False, rounds: int = 6, seed: int = 0) -> DemoOutput:
    """Run the demo ``name``; write ``demo_<name>.png`` (and ``.gif``) under ``out_dir``."""
    from verify.registry import get

    if name not in DEMOS:
        raise InputError("NAME", f"unknown demo {name!r}; choose one of {', '.join(DEMOS)}")
    if rounds < 1:
        raise InputError("rounds", f"must be a positive integer, got {rounds}")
    out = Path(out_dir)
    if out.exists() and not out.is_dir():
        raise InputError("out", f"{str(out)!r} exists and is not a directory")
    out.mkdir(parents=True, exist_ok=True)
    result = get(DEMOS[name]).run(Context(fidelity="quick", seed=seed))
    lines = NARRATORS[name](result, rounds)
    render, kw, n_frames = RENDER[name]
    png = out / f"demo_{name}.png"
    fig = figures.new_figure()
    render(fig, result, **kw)
    fig.savefig(png, dpi=figures.DPI, format="png")
    gif = None
    if animate:
        frames = range(n_frames) if n_frames else np.linspace(0, result.arrays["cfl_sep_by_round"].shape[1] - 1, 13).astype(int)
        gif = figures.animate(render, result, out / f"demo_{name}.gif", frames, fps=2.0, **kw)
    lines += ["", f"Figure: {png}"] + ([f"Animation: {gif}"] if gif else [])
    return DemoOutput(name, lines, png, gif, result)
