"""buttaci2024 x20: Table 1 / Figs. 2-3 reproduced on a real dataset: the similarity-graph perturbed local steps
(Algorithm 1) against FedAvg with the convex model on an imbalanced (Dirichlet class, log-normal size) partition.

Our reading: docs/papers/buttaci2024.md §2.2-2.5 (the algorithm and its experimental settings), §5 (Table 1, Figs. 2-3)
and §7 items 14-15 (the readings of E and of the partition parameters). The data come from verify/data
(scikit-learn's bundled 8x8 digits by default; MNIST with ``fedverify run --data PATH``).
"""
from __future__ import annotations

import numpy as np
import sympy as sp
import torch

from analytic import validate
from analytic.bounds import Bound
from analytic.papers import buttaci2024 as B
from verify import figspec
from verify.problems.similarity_graph import weights_from_data
from verify.data import datasets, partition
from verify.data.softmax import softmax_rows, with_bias
from verify.engine import Context
from verify.fit import bound_verdict, counterexample_verdict
from verify.problems.buttaci2024_partition import partition as class_counts_partition
from verify.registry import check, register_paper, result_for
from verify.result import Claim, Result, remark
from verify.strength import aside

register_paper(B.PAPER)

#: Table 1's imbalanced convex columns read as a ratio of rounds to reach the threshold: rounds(FedAvg) /
#: rounds(ours, beta) >= 1 (the printed speedups are 1.0-1.6x; "Table 1 shows that diminishing beta positively and
#: consistently affects convergence on unseen data")
TABLE1_SPEEDUP = Bound(
    "rounds(FedAvg) / rounds(ours) >= 1", sp.Integer(1), "lower",
    "Section 6.1: 'Table 1 shows that diminishing beta positively and consistently affects convergence on unseen data. "
    "Indeed, having beta = 0.5 quite significantly hastens convergence by 30 rounds and yields a 1.6 times speedup "
    "compared with FedAvg' (imbalanced FEMNIST, convex)",
    "buttaci2024, Section 6.1, Table 1 and Figs. 2-3", hidden_constant=False, typst="1")


def standardize(x_train: np.ndarray, x_test: np.ndarray) -> tuple:
    """Per-pixel standardisation with the training statistics (§6: z[m] = (x[m] - mu[m]) / sigma[m]); a constant
    pixel (sigma = 0, e.g. the digits' border) stays 0."""
    mu, sd = x_train.mean(0), x_train.std(0)
    sd = np.where(sd > 0, sd, 1.0)
    return (x_train - mu) / sd, (x_test - mu) / sd


def _clients(x, y, C: int, K: int, a: float, b: float, rng, R: int, ctx: Context):
    """Padded client data of an (a, b)-imbalanced partition (Appendix C.1): features with bias [R, C, n, p],
    labels [R, C, n], mask [R, C, n], and the number of reused draws."""
    counts = class_counts_partition(len(y), C, K, a, b, rng, R)
    # the padded layout holds R C max_i N_i samples, three methods' logits each: refuse what cannot fit
    validate.memory("replicates", int(R) * C * int(counts.sum(-1).max()) * (x.shape[1] + 1 + 3 * K),
                    what="the padded client data")
    idx, mask, reused = partition.indices_from_counts(y, counts, rng)
    X = with_bias(ctx.tensor(partition.gather(x, idx)))
    return X, torch.as_tensor(y[np.maximum(idx, 0)], device=ctx.torch_device), torch.as_tensor(mask, device=ctx.torch_device), reused


def size_buckets(sizes: np.ndarray, most: int = 4) -> list[tuple[np.ndarray, int]]:
    """Clients grouped by their number of samples so that each group is padded only to its own largest client:
    (flat client indices, padded length) per group, at most ``most`` groups, the cut points minimising the padded
    total sum_g |g| max_{i in g} N_i (dynamic programme over the clients sorted by size). Empty clients are left out
    (their data term is 0)."""
    flat = np.asarray(sizes, dtype=np.int64).reshape(-1)
    order = np.argsort(flat, kind="stable")
    order = order[flat[order] > 0]
    s, n = flat[order], len(order)
    if n == 0:
        return []
    # cost[j][i]: least padded total of the first i sorted clients in j groups; each group ends at its largest
    cost = np.full((most + 1, n + 1), np.inf)
    cost[0, 0] = 0.0
    cut = np.zeros((most + 1, n + 1), dtype=np.int64)
    for j in range(1, most + 1):
        for i in range(1, n + 1):
            starts = np.arange(i)
            c = cost[j - 1, :i] + (i - starts) * s[i - 1]
            cut[j, i] = int(np.argmin(c))
            cost[j, i] = c[cut[j, i]]
    j = int(np.argmin(cost[:, n]))
    groups, i = [], n
    while i > 0:
        a = cut[j, i]
        groups.append((order[a:i], int(s[i - 1])))
        i, j = a, j - 1
    return groups[::-1]


