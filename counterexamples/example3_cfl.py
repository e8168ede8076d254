"""Example 3 of werner2023 (Fig. 1(c)): CFL splits clients 2 and 3 with probability 1/2 and never
reunites them; Federated-Clustering keeps them together, but only with batch averaging.
Checks werner2023.c07-c08 (docs/papers/werner2023.md §4.3, 6.1 checks 7-8, A13).

g_1(x) = x (7), g_2(x) = x - 1/2 (8), g_3(x) = x - xi with xi ~ Bernoulli(1/2) (9). True clusters
{1} and {2, 3}. At any x in (0, 1/2), sign(g_1) = +, sign(g_2) = -, and sign(g_3) is + or - with
probability 1/2, so CFL's cosine bipartition is {1, 3} | {2} or {1} | {2, 3} with probability 1/2
each. Check c07 carries two errata of the paper's text (line ~137, Fig. 1(c)): the FedAvg optimum is 1/3
(not 1/4), and the wrong split is {1, 3} | {2} (not {1, 2} | {3}).
"""
from __future__ import annotations

import numpy as np
import torch

from analytic.papers.werner2023 import PAPER
from verify import figspec
from verify.algorithms.cfl import (
    agglomerative_bipartition,
    clustered_fl,
    cosine_similarity,
    optimal_bipartition,
)
from verify.algorithms.federated_clustering import federated_clustering
from verify.engine import Context
from verify.fit import (
    apply_assumptions,
    bootstrap_ci,
    counterexample_verdict,
    identity_verdict,
    proportion_ci,
)
from verify.problems.toys import Example3
from verify.registry import check, register_paper, result_for
from verify.result import Assumption, Claim, Finding, Result, erratum, remark

register_paper(PAPER)

P_TOL = 0.02
EVAL_POINTS = (1 / 3, 1 / 4)
CFL_T, CFL_ETA, CFL_WARMUP, CFL_EPS1, CFL_EPS2 = 60, 0.2, 40, 0.3, 0.2
FC_ETA, FC_M, FC_T, FC_INIT = 0.5, 10, 200, 0.25
OPT = (0.0, 0.5, 0.5)
FC_X_TOL, FRAC_MIN = 0.05, 0.95
FIGURE = {"draw": "counterexamples.figures:draw_example3"}
PARTITIONS = {"{1} | {2, 3}": (False, True, True), "{1, 3} | {2}": (False, True, False), "{1, 2} | {3}": (False, False, True)}


def _np(t: torch.Tensor) -> np.ndarray:
    return t.detach().cpu().numpy()


def partition_counts(side: torch.Tensor) -> dict[str, int]:
    """Counts of each bipartition (``side [R, 3]``, False = client 1's part) plus 'other'."""
    out, total = {}, 0
    for name, pat in PARTITIONS.items():
        k = int((side == side.new_tensor(pat)).all(-1).sum())
        out[name], total = k, total + k
    out["other"] = side.shape[0] - total
    return out


def gradient_draws(ctx: Context, x: float, n: int) -> torch.Tensor:
    """n independent draws of the three gradients at the common model x: ``[n, 3, 1]``."""
    X = torch.full((n, 3, 1), x, dtype=ctx.dtype, device=ctx.torch_device)
    return Example3().stochastic_grad(X, ctx.generator(f"cfl draws x={x:.6f}"))


def first_split(G: torch.Tensor, rule=optimal_bipartition) -> torch.Tensor:
    """CFL's first bipartition of all clients from gradients ``G [n, 3, d]``: ``side [n, 3]``."""
    members = torch.ones(G.shape[:2], dtype=torch.bool, device=G.device)
    return rule(cosine_similarity(G), members)


def separates_2_3(side: torch.Tensor) -> torch.Tensor:
    return side[..., 1] != side[..., 2]


