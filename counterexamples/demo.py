"""Classroom demos: ``fedverify demo myopic|ifca|hypcluster|cfl|byzantine|cafcor|graph``, and :func:`run_demo`.

The werner2023 demos run the corresponding check (c01, c04, c05, c07) at quick fidelity, tell the
story round by round in plain words (models, gradients or losses, clusters, and where it goes wrong),
contrast it with Federated-Clustering, and write the Figure-1-style figure (and, on request, a GIF)
drawn by :mod:`counterexamples.figures` from the same Result. The byzantine (dutta2023), cafcor
(allouah2025) and graph (buttaci2024) demos run the toys of :mod:`counterexamples.teaching`.
The knobs (eta, tau, batch, start, clients, byzantine) reach the check as keyword overrides (``DEMO_TABLE``).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np
import torch

from counterexamples import figures, teaching
from verify.algorithms.myopic import partition_text
from analytic.errors import InputError
from verify.engine import Context
from verify.problems.base import all_pairs
from verify.problems.toys import Example1, Example2

@dataclass
class DemoOutput:
    """What :func:`run_demo` produced: the narration, the still figure, the GIF (or None), the Result and the knobs."""

    name: str
    lines: list[str]
    figure: Path
    gif: Path | None = None
    result: object = field(default=None, repr=False)
    knobs: dict = field(default_factory=dict)

    @property
    def png(self) -> Path:
        """The still figure (kept under its old name; it is a PNG unless another format was asked for)."""
        return self.figure


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
        f"  f3(x) = (x - 2)^2/(2 eta) has its optimum at 2: true cluster {{3}}. Everyone starts at x = {float(x[0, 0]):g}.",
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
    if abs(float(x[-1, 1]) - 1.0) < 1e-6:
        out += [
            "",
            (f"After {T} rounds client 2 is still at x = {x[-1, 1]:.6f}, the saddle, with loss f2 = {f2:.3f} instead of 0. Clients 1 and 3 "
             f"reached their optima, and every gradient is now below {np.abs(g[-1]).max():.1e}: the server can no longer tell the "
             "clusters apart (the paper's collapse: 'all clients are clustered together')."),
        ]
    else:  # another start or step (a knob): say what happened instead of the paper's story
        out += ["", (f"After {T} rounds the models are x = {_v(x[-1], '{:.4f}')}; client 2's loss is f2 = {f2:.3f} (0 at its optimum). "
                     + ("Client 2 ends near the saddle x = 1 without being exactly stuck there." if abs(float(x[-1, 1]) - 1.0) < 1e-2
                        else "With these settings client 2 does not end at the saddle x = 1."))]
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
        ok = bool(np.all(np.abs(fx[-1] - np.array([0.0, 0.0, 2.0])) < 1e-3))
        out.append(f"FC ends at x = {_v(fx[-1], '{:.2e}')} after {fx.shape[0] - 1} rounds: "
                   + ("client 2 passed the saddle and reached 0." if ok else
                      "it did NOT reach (0, 0, 2) with this eta and tau (at eta = 0.5 FC fails too: check werner2023.c03)."))
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
        f"It keeps K = 2 cluster models, starting at theta_1 = {float(theta[0, 0]):g} and theta_2 = {float(theta[0, 1]):g}, and every round each client joins the",
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
    if assign[-1, 0] == assign[-1, 1]:
        moved = "the models never moved" if np.allclose(theta[-1], theta[0]) else f"theta moved from {_v(theta[0])}"
        out += ["", (f"After {T} rounds theta = {_v(theta[-1])}, both clients still share cluster {int(assign[-1, 0]) + 1}, and each has "
                     f"loss {_v(cl)} instead of 0: {moved}, and the loss values keep confirming the wrong clustering.")]
    else:
        out += ["", f"After {T} rounds theta = {_v(theta[-1])} and the clients are in different clusters (losses {_v(cl)})."]
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
        ok = bool(np.all(np.abs(fx[-1] - np.array([-0.5, 0.5])) < 1e-6))
        out.append(f"FC ends at x = {_v(fx[-1])}: " + ("each client at its own optimum." if ok else
                   "NOT at the optima (-0.5, 0.5): with tau >= 2 the two gradients fall in one ball (check werner2023.c06)."))
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


# -- the demos and their knobs --------------------------------------------------------------------
#: The knobs every demo may take, with the type a value must have.
KNOBS = ("eta", "tau", "batch", "start", "clients", "byzantine")
FORMATS = ("png", "svg", "pdf")


@dataclass(frozen=True)
class Demo:
    """One classroom demo: what it runs (a registered check id, or a toy of :mod:`counterexamples.teaching`), which
    knobs it takes and what each means there, how the knobs become the check's keyword overrides, and how it
    narrates and draws the Result."""

    name: str
    source: str
    summary: str
    knobs: dict
    overrides: Callable[[dict], dict]
    narrate: Callable
    render: Callable
    render_kw: dict = field(default_factory=dict)
    frames: Callable = lambda result: range(13)


def _myopic_overrides(k: dict) -> dict:
    ov: dict = {}
    if k.get("eta") is not None:
        ov["etas"] = ov["fc_etas"] = (k["eta"],)
    fc_etas = ov.get("fc_etas", (0.25, 0.1))
    if k.get("tau") is not None:
        ov["fc_s"] = tuple(k["tau"] * e for e in fc_etas)  # tau = s / eta
    elif "fc_etas" in ov:
        ov["fc_s"] = (0.5,)  # the check's s = 0.5, tau = 0.5 / eta
    if k.get("start") is not None:
        ov["x0"] = k["start"]
    return ov


def _example2_overrides(k: dict) -> dict:
    ov: dict = {}
    if k.get("eta") is not None:
        ov["gammas"] = (k["eta"],)
    if k.get("tau") is not None:
        ov["fc_taus"] = (k["tau"],)
    if k.get("start") is not None:
        ov["theta0"] = (-1.5, k["start"])
    return ov


def _cfl_overrides(k: dict) -> dict:
    ov: dict = {}
    if k.get("eta") is not None:
        ov["cfl_eta"] = ov["fc_eta"] = k["eta"]
    if k.get("tau") is not None:
        ov["fc_tau"] = k["tau"]
    if k.get("batch") is not None:
        ov["fc_batch"] = k["batch"]
    if k.get("start") is not None:
        ov["x0"] = ov["fc_x0"] = k["start"]
    return ov


def _toy_overrides(k: dict) -> dict:
    return {key: v for key, v in k.items() if v is not None}


def _cfl_frames(result):
    return np.linspace(0, result.arrays["cfl_sep_by_round"].shape[1] - 1, 13).astype(int)


DEMO_TABLE = {
    "myopic": Demo("myopic", "werner2023.c01", "Myopic-Clustering traps client 2 at a saddle (werner2023 Example 1)",
                   {"eta": "the learning rate eta of Myopic-Clustering and FC (default: Myopic 0.5, FC 0.1)",
                    "tau": "FC's radius tau (default 0.5/eta)", "start": "every client's start x_0 (default 1.5)"},
                   _myopic_overrides, narrate_myopic, figures.render_example1),
    "ifca": Demo("ifca", "werner2023.c04", "IFCA (gradient averaging) is stuck (werner2023 Example 2)",
                 {"eta": "IFCA's step gamma (default 0.1)", "tau": "FC's radius tau (default 1)",
                  "start": "theta_2's start (theta_1 starts at -1.5; default 0)"},
                 _example2_overrides, lambda r, n: narrate_example2(r, n, "ifca"), figures.render_example2, {"algorithm": "ifca1"},
                 lambda result: range(11)),
    "hypcluster": Demo("hypcluster", "werner2023.c05", "HypCluster is stuck (werner2023 Example 2)",
                       {"eta": "HypCluster's step gamma (default 0.1)", "tau": "FC's radius tau (default 1)",
                        "start": "theta_2's start (theta_1 starts at -1.5; default 0)"},
                       _example2_overrides, lambda r, n: narrate_example2(r, n, "hypcluster"), figures.render_hypcluster, {},
                       lambda result: range(11)),
    "cfl": Demo("cfl", "werner2023.c07", "CFL splits clients 2 and 3 with probability 1/2 (werner2023 Example 3)",
                {"eta": "the step of CFL's FedAvg phase and of FC (default 0.2 and 0.5)", "tau": "FC's radius tau (default 0.25)",
                 "batch": "FC's batch size |B| (default 64)", "start": "the start of CFL (default 0) and FC (default 0.25)"},
                _cfl_overrides, narrate_cfl, figures.render_example3, {}, _cfl_frames),
    "byzantine": Demo("byzantine", "toy:byzantine", "a Byzantine attack breaks the mean, not CE (dutta2023)",
                      {"eta": "the step alpha L (default 0.1)", "tau": "local steps T per round (default 3)",
                       "byzantine": "the number f of Byzantine agents of N = 50 (default 5)",
                       "start": "every coordinate of x_0 (default 0)"},
                      _toy_overrides, teaching.narrate_byzantine, teaching.render_byzantine, {},
                      lambda result: np.linspace(0, len(result.arrays["rounds"]) - 1, 16).astype(int)),
    "cafcor": Demo("cafcor", "toy:cafcor", "CafCor's correlated noise cancels in the average (allouah2025)",
                   {"eta": "the step of the noisy gradient descent (default 0.2)", "clients": "the number n of workers (default 10)",
                    "start": "every coordinate of x_0 (default 3)"},
                   _toy_overrides, teaching.narrate_cafcor, teaching.render_cafcor, {},
                   lambda result: range(0, result.arrays["xi"].shape[0], 3)),
    "graph": Demo("graph", "toy:graph", "the similarity graph pulls the clients (buttaci2024)",
                  {"eta": "the step gamma (default 0.1)", "tau": "local steps E per round (default 5)",
                   "clients": "the number C of clients (default 5)", "start": "every coordinate of wbar_0 (default 3)"},
                  _toy_overrides, teaching.narrate_graph, teaching.render_graph, {},
                  lambda result: range(result.arrays["starts"].shape[0])),
}
DEMOS = {name: d.source for name, d in DEMO_TABLE.items()}  # name -> what it runs (kept for callers of the old table)


def check_knobs(name: str, knobs: dict) -> dict:
    """The knobs given to demo ``name`` (None = not given), checked: a knob the demo cannot vary, or a value out of
    range, raises :class:`InputError` naming the knob. Returns the given knobs only."""
    demo = DEMO_TABLE[name]
    given = {k: v for k, v in knobs.items() if v is not None}
    for k, v in given.items():
        if k not in demo.knobs:
            raise InputError(k, f"the {name} demo cannot vary {k}; its knobs are "
                             + "; ".join(f"{kk}: {m}" for kk, m in demo.knobs.items()))
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not np.isfinite(v):
            raise InputError(k, f"expected a finite number, got {v!r}")
    if "eta" in given and not given["eta"] > 0:
        raise InputError("eta", f"must be > 0, got {given['eta']}")
    if "tau" in given and not given["tau"] > 0:
        raise InputError("tau", f"must be > 0, got {given['tau']}")
    for k in ("batch", "clients", "byzantine"):
        if k in given and (int(given[k]) != given[k] or given[k] < 1):
            raise InputError(k, f"must be a positive integer, got {given[k]}")
        if k in given:
            given[k] = int(given[k])
    return given


def run_demo(name: str, out_dir, *, animate: bool = False, rounds: int = 6, seed: int = 0, eta: float | None = None,
             tau: float | None = None, batch: int | None = None, start: float | None = None, clients: int | None = None,
             byzantine: int | None = None, format: str = "png", dpi: float | None = None, style: str = "paper") -> DemoOutput:  # noqa: A002 (the CLI's name)
    """Run the classroom demo ``name``, tell it round by round, and draw it.

    Parameters
    ----------
    name : str
        One of ``myopic``, ``ifca``, ``hypcluster``, ``cfl`` (werner2023's toy counterexamples, run through the
        checks werner2023.c01, c04, c05, c07), ``byzantine`` (dutta2023: attack A6 against the plain mean and CE),
        ``cafcor`` (allouah2025: pairwise correlated noise cancelling in the average) or ``graph`` (buttaci2024: the
        similarity graph's pull). ``DEMO_TABLE[name].knobs`` says which knobs a demo takes and what they mean there.
    out_dir : str or Path
        Directory for ``demo_<name>.<format>`` (and ``demo_<name>.gif``); created if missing.
    animate : bool
        Also write an animated GIF, one frame per round drawn (every panel marks the current round).
    rounds : int
        How many rounds the narration tells in detail (>= 1).
    seed : int
        Root seed of the run (>= 0; the stochastic demos cfl, byzantine, cafcor depend on it).
    eta, tau, batch, start, clients : number or None
        The knobs, passed to the check (or toy) as keyword overrides; None keeps the check's default. eta: the
        step size; tau: FC's radius (werner2023 demos) or local steps per round (byzantine, graph); batch: FC's
        batch size (cfl); start: the start point; clients: the number of Byzantine agents (byzantine), workers
        (cafcor) or clients (graph). A knob the demo cannot vary raises InputError naming it.
    format : str
        ``png``, ``svg`` or ``pdf``: the still figure's format.
    dpi : float or None
        Resolution of the still figure (default 150; ignored by svg and pdf text, used for their raster parts).
    style : str
        ``paper`` (6.5 in wide, the report's figure size) or ``slides`` (13.3 in wide, every text >= 12 pt, GIFs
        1333 px wide).

    Returns
    -------
    DemoOutput
        ``lines`` (the narration, ending with the files written), ``figure`` (the still's path), ``gif`` (or None),
        ``result`` (the check's :class:`~verify.result.Result` or the toy's :class:`~counterexamples.teaching.ToyResult`)
        and ``knobs`` (the knobs given).

    Raises
    ------
    InputError
        Bad input, naming the parameter (``NAME``, ``rounds``, ``eta``, ``format`` ...); the command line prints one
        line and exits 2.

    Example
    -------
    >>> from counterexamples.demo import run_demo
    >>> out = run_demo("myopic", "demo", eta=0.25, format="svg")     # doctest: +SKIP
    >>> print("\\n".join(out.lines[:3])); out.figure                   # doctest: +SKIP
    """
    from verify.registry import get

    if name not in DEMO_TABLE:
        raise InputError("NAME", f"unknown demo {name!r}; choose one of {', '.join(DEMO_TABLE)}")
    if isinstance(rounds, bool) or not isinstance(rounds, int) or rounds < 1:
        raise InputError("rounds", f"must be a positive integer, got {rounds}")
    if format not in FORMATS:
        raise InputError("format", f"unknown format {format!r}; choose one of {', '.join(FORMATS)}")
    if dpi is not None and not (isinstance(dpi, (int, float)) and np.isfinite(dpi) and 10 <= dpi <= 1200):
        raise InputError("dpi", f"must be a number in [10, 1200], got {dpi!r}")
    if style not in figures.STYLES:
        raise InputError("style", f"unknown style {style!r}; choose one of {', '.join(figures.STYLES)}")
    demo = DEMO_TABLE[name]
    knobs = check_knobs(name, {"eta": eta, "tau": tau, "batch": batch, "start": start, "clients": clients,
                               "byzantine": byzantine})
    out = Path(out_dir)
    if out.exists() and not out.is_dir():
        raise InputError("out", f"{str(out)!r} exists and is not a directory")
    out.mkdir(parents=True, exist_ok=True)
    ctx = Context(fidelity="quick", seed=seed)
    overrides = demo.overrides(knobs)
    if demo.source.startswith("toy:"):
        result = teaching.run_toy(demo.source[4:], ctx, **overrides)
    else:
        result = get(demo.source).run(ctx, **overrides)
    lines = demo.narrate(result, rounds)
    if knobs:
        lines = [f"Knobs: {', '.join(f'{k} = {v:g}' for k, v in knobs.items())} (passed to {demo.source} as "
                 f"{', '.join(f'{k}={v}' for k, v in overrides.items())})", ""] + lines
    path = out / f"demo_{name}.{format}"
    gif = None
    with figures.style(style):
        fig = figures.new_figure()
        demo.render(fig, result, **demo.render_kw)
        fig.savefig(path, dpi=dpi or figures.DPI, format=format)
        if animate:
            gif = figures.animate(demo.render, result, out / f"demo_{name}.gif", demo.frames(result), fps=2.0, **demo.render_kw)
    lines += ["", f"Figure: {path}"] + ([f"Animation: {gif}"] if gif else [])
    return DemoOutput(name, lines, path, gif, result, knobs)
