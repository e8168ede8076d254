"""Example 2 of werner2023 (Fig. 1(b)): IFCA and HypCluster assign by loss value and stay stuck;
Federated-Clustering separates the clients by gradients. Checks werner2023.c04-c06
(docs/papers/werner2023.md §4.2, 6.1 checks 4-6).

f_1 = (x + 0.5)^2 (5), f_2 = (x - 0.5)^2 (6); cluster models start at theta = (-1.5, 0). At
theta_2 = 0 both losses are 0.25 (< 1 and 4 at theta_1), so both clients pick cluster 2; their
gradients +1 and -1 average to 0 (Option I), their local models are symmetric about 0 (Option II,
HypCluster), and nothing ever moves. ||grad f_1(x) - grad f_2(x)|| = 2 for all x: Assumption 5
holds with Delta = 2, D = 0, and FC with tau < 2 separates the clients.
"""
from __future__ import annotations

import numpy as np
import torch

from analytic.papers.werner2023 import PAPER
from verify import figspec
from verify.algorithms.federated_clustering import federated_clustering
from verify.algorithms.ifca import ifca
from verify.engine import Context
from verify.fit import apply_assumptions, counterexample_verdict, identity_verdict
from verify.problems.toys import Example2
from verify.registry import check, register_paper, result_for
from verify.result import Assumption, Claim, Result

register_paper(PAPER)

THETA0 = (-1.5, 0.0)
GAMMAS = (0.01, 0.1, 0.4)
LOCAL_STEPS = (1, 5, 20)
T_IFCA = 100
FC_ETA, FC_T, FC_M = 0.25, 100, 10
FC_TAUS = (0.5, 1.0, 1.9)
FC_INITS = ((0.0, 0.0), (-1.5, 0.0), (1.5, -1.5))
FC_CONTROL_TAUS = (2.0, 2.5)
FC_TOL = 1e-6
STUCK_TOL = 1e-12
FIGURE = {"draw": "counterexamples.figures:draw_example2"}


def _np(t: torch.Tensor) -> np.ndarray:
    return t.detach().cpu().numpy()


def run_ifca_grid(ctx: Context, option: str, gammas, local_steps: int = 1, normalize: str | None = None, ifca_fn=ifca,
                  theta0=THETA0):
    """IFCA (option I / II / hypcluster) from theta = (-1.5, 0), one replicate per gamma; ``normalize=None``: the
    algorithm's own rule (Option I divides by m as in IFCA's Algorithm 1, HypCluster by the members)."""
    g = ctx.tensor(list(gammas))
    theta0 = ctx.tensor(list(theta0))[None, :, None].expand(len(gammas), 2, 1).clone()
    return ifca_fn(Example2(), theta0, g, T_IFCA, option=option, local_steps=local_steps, normalize=normalize)


def stuck_parts(tr, theta0=THETA0) -> dict:
    """The paper's failure predicate on an IFCA trace: assignments (2, 2) every round, theta frozen
    at (-1.5, 0) (tolerance 1e-12), each client's loss 0.25."""
    theta = tr.theta[..., 0]
    v_loss, _ = identity_verdict(_np(tr.client_loss[1:]), 0.25, rtol=0.0, atol=STUCK_TOL)
    return {
        "assignments_(2,2)_every_round": bool((tr.assign == 1).all()),
        "theta_frozen_at_(-1.5,0)": bool(((theta - theta.new_tensor(list(theta0))).abs() <= STUCK_TOL).all()),
        "client_losses_0.25": v_loss.passed,
    }


def run_fc(ctx: Context, inits, taus, fc=federated_clustering, eta: float = FC_ETA):
    """FC on Example 2, one replicate per (init, tau) pair."""
    x0 = ctx.tensor([list(i) for i in inits])[..., None]
    return fc(Example2(), x0, eta, FC_T, ctx.tensor(list(taus)), steps=FC_M)


def fc_solves(x_T: torch.Tensor) -> torch.Tensor:
    """``[R, 2]`` -> bool ``[R]``: x_T within 1e-6 of (-0.5, 0.5)."""
    return ((x_T - x_T.new_tensor([-0.5, 0.5])).abs() < FC_TOL).all(-1)