def perturbed_rounds(X, y, mask, Xt, yt, mt, P, Q, betas, *, T: int, E: int, gamma: float, lam: float,
                     return_models: bool = False):
    """Algorithm 1 (§2.2-2.3) for every beta in ``betas`` at once (beta = 1 is FedAvg with the same degree weights,
    as in the paper's experiments): test accuracy of wbar_t, ``[T + 1, len(betas), R]``.

    Each round: u_t^i = sum_n (p_in / p_i) w^n_{t-1,E} (``Q`` [R, C, C]); every client starts at wbar_t and takes
    E local steps w <- w - gamma grad f_i(beta w + (1 - beta) u^i) (full local batch: the experiments' E epochs of
    mini-batches of 256 are E full-batch steps when N_i <= 256); then wbar_{t+1} = sum_i p_i w^i_E (``P`` [R, C]).
    Test accuracy is the sample-weighted accuracy over the testing clients (§6, "Validation metrics").
    ``return_models``: also the wbar_t, ``[T + 1, len(betas), R, p, c]``."""
    R, C, n, p = X.shape
    c = int(max(int(y.max()), int(yt.max()))) + 1
    M = len(betas)
    dt = X.dtype
    beta = torch.as_tensor(betas, dtype=dt, device=X.device).view(M, 1, 1, 1, 1)
    wbar = torch.zeros(M, R, p, c, dtype=dt, device=X.device)
    last = torch.zeros(M, R, C, p, c, dtype=dt, device=X.device)  # w^n_{-1,E} = wbar_00 = 0: u_0 = 0
    # the method axis M rides in the products' free dimensions (explicit einsums), so X is never copied M times
    Y = torch.nn.functional.one_hot(y.long(), c).to(dt)  # [R, C, n, c]
    weight = (mask.to(dt) / mask.sum(-1, keepdim=True).clamp_min(1).to(dt))[..., None]  # 1/N_i on real samples

    # padded samples have weight 0: each client's data term sums over its real samples only, by size groups
    groups = [(torch.as_tensor(ix, device=X.device), nb) for ix, nb in size_buckets(mask.sum(-1).cpu().numpy())]
    parts = [(ix, X.reshape(R * C, n, p)[ix, :nb], Y.reshape(R * C, n, c)[ix, :nb],
              weight.reshape(R * C, n, 1)[ix, :nb]) for ix, nb in groups]

    def grad(W):  # grad f_i at each client's own point W [M, R, C, p, c]: mean cross-entropy + (lam/2)||W||^2
        Wf = W.reshape(M, R * C, p, c)
        data = torch.zeros_like(Wf)
        for ix, Xg, Yg, wg in parts:
            Wg = Wf[:, ix]
            E = softmax_rows(torch.einsum("gnp,mgpk->mgnk", Xg, Wg)) - Yg
            data[:, ix] = torch.einsum("gnp,mgnk->mgpk", Xg, E * wg)
        return data.view(M, R, C, p, c) + lam * W

    def acc(wb):  # sample-weighted accuracy over the testing clients [M, R]
        hit = torch.einsum("rcnp,mrpk->mrcnk", Xt, wb).argmax(-1) == yt
        return (hit & mt).sum((-1, -2)).to(dt) / (mt.sum((-1, -2)).to(dt))

    out, models = [acc(wbar)], [wbar]
    for _ in range(T):
        u = torch.einsum("rij,mrjpc->mripc", Q, last)
        w = wbar[:, :, None].expand(M, R, C, p, c).clone()
        for _ in range(E):
            w -= gamma * grad(beta * w + (1 - beta) * u)
        wbar = torch.einsum("rc,mrcpk->mrpk", P, w)
        last = w
        out.append(acc(wbar))
        models.append(wbar)
    return (torch.stack(out), torch.stack(models)) if return_models else torch.stack(out)