def run_fc(ctx: Context, batch_sizes, taus, seeds: int, stream: str, fc=federated_clustering, eta: float = FC_ETA,
           x0: float = FC_INIT):
    """FC on Example 3 for each (|B|, tau) pair x ``seeds`` replicates (config-major order), every client from ``x0``."""
    B = torch.tensor([b for b in batch_sizes for _ in range(seeds)], dtype=ctx.dtype, device=ctx.torch_device)
    tau = torch.tensor([t for t in taus for _ in range(seeds)], dtype=ctx.dtype, device=ctx.torch_device)
    x0 = torch.full((B.shape[0], 3, 1), float(x0), dtype=ctx.dtype, device=ctx.torch_device)
    return fc(Example3(), x0, eta, FC_T, tau, steps=FC_M, batch_size=B, generator=ctx.generator(stream))


def ball_fractions(tr, configs: int, seeds: int) -> dict[str, torch.Tensor]:
    """Per (config, seed): fraction of rounds with client 2's ball = {2, 3}, with client 3's ball
    containing client 1, and the final |x_T - optimum| per client."""
    b = tr.ball  # [T, R, N, N]
    two_is_23 = (b[:, :, 1] == b.new_tensor([False, True, True])).all(-1)  # [T, R]
    three_has_1 = b[:, :, 2, 0]
    err = (tr.x[-1, :, :, 0] - tr.x.new_tensor(OPT)).abs()  # [R, 3]
    shape = (configs, seeds)
    return {"frac_ball2_is_23": two_is_23.double().mean(0).reshape(shape), "frac_ball3_has_1": three_has_1.double().mean(0).reshape(shape),
            "final_abs_error": err.reshape(configs, seeds, 3)}


def c07_finding(x_star: float, fedavg_mean, c13: dict, c14: dict, n: int, p_hat: dict) -> Finding:
    """The two misprints of Example 3 (line ~137 and Fig. 1(c)'s caption), one erratum with both parts in each field.

    (a) sum_j E g_j(x) = x + (x - 1/2) + (x - 1/2) = 3x - 1 vanishes at x* = 1/3, not at the printed 1/4.
    (b) In one dimension the cosine similarity of two non-zero gradients is the product of their signs; for x in
    (0, 1/2), sign g_1 = +, sign g_2 = -, sign g_3 = sign(x - xi), so the two partitions are {1} | {2, 3} (xi = 1) and
    {1, 3} | {2} (xi = 0); {1, 2} | {3} would need sign g_1 = sign g_2, which never happens there."""
    probs = "; ".join(f"{p[0]:.4f} at x = {k}" for k, p in p_hat.items())
    return erratum(
        "Example 3 (eqs. (7)-(9)) has two misprints: the FedAvg optimum is 1/3, not 1/4, and the wrong split CFL makes "
        "with probability 1/2 is {1, 3} | {2}, not {1, 2} | {3}. The paper's conclusion (clients 2 and 3 "
        "separated with "
        f"probability 1/2, never reunited) holds: p = {probs}.",
        paper_says=("Section 2.1, Example 3 (line ~137): 'The FedAvg optimum is x*_FedAvg = 1/4, at which the "
                    "clients' gradient "
                    "values are g_1(1/4) = 1/4, g_2(1/4) = -1/4 and g_3 = 1/4 w.p. 1/2. Based on this "
                    "computation, Clustered "
                    "Federated Learning partitions the client set into {1,2} and {3} w.p. 1/2'; Fig. 1(c)'s "
                    "caption: 'Clustered "
                    "FL averages gradients of clients {1} and {2} to 0, clustering them together ... the "
                    "algorithm partitions "
                    "the clients {1,2} and {3}'."),
        correction=("(a) The FedAvg optimum of Example 3 is x* = 1/3 (the root of sum_j E g_j(x) = 3x - 1). (b) "
                    "At any x in "
                    "(0, 1/2), in particular at 1/4 and 1/3, CFL's cosine bipartition is {1, 3} | {2} when xi = "
                    "0 and the correct "
                    "{1} | {2, 3} when xi = 1, each with probability 1/2; {1, 2} | {3} never occurs. Both "
                    "misprints leave the "
                    "example's point intact: clients 2 and 3 are separated with probability 1/2."),
        witness=(f"(a) Exact: at the printed 1/4, sum_j E g_j = 1/4 + (-1/4) + (1/4 - 1/2) = -1/4 != 0; the "
                 f"exact solve gives "
                 f"{x_star:.12f}. (b) At x = 1/4 with xi = 0 the gradients are (1/4, -1/4, 1/4): the only pair "
                 f"of equal sign is "
                 f"{{1, 3}}, so the bipartition is {{1, 3}} | {{2}}."),
        second_argument=(f"Measured: (a) CFL's FedAvg phase (rounds {CFL_WARMUP - 10}-{CFL_WARMUP}) hovers at "
                         f"{fedavg_mean[0]:.4f} (95% CI {fedavg_mean[1]:.4f} to {fedavg_mean[2]:.4f}), which "
                         f"holds 1/3 and "
                         f"excludes 1/4. (b) Over {n} draws the optimal cosine bipartition gave {{1, 3}} | {{2}} "
                         f"{c13['{1, 3} | {2}']} times at x = 1/3 and {c14['{1, 3} | {2}']} at x = 1/4, the correct "
                         f"{{1}} | {{2, 3}} {c13['{1} | {2, 3}']} and {c14['{1} | {2, 3}']} times, and {{1, 2}} "
                         f"| {{3}} "
                         f"{c13['{1, 2} | {3}']} and {c14['{1, 2} | {3}']} times."),
    )