def separation_assumption(ctx: Context) -> Assumption:
    """Assumption 5 (17) on a grid: ||grad f_1(x) - grad f_2(x)|| = 2, i.e. Delta = 2 with D = 0."""
    xs = torch.linspace(-3, 3, 601, dtype=ctx.dtype, device=ctx.torch_device)
    G = Example2().grad(xs[:, None, None].expand(-1, 2, 1))[..., 0]
    gap = (G[:, 0] - G[:, 1]).abs()
    v, info = identity_verdict(_np(gap), 2.0, rtol=1e-12)
    return Assumption("Assumption 5 (17): ||grad f_1 - grad f_2|| = Delta = 2, D = 0", v.passed, float(gap.min()),
                      "exact", f"on 601 points of [-3, 3]; max abs error {info['max_abs_error']:.1e}")


def ifca_arrays(prefix: str, tr, gammas, local_steps) -> dict:
    grads = {} if tr.grads is None else {f"{prefix}_grads": _np(tr.grads[..., 0])}  # [T, R, K, N]: g_i(theta_k)
    return {**grads, f"{prefix}_theta": _np(tr.theta[..., 0]), f"{prefix}_assign": _np(tr.assign),
            f"{prefix}_losses": _np(tr.losses), f"{prefix}_client_loss": _np(tr.client_loss),
            f"{prefix}_gamma": np.asarray(gammas, float), f"{prefix}_local_steps": np.asarray(local_steps, float)}


def fc_arrays(tr, inits, taus, eta: float = FC_ETA) -> dict:
    return {"fc_x": _np(tr.x[..., 0]), "fc_v": _np(tr.v[..., 0]), "fc_ball": _np(tr.ball), "fc_losses": _np(tr.losses),
            "fc_own_grad": _np(tr.own_grad[..., 0]), "fc_init": np.asarray(inits, float), "fc_tau": np.asarray(taus, float),
            "fc_eta": np.asarray([eta], float)}


def _repair(ctx: Context, fc, taus=(1.0,), init=FC_INITS[1], eta: float = FC_ETA) -> tuple[bool, object, list, list]:
    inits = [tuple(init)] * len(taus)
    taus = list(taus)
    tr = run_fc(ctx, inits, taus, fc, eta)
    return bool(fc_solves(tr.x[-1, :, :, 0]).all()), tr, inits, taus


IFCA_CLAIM_SOURCE = "werner2023 section 2.1, Example 2, eqs. (5)-(6), Fig. 1(b)"


# -- c04 -------------------------------------------------------------------------------------
C04_TITLE = "IFCA Option I is stuck on Example 2: both clients in cluster 2, theta never moves"