def rounds_to(curve: np.ndarray, c: float) -> np.ndarray:
    """The smallest t with accuracy >= c along axis 0 of ``curve [T + 1, ...]`` (T + 1 when never reached: the run
    is censored at T and the ratio is then a bound, reported)."""
    hit = curve >= c
    return np.where(hit.any(0), hit.argmax(0), curve.shape[0]).astype(float)


@check("buttaci2024.x20", "Table 1 on real data: on an imbalanced partition the perturbed method (beta = 0.5, 0.7) "
       "reaches FedAvg's accuracy threshold in fewer rounds than FedAvg (digits 8x8 in place of FEMNIST)", "bound",
       "not_reproduced",
       no_control="the claim is itself a comparison against FedAvg, the same Algorithm 1 without the perturbation "
                  "(beta = 1), run in one batch on the same partitions, graph and rounds",
       statements=("Table 1", "Fig. 2"))
def x20_table1(ctx: Context, *, theory: Bound = TABLE1_SPEEDUP, betas=(0.5, 0.7), clients: int | None = None,
               a_imbalanced: float = 10.0, b_imbalanced: float = 1.0, E: int = 10, gamma: float | None = None,
               lam: float = 1e-4, T: int | None = None, threshold_share: float = 0.75 / 0.802) -> Result:
    """Table 1, convex model, imbalanced partition (Appendix C.1: class proportions Dir((1/a) 1_K) with a = 10 as
    FEMNIST's, log-normal sizes with b = 1; docs/papers/buttaci2024.md §7 item 15's reading): rounds until the test accuracy of wbar_t reaches
    the threshold, for FedAvg and for Algorithm 1 at beta in ``betas``. The claim "diminishing beta positively and
    consistently affects convergence on unseen data" (printed speedups 1.0-1.6x in the imbalanced convex columns) is
    read as rounds(FedAvg)/rounds(beta) >= 1 (``theory``) for each beta, with a bootstrap CI over R replicates
    (independent partitions; the paper runs seed 0 once). Reproduced when that bound holds (every CI at or above 1),
    the mean ratio is above 1 for each beta ("fewer rounds": a tie is no speedup) and every method reached the
    threshold within T rounds (the measurement is not censored); otherwise not reproduced. The threshold is the paper's, relative to FedAvg's final accuracy: c = 0.75 on FEMNIST where FedAvg
    ends at 80.2%, so c = (0.75/0.802) x FedAvg's final accuracy.

    Setting as the paper's where it can be: training and testing clients from an 80:20 split, the mutual-similarity
    graph of Definitions 1-2 (uncentred PCA messages of the standardised features) giving the aggregation weights p_i
    and the neighbour weights (FedAvg uses the same "Adjacency" weights), multinomial logistic regression with
    lambda = 1e-4 on every weight (the bias too), E = 10 local epochs, per-pixel standardisation. Substitutions,
    stated in the Result: digits 8x8 in place of FEMNIST; C = 20 clients at quick fidelity (50 full; 100 as the paper
    on MNIST) so that a client holds tens of samples; with N_i <= 256 an epoch is one full-batch step, so a round has
    10 local steps where FEMNIST's has about 120, and gamma = 1.2e-2 keeps the paper's gamma times steps per round
    (1e-3 x 120); T = quick 20, full 100 rounds.

    Expected not reproduced, from the algorithm: for a fixed u the perturbed step w <- w - gamma grad f_i(beta w +
    (1 - beta) u) is, to first order in the distance between w and u, FedAvg's step at the shorter length beta gamma
    plus a pull towards u, the neighbours' models of the previous round; u differs from the round's start only by one
    round's progress, O(gamma E L), so the pull is second order in gamma E L while the shortening is first order. In
    the regime of the paper's step (gamma times steps per round about 0.1) the perturbation therefore cannot make a
    round go further than FedAvg's by more than a second-order amount, and Table 1 itself prints 1.0x in half of its
    imbalanced cells (beta = 0.9 everywhere, CIFAR10 at beta = 0.7 nonconvex). Not an erratum: the paper's datasets are
    larger and its rounds longer (about 120 local steps), where client drift, which the pull counters, is larger; what
    would decide the paper's own claim is its FEMNIST setting (50 vs 80 rounds gives the resolution a first-passage
    count needs), run with ``--data`` at full fidelity.
    """
    ds = datasets.load(ctx.data)
    on_mnist = ds.name != "digits"
    gamma = gamma if gamma is not None else 1.2e-2
    T = T or ctx.pick(20, 100)
    R = ctx.reps(5, 20)
    clients = clients or (100 if on_mnist else ctx.pick(20, 50))
    xtr, xte = standardize(ds.x_train, ds.x_test)
    rng = ctx.numpy_rng("partition")
    all_betas = tuple(betas) + (1.0,)
    curves, reused, sizes = {}, 0, {}
    for setting, (a, b) in (("imbalanced", (a_imbalanced, b_imbalanced)),):
        X, y, mask, r1 = _clients(xtr, ds.y_train, clients, ds.classes, a, b, rng, R, ctx)
        Xt, yt, mt, r2 = _clients(xte, ds.y_test, clients, ds.classes, a, b, rng, R, ctx)
        reused += r1 + r2
        sizes[setting] = mask.sum(-1).to(torch.float64)
        _, _, _, wts = weights_from_data(X[..., :-1], mask)
        curves[setting] = perturbed_rounds(X, y, mask, Xt, yt, mt, wts.p, wts.neighbour, all_betas, T=T, E=E,
                                           gamma=gamma, lam=lam).cpu().numpy()  # [T+1, M, R]
    # the threshold as the paper sets it relative to FedAvg's final accuracy (FEMNIST imbalanced convex: c = 0.75 for
    # a final 80.2%), per replicate
    thr = {s: threshold_share * cv[-1, -1] for s, cv in curves.items()}  # [R]
    threshold = float(np.mean(thr["imbalanced"]))
    rounds = {s: np.maximum(rounds_to(cv, thr[s]), 1.0) for s, cv in curves.items()}  # [M, R]; round 0 counts as 1
    Y = np.stack([rounds["imbalanced"][-1] / rounds["imbalanced"][i] for i in range(len(betas))], 1)
    brng = ctx.numpy_rng("bootstrap")
    v_speed, info = bound_verdict(Y, theory, rng=brng)
    uncensored = bool((rounds["imbalanced"] <= T).all())
    # "fewer rounds than FedAvg": a tie in every replicate (every method first past the threshold in the same round, a
    # ratio of exactly 1 with no spread) satisfies ">= 1" but is no speedup; seen at seed 4 (all at round 5)
    fewer = bool(np.all(Y.mean(0) > 1.0))
    verdict = counterexample_verdict(v_speed.passed and fewer, uncensored)
    with aside():  # a finer measure beside it (reported): mean test accuracy over rounds 1..T, ratio to FedAvg's
        Ya = np.stack([curves["imbalanced"][1:, i].mean(0) / curves["imbalanced"][1:, -1].mean(0)
                       for i in range(len(betas))], 1)
        _, info_a = bound_verdict(Ya, theory, rng=brng)
    censored = {s: int((r > T).sum()) for s, r in rounds.items()}
    final = {s: {f"beta={bb:g}" if bb < 1 else "FedAvg": float(curves[s][-1, i].mean()) for i, bb in enumerate(all_betas)}
             for s in curves}
    mean_rounds = {s: {f"beta={bb:g}" if bb < 1 else "FedAvg": float(rounds[s][i].mean()) for i, bb in enumerate(all_betas)}
                   for s in rounds}
    words = "; ".join(f"{s}: " + ", ".join(f"{k} {v:.1f} rounds (final {100 * final[s][k]:.1f}%)" for k, v in mean_rounds[s].items())
                      for s in rounds)
    subst = (f"{ds.describe()}; " + ("the paper's MNIST in place of FEMNIST" if on_mnist else "digits 8x8 in place of FEMNIST")
             + f"; C = {clients} training and {clients} testing clients (median "
             f"{float(sizes['imbalanced'].median()):.0f} samples each, imbalanced a = {a_imbalanced:g}, b = {b_imbalanced:g}; "
             f"{reused} draws reused a sample); E = {E} full-batch local steps, gamma = {gamma:g} (the paper's 1e-3 x 120 "
             f"steps per round spread over {E}), lambda = {lam:g}, T = {T}, threshold {threshold:g}; {R} replicates")
    return result_for(
        ctx,
        Claim("Section 6.1 and Table 1 (convex, imbalanced): 'Table 1 shows that diminishing beta positively and "
              "consistently affects convergence on unseen data. Indeed, having beta = 0.5 quite significantly hastens "
              "convergence by 30 rounds and yields a 1.6 times speedup compared with FedAvg.' Reproduced here on "
              + ("MNIST" if on_mnist else "scikit-learn's 8x8 digits in place of FEMNIST")
              + ": rounds(FedAvg)/rounds(beta) >= 1 for beta = " + ", ".join(f"{bb:g}" for bb in betas)
              + f", rounds = first round with test accuracy >= {threshold:g}.",
              r"\mathrm{rounds}(\mathrm{FedAvg})/\mathrm{rounds}(\beta)\ge 1",
              "buttaci2024, Section 6.1, Table 1, Figs. 2-3",
              "\"rounds\"(\"FedAvg\") \\/ \"rounds\"(beta) >= 1"),
        verdict,
        observed={"rounds_mean": mean_rounds, "final_accuracy": final,
                  "speedup_imbalanced": {f"beta={bb:g}": [float(info["mean"][i]), float(info["ci_lo"][i]),
                                                          float(info["ci_hi"][i])] for i, bb in enumerate(betas)},
                  "mean_accuracy_ratio": {f"beta={bb:g}": [float(info_a["mean"][i]), float(info_a["ci_lo"][i]),
                                                           float(info_a["ci_hi"][i])] for i, bb in enumerate(betas)},
                  "runs_censored_at_T": censored, "dataset": ds.describe(), "replicates": R, "substitution": subst},
        predicted={"speedup_at_least": 1.0, "paper_table_1_convex_imbalanced_speedup": {
            "FEMNIST": {"beta=0.9": 1.0, "beta=0.7": 1.2, "beta=0.5": 1.6},
            "CIFAR10": {"beta=0.9": 1.0, "beta=0.7": 1.1, "beta=0.5": 1.3}}},
        fit={"speedup": {k: (v.tolist() if isinstance(v, np.ndarray) else v) for k, v in info.items()},
             "mean_accuracy_ratio": {k: (v.tolist() if isinstance(v, np.ndarray) else v) for k, v in info_a.items()}},
        explanation=(("Table 1's speedup is reproduced on this data. " if verdict.passed else
                      "Table 1's speedup is not reproduced on this data" + (" (some run never reached the threshold)"
                                                                            if not uncensored else "") + ". ")
                     + f"Rounds to {100 * threshold:.0f}% test accuracy, mean over {R} replicates: {words}. Imbalanced speedup "
                     + ", ".join(f"beta = {bb:g}: {info['mean'][i]:.2f} (CI {info['ci_lo'][i]:.2f} to {info['ci_hi'][i]:.2f})"
                                 for i, bb in enumerate(betas))
                     + "; mean accuracy over the rounds relative to FedAvg's (reported): "
                     + ", ".join(f"beta = {bb:g}: {info_a['mean'][i]:.4f} (CI {info_a['ci_lo'][i]:.4f} to "
                                 f"{info_a['ci_hi'][i]:.4f})" for i, bb in enumerate(betas))
                     + f". Runs that never reached the threshold (counted as T + 1): {censored}. Substitution: {subst}."),
        finding=remark(("Reproduced" if verdict.passed else "Not reproduced (a failed reproduction on other data, not an "
                        "erratum)") + f" on {'MNIST' if on_mnist else 'digits 8x8 (not FEMNIST)'}: {words}. {subst}."),
        figure=figspec.figure(
            figspec.panel("Test accuracy of wbar_t, imbalanced, " + ("MNIST" if on_mnist else "digits 8x8 (for FEMNIST)"),
                          "round t", "accuracy",
                          [figspec.observed("FedAvg" if bb == 1 else rf"$\beta={bb:g}$", np.arange(T + 1),
                                            curves["imbalanced"][:, i].T, rng=ctx.numpy_rng("figure"))
                           for i, bb in enumerate(all_betas)]
                          + [figspec.line(f"threshold {threshold:g}", np.arange(T + 1), threshold, "reference")],
                          xscale="linear", yscale="linear"),
            figspec.panel("Speedup rounds(FedAvg)/rounds(beta)", r"$\beta$", "speedup",
                          [figspec.observed("imbalanced", list(betas), Y, rng=ctx.numpy_rng("figure")),
                           figspec.line("Table 1: speedup 1", list(betas), 1.0, "bound")],
                          xscale="linear", yscale="linear")),
        arrays={"speedup_imbalanced": Y, "mean_accuracy_ratio": Ya},
    )