# -- c07 -------------------------------------------------------------------------------------
C07_TITLE = "CFL separates clients 2 and 3 of Example 3 with probability 1/2 and never reunites them"


@check("werner2023.c07", C07_TITLE, "counterexample", "reproduced", statements=("Example 3",))
def c07_cfl_splits_2_and_3(ctx: Context, *, bipartition=optimal_bipartition, fc=federated_clustering, cfl_eta: float = CFL_ETA,
                           x0: float = 0.0, fc_batch: int = 64, fc_tau: float = 0.25, fc_eta: float = FC_ETA,
                           fc_x0: float = FC_INIT) -> Result:
    """docs/papers/werner2023.md §6.1 claim 7: 1e4 draws at x = 1/3 and 1/4; |p - 0.5| < 0.02; wrong split {1,3}|{2}; x* = 1/3.

    The settings are keyword arguments with the paper's values (the classroom demo varies them): CFL's step
    ``cfl_eta`` and start ``x0``; Federated-Clustering's batch ``fc_batch``, radius ``fc_tau``, step ``fc_eta`` and
    start ``fc_x0``."""
    n = ctx.pick(10_000, 100_000)
    rng = ctx.numpy_rng("bootstrap")
    draws, p_hat, counts, agree = {}, {}, {}, {}
    for x in EVAL_POINTS:
        G = gradient_draws(ctx, x, n)
        side = first_split(G, bipartition)
        key = f"{x:.4f}"
        p_hat[key] = proportion_ci(int(separates_2_3(side).sum()), n)
        counts[key] = partition_counts(side)
        agree[key] = float((first_split(G, agglomerative_bipartition) == first_split(G, optimal_bipartition)).all(-1).double().mean())
        draws[x] = separates_2_3(side)
    p_ok = all(abs(p[0] - 0.5) < P_TOL for p in p_hat.values())
    wrong_is_13_2 = all(c["{1, 2} | {3}"] == 0 and c["other"] == 0 and c["{1, 3} | {2}"] > 0 for c in counts.values())

    # the whole algorithm: FedAvg warm-up, split, recurse (paper's rule with K = 2; reference-code rule)
    R = ctx.pick(1000, 5000)
    x0 = torch.full((R, 1), float(x0), dtype=ctx.dtype, device=ctx.torch_device)
    planted = bipartition is not optimal_bipartition
    rules = {"planted rule": (bipartition, 2, 2)} if planted else {
        "optimal (K = 2 clusters)": ("optimal", 2, 2), "agglomerative (reference code)": ("agglomerative", None, 3)}
    runs = {name: clustered_fl(Example3(), x0, cfl_eta, CFL_T, rule=rule, eps1=CFL_EPS1, eps2=CFL_EPS2, warmup=CFL_WARMUP,
                               max_clusters=cap, min_split_size=min_size, generator=ctx.generator(f"cfl {name}"))
            for name, (rule, cap, min_size) in rules.items()}
    final_sep = {k: proportion_ci(int((tr.labels[-1][:, 1] != tr.labels[-1][:, 2]).sum()), R) for k, tr in runs.items()}
    cfl_fails = all(ci[1] > 0 for ci in final_sep.values())
    pre_split = next(iter(runs.values())).x[CFL_WARMUP - 10: CFL_WARMUP + 1, :, 0, 0]  # common model before any split
    fedavg_mean = bootstrap_ci(_np(pre_split.mean(0)), rng=rng)
    x_star = Example3().fedavg_optimum()
    v_opt, opt_info = identity_verdict(x_star, 1 / 3, rtol=1e-12)
    failure = p_ok and wrong_is_13_2 and cfl_fails

    seeds = ctx.reps(20, 100)
    ftr = run_fc(ctx, [fc_batch], [fc_tau], seeds, "fc |B|=64", fc, fc_eta, fc_x0)
    fr = ball_fractions(ftr, 1, seeds)
    frac = float(fr["frac_ball2_is_23"].mean())
    err_mean = fr["final_abs_error"].mean(1)[0]  # [3]
    repaired = frac >= FRAC_MIN and bool((err_mean < FC_X_TOL).all())
    assumptions = [Assumption("FedAvg optimum solves sum_j E g_j(x) = 0 at x = 1/3", v_opt.passed, x_star, "exact",
                              "identity check of the exact solve (Example 3, eqs. (7)-(9))")]
    verdict = apply_assumptions(counterexample_verdict(failure, repaired), assumptions)
    c13 = counts[f"{1 / 3:.4f}"]
    c14 = counts[f"{1 / 4:.4f}"]
    supported = bool(v_opt.passed and fedavg_mean[1] <= 1 / 3 <= fedavg_mean[2] and not fedavg_mean[1] <= 0.25 <= fedavg_mean[2]
                     and wrong_is_13_2)
    finding = c07_finding(x_star, fedavg_mean, c13, c14, n, p_hat) if supported else remark(
        f"Example 3: the measurement did not support both corrections here (FedAvg phase mean {fedavg_mean[0]:.4f}, "
        f"partition counts at x = 1/3: {c13}); the paper's text is not contradicted by this run.")
    sep_series = []
    for k, tr in runs.items():
        s = (tr.labels[:, :, 1] != tr.labels[:, :, 2]).double().mean(1)
        sep_series.append(figspec.line(f"CFL {k}: P(2 and 3 in different clusters)", np.arange(CFL_T + 1), _np(s), "observed"))
    return result_for(
        ctx, verdict=verdict,
        claim=Claim(
            "CFL bipartitions the clients by the cosine similarity of their gradients at the FedAvg optimum; client 3's "
            "stochastic gradient has the sign of client 1's with probability 1/2, so the first split separates clients 2 "
            "and 3 with probability 1/2, and CFL's recursion never reunites them. Federated-Clustering (with batch "
            "averaging) keeps {2, 3} together.",
            r"\Pr[\text{CFL separates 2 and 3}] = \tfrac12",
            "werner2023 section 2.1, Example 3, eqs. (7)-(9), Fig. 1(c)",
            "Pr[\"CFL separates 2 and 3\"] = 1/2"),
        observed={"draws": n, "p_separate_(p,lo,hi)": p_hat, "partition_counts": counts,
                  "agglomerative_agrees_with_optimal_(fraction_of_draws)": agree,
                  "cfl_runs": R, "cfl_final_separation_(p,lo,hi)": final_sep,
                  "cfl_fedavg_phase_mean_model_(mean,lo,hi)": fedavg_mean,
                  "fedavg_optimum_exact": x_star, "sum_expected_gradients_at_1/4": 3 * 0.25 - 1.0,
                  "fc": {"batch": fc_batch, "tau": fc_tau, "eta": fc_eta, "T": FC_T, "seeds": seeds, "frac_rounds_ball2_is_23": frac,
                         "mean_abs_error_x_T": _np(err_mean)}},
        predicted={"p_separate": 0.5, "tolerance": P_TOL, "wrong_split": "{1, 3} | {2}", "fedavg_optimum": 1 / 3,
                   "paper_fedavg_optimum": 0.25, "paper_wrong_split": "{1, 2} | {3}", "fc_frac_min": FRAC_MIN, "fc_x_T": list(OPT)},
        fit={"fedavg_identity": opt_info},
        explanation=(
            f"Over {n} draws of client 3's gradient the optimal cosine bipartition separated clients 2 and 3 with frequency "
            + ", ".join(f"{p[0]:.3f} (95% CI {p[1]:.3f} to {p[2]:.3f}) at x = {k}" for k, p in p_hat.items())
            + f". Running CFL itself ({R} runs: FedAvg from {float(x0[0, 0]):g}, split after round {CFL_WARMUP}) leaves 2 and 3 apart in "
            + ", ".join(f"{v[0]:.3f} of runs ({k})" for k, v in final_sep.items())
            + f". Federated-Clustering with batches of {fc_batch} puts client 2's ball at exactly {{2, 3}} in {frac:.3f} of rounds "
              f"and ends within {float(err_mean.max()):.3f} of (0, 1/2, 1/2)."),
        assumptions=assumptions,
        finding=finding,
        figure=FIGURE,
        arrays={
            "draws_separate_x_1_3": _np(draws[EVAL_POINTS[0]]), "draws_separate_x_1_4": _np(draws[EVAL_POINTS[1]]),
            "cfl_sep_by_round": np.stack([_np((tr.labels[:, :, 1] != tr.labels[:, :, 2]).double().mean(1)) for tr in runs.values()]),
            "cfl_x_sample": _np(next(iter(runs.values())).x[:, :8, :, 0]),
            "cfl_labels_sample": _np(next(iter(runs.values())).labels[:, :8]),
            "cfl_grads_sample": _np(next(iter(runs.values())).grads[:, :8, :, 0]),
            "partition_counts_x_1_3": np.asarray([c13[k] for k in PARTITIONS], float),
            "fc_x": _np(ftr.x[..., 0]), "fc_ball2_is_23": _np((ftr.ball[:, :, 1] == ftr.ball.new_tensor([False, True, True])).all(-1)),
        },
    )