@check("werner2023.c04", C04_TITLE, "counterexample", "reproduced", statements=("Example 2",))
def c04_ifca_option1_stuck(ctx: Context, *, ifca_fn=ifca, fc=federated_clustering, gammas=GAMMAS, theta0=THETA0,
                           fc_taus=(1.0,), fc_eta: float = FC_ETA) -> Result:
    """docs/papers/werner2023.md §6.1 claim 4: gamma in {0.01, 0.1, 0.4}, T = 100, theta_0 = (-1.5, 0).

    The grid is keyword arguments with the paper's values (the classroom demo varies them): IFCA's steps
    ``gammas``, its start ``theta0`` (also FC's start), FC's radii ``fc_taus`` and step ``fc_eta``."""
    gammas = tuple(gammas)
    runs = {norm: run_ifca_grid(ctx, "I", gammas, normalize=norm, ifca_fn=ifca_fn, theta0=theta0) for norm in ("members", "all")}
    parts = {f"{norm}: {k}": v for norm, tr in runs.items() for k, v in stuck_parts(tr, theta0).items()}
    failure = all(parts.values())
    repaired, ftr, inits, taus = _repair(ctx, fc, fc_taus, theta0, fc_eta)
    verdict = counterexample_verdict(failure, repaired)
    tr = runs["all"]  # IFCA's Algorithm 1 (divide by m); the members-normalised variant is reported beside it
    L0 = _np(tr.losses[0, 0])  # [K, N] at theta_0
    return result_for(
        ctx, verdict=verdict,
        claim=Claim(
            "IFCA (Option I, gradient averaging) initialised at theta = (-1.5, 0) assigns both clients to cluster 2 by "
            "loss value; their gradients at 0 average to 0, so the models never move and the wrong clustering {1, 2} "
            "persists; Federated-Clustering reaches (-0.5, 0.5).",
            r"\hat j_i = \arg\min_k f_i(\theta_k) = 2,\ \tfrac12(\nabla f_1(0)+\nabla f_2(0)) = 0",
            IFCA_CLAIM_SOURCE,
            "hat(j)_i = arg min_k f_i (theta_k) = 2, space 1/2 (nabla f_1(0) + nabla f_2(0)) = 0"),
        observed={"gamma": list(gammas), "T": T_IFCA, "losses_at_theta0_[k][i]": L0, "theta_T": _np(tr.theta[-1, :, :, 0]),
                  "theta_T_normalize_members": _np(runs["members"].theta[-1, :, :, 0]), "assign_rounds_all_(2,2)": parts["all: assignments_(2,2)_every_round"],
                  "client_loss_T": _np(tr.client_loss[-1]), "failure_parts": parts,
                  "fc": {"init": inits, "tau": taus, "eta": FC_ETA, "T": FC_T, "x_T": _np(ftr.x[-1, :, :, 0]), "solved": repaired}},
        predicted={"losses_at_theta0_[k][i]": [[1.0, 4.0], [0.25, 0.25]], "theta_T": list(theta0), "client_loss": 0.25,
                   "fc_x_T": [-0.5, 0.5]},
        fit={"tolerance": STUCK_TOL},
        explanation=(
            "At theta_0 the losses are f_1 = 1, f_2 = 4 at theta_1 = -1.5 and 0.25, 0.25 at theta_2 = 0, so both clients "
            "choose cluster 2. Their gradients there are +1 and -1; their average (over members, or over all m = 2 "
            f"clients as in IFCA's Algorithm 1) is exactly 0 for every gamma in {list(gammas)}, so theta stays at (-1.5, 0) "
            f"for all {T_IFCA} rounds and each client keeps loss 0.25 instead of 0. Federated-Clustering compares the "
            "gradients +1 and -1 (distance 2 > tau) and lets each client follow its own, ending at (-0.5, 0.5)."),
        figure=FIGURE,
        arrays={**ifca_arrays("ifca1", tr, gammas, [1] * len(gammas)), **fc_arrays(ftr, inits, taus, fc_eta)},
    )



# -- c05 -------------------------------------------------------------------------------------
C05_TITLE = "IFCA Option II and HypCluster are stuck on Example 2 for every step size and local-step count"


@check("werner2023.c05", C05_TITLE, "counterexample", "reproduced", statements=("Example 2",))
def c05_ifca_option2_hypcluster_stuck(ctx: Context, *, ifca_fn=ifca, fc=federated_clustering, gammas=GAMMAS,
                                      local_steps=LOCAL_STEPS, theta0=THETA0, fc_taus=(1.0,), fc_eta: float = FC_ETA) -> Result:
    """docs/papers/werner2023.md §6.1 claim 5: LocalUpdate tau_loc in {1, 5, 20}, gamma in {0.01, 0.1, 0.4}; tolerance 1e-12.

    The grid is keyword arguments with the paper's values (the classroom demo varies them): ``gammas``,
    ``local_steps``, the start ``theta0`` (also FC's start), FC's radii ``fc_taus`` and step ``fc_eta``."""
    gammas, local_steps = tuple(gammas), tuple(local_steps)
    grid = [(g, s) for s in local_steps for g in gammas]
    runs = {}
    for option in ("II", "hypcluster"):
        trs = [run_ifca_grid(ctx, option, gammas, local_steps=s, ifca_fn=ifca_fn, theta0=theta0) for s in local_steps]
        runs[option] = trs
    parts = {}
    for option, trs in runs.items():
        for s, tr in zip(local_steps, trs):
            for k, v in stuck_parts(tr, theta0).items():
                parts[f"{option}, tau_loc={s}: {k}"] = v
    failure = all(parts.values())
    repaired, ftr, inits, taus = _repair(ctx, fc, fc_taus, theta0, fc_eta)
    verdict = counterexample_verdict(failure, repaired)
    max_dev = {opt: max(float((tr.theta[..., 0] - tr.theta.new_tensor(list(theta0))).abs().max()) for tr in trs) for opt, trs in runs.items()}
    cat = lambda trs, f: torch.cat([f(tr) for tr in trs], dim=1)
    arrays = {}
    for prefix, opt in (("ifca2", "II"), ("hyp", "hypcluster")):
        trs = runs[opt]
        arrays.update({f"{prefix}_theta": _np(cat(trs, lambda t: t.theta[..., 0])), f"{prefix}_assign": _np(cat(trs, lambda t: t.assign)),
                       f"{prefix}_client_loss": _np(cat(trs, lambda t: t.client_loss)),
                       f"{prefix}_gamma": np.asarray([g for g, _ in grid], float), f"{prefix}_local_steps": np.asarray([s for _, s in grid], float)})
    return result_for(
        ctx, verdict=verdict,
        claim=Claim(
            "With model averaging (IFCA Option II: tau_loc local gradient steps per client, then the cluster averages "
            "the models) and with HypCluster (centralised steps on each cluster's pooled loss), the clients' updates "
            "from theta_2 = 0 are symmetric about 0, so theta_2 stays 0 and both clients stay in cluster 2.",
            r"\theta_2 \leftarrow \tfrac12\big(\mathrm{LocalUpdate}_1(0)+\mathrm{LocalUpdate}_2(0)\big) = 0",
            IFCA_CLAIM_SOURCE + " (Option II, line 15/18 of IFCA; HypCluster)",
            "theta_2 <- 1/2 (\"LocalUpdate\"_1(0) + \"LocalUpdate\"_2(0)) = 0"),
        observed={"grid_(gamma,tau_loc)": grid, "T": T_IFCA, "max_abs_theta_deviation": max_dev, "failure_parts_all_true": failure,
                  "failed_parts": [k for k, v in parts.items() if not v],
                  "fc": {"init": inits, "tau": taus, "eta": FC_ETA, "T": FC_T, "x_T": _np(ftr.x[-1, :, :, 0]), "solved": repaired}},
        predicted={"theta_T": list(theta0), "assignments": [2, 2], "client_loss": 0.25, "fc_x_T": [-0.5, 0.5]},
        fit={"tolerance": STUCK_TOL},
        explanation=(
            f"For every gamma in {list(gammas)} and tau_loc in {list(local_steps)}, client 1's local model after tau_loc steps "
            "from 0 is -0.5(1 - (1 - 2 gamma)^tau_loc) and client 2's is the mirror image, so their average is exactly 0; "
            "HypCluster's pooled gradient at 0 is 0. The largest deviation of theta from (-1.5, 0) over all rounds is "
            f"{max(max_dev.values()):.1e}. Federated-Clustering on the same instance ends at (-0.5, 0.5)."),
        figure=FIGURE,
        arrays={**arrays, **fc_arrays(ftr, inits, taus, fc_eta)},
    )



# -- c06 -------------------------------------------------------------------------------------
C06_TITLE = "Federated-Clustering solves Example 2 for tau < 2 (Delta = 2, D = 0); tau >= 2 collapses"