# -- c08 -------------------------------------------------------------------------------------
def within_tau_probability(batch: int, tau: float) -> float:
    """P(|Binomial(B, 1/2)/B - 1/2| <= tau): client 3's batch gradient within tau of client 2's."""
    from scipy.stats import binom

    k = np.arange(batch + 1)
    return float(binom.pmf(k, batch, 0.5)[np.abs(k / batch - 0.5) <= tau].sum())


C08_TITLE = "Federated-Clustering needs batch averaging on Example 3: never {2, 3} at |B| = 1, >= 95% at |B| >= 16"
C08_GRID = [(1, 0.25), (1, 0.4), (1, 0.49), (4, 0.25), (4, 0.4), (16, 0.25), (16, 0.4), (64, 0.25), (64, 0.4), (64, 0.5)]


@check("werner2023.c08", C08_TITLE, "counterexample", "reproduced", statements=("Example 3", "Theorem 3.3"))
def c08_fc_needs_batching(ctx: Context, *, fc=federated_clustering) -> Result:
    """docs/papers/werner2023.md §6.1 claim 8: eta = 0.5, M = 10, init 0.25, T = 200; |B| in {1, 4, 16, 64}, tau in {0.25, 0.4}."""
    seeds = ctx.reps(20, 100)
    tr = run_fc(ctx, [b for b, _ in C08_GRID], [t for _, t in C08_GRID], seeds, "fc batch sweep", fc)
    fr = ball_fractions(tr, len(C08_GRID), seeds)
    frac = fr["frac_ball2_is_23"]  # [C, S]
    idx = {cfg: i for i, cfg in enumerate(C08_GRID)}
    b1 = [idx[c] for c in C08_GRID if c[0] == 1]
    big = [idx[c] for c in C08_GRID if c[0] >= 16 and c[1] < 0.5]
    b64 = [idx[c] for c in C08_GRID if c[0] == 64 and c[1] < 0.5]
    failure = bool((frac[b1] == 0).all())
    err = fr["final_abs_error"].mean(1)  # [C, 3] averaged over seeds
    # ball criterion for every |B| >= 16; final-model criterion where our reading (docs/papers/werner2023.md) simulation states it (|B| = 64)
    repaired = bool((frac[big].mean(1) >= FRAC_MIN).all() and (err[b64] < FC_X_TOL).all())
    off = [(C08_GRID[i], j + 1, float(err[i, j])) for i in big for j in range(3) if float(err[i, j]) >= FC_X_TOL]
    ctrl = idx[(64, 0.5)]
    assumptions = [Assumption("control tau = 1/2: client 1 (exactly 1/2 away) always enters client 2's ball", bool((frac[ctrl] == 0).all()),
                              float(frac[ctrl].mean()), "exact", "inclusive ball, |g_1 - g_2| = 1/2 at every x")]
    verdict = apply_assumptions(counterexample_verdict(failure, repaired), assumptions)
    rounds_b1 = int(frac[b1].numel() * FC_T)
    ci_b1 = proportion_ci(round(float(frac[b1].sum()) * FC_T), rounds_b1)
    mean_frac = {f"|B|={b}, tau={t:g}": float(frac[i].mean()) for i, (b, t) in enumerate(C08_GRID)}
    three_with_one = {f"|B|={b}, tau={t:g}": float(fr["frac_ball3_has_1"][i].mean()) for i, (b, t) in enumerate(C08_GRID)}
    err_d = {f"|B|={b}, tau={t:g}": _np(err[i]) for i, (b, t) in enumerate(C08_GRID)}
    finding = (
        f"Discrepancy (section 3.1.3, Example 3 revisited): the paper says Federated-Clustering avoids CFL's mistake on Example 3, but with |B| = 1 "
        f"client 2's ball was exactly {{2, 3}} in 0 of {rounds_b1} rounds (95% CI 0 to {ci_b1[2]:.1e}) for tau in {{0.25, 0.4, 0.49}}: "
        f"clients 1 and 3 are both exactly 1/2 from client 2's gradient at every x (Delta = sigma = 1/2, so Thm 3.3's "
        f"Delta >~ sigma/delta_i fails), and client 3's ball contained client 1 in "
        f"{three_with_one['|B|=1, tau=0.25']:.2f} of rounds. Batch averaging repairs it: |B| = 4 gives "
        f"{mean_frac['|B|=4, tau=0.25']:.2f}/{mean_frac['|B|=4, tau=0.4']:.2f}, |B| = 16 gives "
        f"{mean_frac['|B|=16, tau=0.25']:.3f}/{mean_frac['|B|=16, tau=0.4']:.3f} and |B| = 64 gives "
        f"{mean_frac['|B|=64, tau=0.25']:.3f}/{mean_frac['|B|=64, tau=0.4']:.3f} (tau = 0.25/0.4), as Thm 3.3's batch "
        f"requirement predicts."
        + ("" if not off else " The final-model tolerance 0.05 is missed at "
           + "; ".join(f"|B|={c[0]}, tau={c[1]:g} by client {j} ({e:.3f})" for c, j, e in off)
           + ": there client 3's batch mean lands within tau of client 1's gradient often enough to pull client 1 off 0, "
             "so that criterion is applied at |B| = 64 only, where an earlier simulation established it."))
    p_close = within_tau_probability(16, 0.25)
    rng = ctx.numpy_rng("bootstrap")
    series = []
    for t in (0.25, 0.4):
        ids = [idx[(b, t)] for b in (1, 4, 16, 64)]
        series.append(figspec.observed(f"tau = {t:g}", [1, 4, 16, 64], _np(frac[ids].T), rng=rng))
    series.append(figspec.line("95% of rounds", [1, 4, 16, 64], FRAC_MIN, "bound"))
    return result_for(
        ctx, verdict=verdict,
        claim=Claim(
            "On Example 3 Federated-Clustering with single-sample gradients (|B| = 1) cannot group clients 2 and 3: from "
            "client 2's view clients 1 and 3 are equidistant (1/2) at every model. Averaging client 3's gradient over a "
            "batch (variance 1/(4|B|), Lemma 7) restores the separation, in line with Theorem 3.3's batch requirement.",
            r"|B|=1:\ \|g_1-g_2\| = \|g_3-g_2\| = \tfrac12;\quad |B|\ge 16:\ \text{ball}_2=\{2,3\}",
            "werner2023 Theorem 3.3 and Lemma 7 (batch |B|), section 3.1.3 (Example 3 revisited)",
            "abs(B) = 1: norm(g_1 - g_2) = norm(g_3 - g_2) = 1/2"),
        observed={"grid_(B,tau)": C08_GRID, "seeds": seeds, "T": FC_T, "eta": FC_ETA, "M": FC_M,
                  "mean_frac_rounds_ball2_is_23": mean_frac, "mean_frac_rounds_ball3_contains_1": three_with_one,
                  "mean_abs_error_x_T_per_client": err_d, "B1_rounds_with_ball2_23_(p,lo,hi)": ci_b1},
        predicted={"B1_frac": 0.0, "B>=16_frac_min": FRAC_MIN, "x_T_at_B64": list(OPT), "x_tol": FC_X_TOL,
                   "g3_batch_std": {str(b): 0.5 / np.sqrt(b) for b in (1, 4, 16, 64)},
                   "P(|g3 - g2| <= 1/4) at |B|=16": p_close},
        explanation=(
            f"With |B| = 1 the ball never equals {{2, 3}} (client 2 stays alone, and client 3 joins client 1 whenever its "
            f"draw is xi = 0). With |B| = 16 client 3's batch gradient is within 1/4 of client 2's with probability "
            f"{p_close:.3f} (binomial) and the ball is {{2, 3}} in {mean_frac['|B|=16, tau=0.25']:.3f} of rounds; at |B| = 64 the final models "
            f"are within {float(err[idx[(64, 0.25)]].max()):.3f} of (0, 1/2, 1/2) on average."),
        assumptions=assumptions,
        finding=finding,
        figure=figspec.figure(figspec.panel("Example 3: FC's ball for client 2 equals {2, 3}", "batch size |B|",
                                            "fraction of rounds", series, xscale="log", yscale="linear")),
        arrays={"frac_ball2_is_23": _np(frac), "frac_ball3_has_1": _np(fr["frac_ball3_has_1"]),
                "final_abs_error": _np(fr["final_abs_error"]), "grid_batch": np.asarray([b for b, _ in C08_GRID], float),
                "grid_tau": np.asarray([t for _, t in C08_GRID], float)},
    )