@check("werner2023.c06", C06_TITLE, "counterexample", "reproduced", statements=("Example 2",))
def c06_fc_solves_example2(ctx: Context, *, ifca_fn=ifca, fc=federated_clustering) -> Result:
    """docs/papers/werner2023.md §6.1 claim 6: inits (0,0), (-1.5,0) (and (1.5,-1.5)); tau in {0.5, 1, 1.9}; eta = 0.25; M = 10;
    controls tau in {2, 2.5}; Delta = 2, D = 0 on a grid."""
    main = [(i, t) for i in FC_INITS for t in FC_TAUS]
    ctrl = [(i, t) for i in FC_INITS[:2] for t in FC_CONTROL_TAUS]
    grid = main + ctrl
    tr = run_fc(ctx, [g[0] for g in grid], [g[1] for g in grid], fc)
    xT = tr.x[-1, :, :, 0]
    solved = fc_solves(xT)
    repaired = bool(solved[: len(main)].all())
    collapsed = bool((xT[len(main):].abs() < FC_TOL).all())
    itr = run_ifca_grid(ctx, "I", (0.1,), ifca_fn=ifca_fn)
    failure = all(stuck_parts(itr).values())
    assumptions = [
        separation_assumption(ctx),
        Assumption("control tau >= 2: FC collapses both clients to 0", collapsed, float(xT[len(main):].abs().max()), "exact",
                   "the two gradients are exactly 2 apart, so an inclusive ball of radius >= 2 averages them"),
    ]
    verdict = apply_assumptions(counterexample_verdict(failure, repaired), assumptions)
    rounds = np.arange(0, FC_T + 1)
    series = []
    for r, (init, tau) in enumerate(grid):
        if init != FC_INITS[1] or tau not in (1.0, 2.0):
            continue
        for i in range(2):
            series.append(figspec.line(f"x_{i + 1},t, tau={tau:g}", rounds, _np(tr.x[:, r, i, 0]), "observed" if tau < 2 else "reference"))
    series.append(figspec.line("IFCA theta_2 (gamma=0.1)", rounds, _np(itr.theta[:, 0, 1, 0]), "reference"))
    return result_for(
        ctx, verdict=verdict,
        claim=Claim(
            "Federated-Clustering clusters by gradients: the two clients' gradients are 2 apart at every x, so with a "
            "ball radius tau < 2 each client averages only its own gradient and converges to its optimum (-0.5 and 0.5), "
            "from any initialisation; IFCA on the same instance stays stuck.",
            r"\|\nabla f_1(x)-\nabla f_2(x)\| = 2\ \forall x \Rightarrow x_T \to (-0.5,\,0.5)\ (\tau<2)",
            "werner2023 section 3.1.3 (Example 2 revisited), Assumption 5 (17)",
            "norm(nabla f_1(x) - nabla f_2(x)) = 2 forall x => x_T -> (-0.5, 0.5) (tau < 2)"),
        observed={"grid_(init,tau)": main, "x_T": _np(xT[: len(main)]), "solved": _np(solved[: len(main)]),
                  "controls_(init,tau)": ctrl, "controls_x_T": _np(xT[len(main):]), "T": FC_T, "eta": FC_ETA, "M": FC_M,
                  "ifca_theta_T": _np(itr.theta[-1, 0, :, 0]), "ifca_stuck": failure},
        predicted={"x_T": [-0.5, 0.5], "controls_x_T": [0.0, 0.0], "Delta": 2.0, "D": 0.0, "contraction_per_round": 1 - 2 * FC_ETA},
        fit={"tolerance": FC_TOL},
        explanation=(
            f"With eta = {FC_ETA} and a ball that holds only the client's own gradient, x <- x - 0.5(x - c_i): the distance "
            f"to the optimum halves each round, so after {FC_T} rounds all {len(main)} (init, tau < 2) runs are at (-0.5, 0.5) "
            "to 1e-6. At tau >= 2 the other client's gradient (exactly 2 away) enters the inclusive ball and both clients "
            "follow the average, collapsing to 0 as IFCA does."),
        assumptions=assumptions,
        figure=figspec.figure(figspec.panel("Example 2 from (-1.5, 0): FC with tau = 1 separates, tau = 2 collapses like IFCA", "round t", "x_i,t",
                                            series, xscale="linear", yscale="linear")),
        arrays={**fc_arrays(tr, [g[0] for g in grid], [g[1] for g in grid]), **ifca_arrays("ifca1", itr, [0.1], [1])},
    )

