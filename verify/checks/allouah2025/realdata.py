"""allouah2025 x20: Fig. 2 (§5.2, App. D.2) reproduced on a real dataset: CafCor's aggregator CAF against the
standard robust aggregations under the sign-flipping and label-flipping attacks, Dirichlet-heterogeneous workers.

Our reading: docs/papers/allouah2025.md §5.1 (common setup), §5.3 (Experiment 2). The data come from verify/data
(scikit-learn's bundled 8x8 digits by default; MNIST with ``fedverify run --data PATH``).
"""
from __future__ import annotations

import numpy as np
import sympy as sp
import torch

from analytic.bounds import Bound
from analytic.papers import allouah2025 as A
from verify import figspec
from verify.aggregators import AGGREGATORS
from verify.algorithms.cafcor import clip
from verify.attacks import ATTACKS
from verify.data import datasets, partition
from verify.data.softmax import softmax_rows, with_bias
from verify.engine import Context
from verify.fit import bound_verdict
from verify.problems.allouah2025_classification import SoftmaxWorkers, flipped
from verify.problems.allouah2025_quadratic import sample_without_replacement
from verify.registry import check, register_paper, result_for
from verify.result import Claim, Result, remark
from verify.strength import aside

register_paper(A.PAPER)

#: Fig. 2's ordering as a ratio of final test accuracies: acc(CAF) / acc(other aggregator) >= 1
FIG2_ORDER = Bound(
    "acc(CAF) / acc(aggregator) >= 1", sp.Integer(1), "lower",
    "Section 5.2: 'Figure 2 demonstrates the clear superiority of CafCor (and CAF) over competing aggregations across "
    "all configurations' (CWTM, CWMED, GM, MK, Meamed; SF and LF attacks)",
    "allouah2025, Section 5.2, Figure 2 (App. D.2, Figs. 7-12)", hidden_constant=False, typst="1")
#: the competing aggregations of §5.2, in the paper's order
COMPETITORS = ("cwtm", "cwmed", "gm", "multikrum", "meamed")
#: the authors' library (ByzFL, which the paper's setup matches: docs/papers/allouah2025.md §5.1) runs GM as 3 smoothed Weiszfeld iterations
#: from 0 with nu = 0.1 (byzfl.GeometricMedian(nu=0.1, T=3)); the other aggregators take no options
BYZFL_OPTIONS = {"gm": {"iters": 3, "eps": 0.1, "start": "zero"}}
NAMES = {"caf": "CAF", "cwtm": "CWTM", "cwmed": "CWMED", "gm": "GM", "multikrum": "MK", "meamed": "Meamed",
         "mean": "mean (DSGD)"}
ATTACK_NAMES = {"sf": "SF", "lf": "LF"}


def algorithm1(prob: SoftmaxWorkers, configs, *, f: int, T: int, gamma: float, beta: float, C: float, batch_size: int,
               generator: torch.Generator, aggregator_options: dict | None = None) -> torch.Tensor:
    """Algorithm 1 without privacy noise for several (attack, aggregator) configurations at once: final models
    ``[A, R, K p]`` from theta_0 = 0. Step for step :func:`verify.algorithms.cafcor.cafcor` with sigma_cor =
    sigma_ind = 0 (tests/verify/test_realdata.py checks the two agree): at t = 0 the honest workers send 0;
    from t = 1 each sends m_t = beta m_{t-1} + (1 - beta) Clip(g_t; C), g_t its minibatch gradient; the f
    Byzantines send attack(m_t) (LF: the mean of the honest workers' flipped-label gradients on their batches);
    theta <- theta - gamma Agg. All configurations share the minibatches (paired), and their gradients come from
    one batched product; the loop over configurations only calls each aggregator. Attack None: no Byzantine."""
    A, (R, h, m, p), K = len(configs), prob.features.shape, prob.n_classes
    dt, dev = prob.features.dtype, prob.features.device
    theta = torch.zeros(A, R, K, p, dtype=dt, device=dev)
    M = torch.zeros(A, R, h, K * p, dtype=dt, device=dev)
    opts = aggregator_options or {}
    for t in range(T):
        idx = sample_without_replacement(generator, (R, h), m, batch_size, dev) if batch_size < m else None
        Ab = prob.features if idx is None else torch.gather(prob.features, 2, idx[..., None].expand(-1, -1, -1, p))
        yb = prob.labels if idx is None else torch.gather(prob.labels, 2, idx)
        P = softmax_rows(torch.einsum("arkp,rhbp->arhbk", theta, Ab))
        E = P - torch.nn.functional.one_hot(yb, K).to(dt)
        g = torch.einsum("arhbk,rhbp->arhkp", E, Ab).reshape(A, R, h, K * p) / Ab.shape[2]
        if t >= 1:
            M = beta * M + (1.0 - beta) * clip(g, C)[0]
        agg = torch.empty(A, R, K * p, dtype=dt, device=dev)
        for i, (attack, name) in enumerate(configs):
            if attack is None:
                X = M[i]
            else:
                ctx_lf = {}
                if attack == "lf":
                    Ef = P[i] - torch.nn.functional.one_hot(flipped(yb, K), K).to(dt)
                    ctx_lf["flipped_gradients"] = torch.einsum("rhbk,rhbp->rhkp", Ef, Ab).reshape(R, h, K * p) / Ab.shape[2]
                X = torch.cat([M[i], ATTACKS[attack](M[i], f, generator=generator, **ctx_lf)], 1)
            agg[i] = AGGREGATORS[name](X, f if attack is not None else 0, **opts.get(name, {}))
        theta = theta - gamma * agg.reshape(A, R, K, p)
    return theta.reshape(A, R, K * p)


def _test_accuracy(theta: torch.Tensor, Xt: torch.Tensor, yt: torch.Tensor, classes: int) -> np.ndarray:
    """Accuracy [R] of the global models theta [R, K p] on the test set (Xt [n, p] with bias, yt [n])."""
    W = theta.reshape(theta.shape[0], classes, -1)
    return ((torch.einsum("rkp,np->rnk", W, Xt).argmax(-1) == yt).to(theta.dtype).mean(-1)).cpu().numpy()


@check("allouah2025.x20", "Fig. 2 on real data: CAF beats CWTM, CWMED, GM, MK and Meamed under SF and LF with Dirichlet "
       "heterogeneity (digits 8x8 in place of MNIST)", "bound", "holds",
       no_control="the claim is itself a comparison: CAF against the five competing aggregations in one harness on the "
                  "same data, minibatches and attacks (the competitors are its baselines); the plain mean, the aggregation "
                  "without any filter, runs beside them as context: SF and LF with f = 5 of 15 do not break it (SF sends "
                  "-mbar from 5 workers, so the mean is mbar/3: a shorter step), so it cannot serve as a control that must fail",
       statements=("Fig. 2",))
def x20_fig2(ctx: Context, *, theory: Bound = FIG2_ORDER, f: int = 5, honest: int = 10, alpha: float = 1.0,
             per_worker: int | None = None, batch_size: int | None = None, C: float = 5.0, T: int | None = None,
             gamma: float | None = None, beta: float = 0.85, attacks=("sf", "lf"), competitors=COMPETITORS,
             aggregator_options: dict | None = None) -> Result:
    """Fig. 2 (a)-(b), the MNIST configuration: n - f = 10 honest workers, f = 5 malicious, Dirichlet(alpha = 1)
    label split among the honest workers (Hsu et al.), b = 100, C = 5, T = 400; attacks SF (the Byzantines send
    minus the honest mean) and LF (the mean of the honest workers' gradients on flipped labels y -> 9 - y). Algorithm 1
    (local momentum, clipping, the aggregation) with CAF replaced by each competitor. The claim, read as
    acc(CAF)/acc(b) >= 1 (``theory``) for b in CWTM, CWMED, GM, MK, Meamed under both attacks: ten ratios of final
    test accuracy, each with a bootstrap CI over R replicates (the paper: five seeds), all required above 1. Each
    replicate is its own Dirichlet partition, and all configurations share it and its minibatches (paired). The
    partitions where a competitor beats CAF are counted in the Result: under LF, CAF collapses in a few partitions (to
    2-24% test accuracy; 2% is below chance, i.e. the model learnt the flipped labels). With 5 partitions one collapse
    left a pair's CI below 1, and the verdict was undecided at 4 of the root seeds 0-5 (holds at 0 and 1); with R = 12
    partitions at quick fidelity it holds at 6 of 6 (seeds 0-5: smallest CI lower end 1.11 to 1.27 across seeds; a
    competitor beat CAF in 4 of 72 partitions under LF and 2 of 72 under SF), for the same cost (5.6-6.3 s against
    5.7-7.0 s before, on two shared cores), since the quick run takes T = 50 rounds instead of 100 at the same gamma T.
    The digits substitution makes the honest momenta far noisier than the paper's MNIST (100 samples and b = 50 per
    worker against about 6000 and b = 100); a plausible cause of the collapses, not tested here, is a covariance filter
    taking the honest spread for the attack. Whether they occur on MNIST is for ``--data`` at full fidelity to say.

    Substitutions, stated in the Result: digits 8x8 in place of MNIST (unless ``ctx.data`` names MNIST);
    softmax-linear model in place of the CNN with 431,080 parameters; 100 samples per worker and b = 50 on digits
    (the paper's b = 100 on about 6000 per worker with MNIST); quick fidelity runs T = 50 with gamma = 0.6 (the same
    gamma T as the full run's T = 400, gamma = 0.075, the MNIST step size of §5.1; §5.2 reports no step size or
    momentum, so beta = 0.85 of §5.1). No privacy noise: Fig. 2 uses CDP (trusted server), where the noise is added
    to the aggregate after the robust aggregation, so every aggregator sees the same noise-free clipped momenta;
    its level is not reported (docs/papers/allouah2025.md §5.3).

    No control that must fail (see ``no_control``): the competitors are the claim's baselines. The plain mean (DSGD's
    aggregation) is run beside them as context: SF from f of n workers turns the mean into (1 - 2f/n) mbar, a shorter
    step, so these attacks do not break it, and it cannot serve as a failing control.

    Expected holds, from the paper (CAF best in every configuration of Fig. 2 and App. D.2) and an argument:
    CAF's error is bounded by the honest covariance's top eigenvalue (Prop. 4.1), while CWTM, CWMED and GM incur a
    bias that grows with the honest heterogeneity in every coordinate, and SF / LF place the f Byzantine vectors
    on one point, which coordinate-wise rules keep inside the trimmed range whenever honest values straddle it.
    """
    aggregator_options = BYZFL_OPTIONS if aggregator_options is None else aggregator_options
    ds = datasets.load(ctx.data)
    on_mnist = ds.name != "digits"
    m = per_worker or (len(ds.y_train) // honest if on_mnist else 100)
    b = batch_size or (100 if on_mnist else 50)
    T = T or ctx.pick(50, 400)
    gamma = gamma if gamma is not None else 0.075 * 400 / T
    R = ctx.reps(12, 10)
    rng = ctx.numpy_rng("partition")
    idx, _, reused = partition.dirichlet_label_split(ds.y_train, honest, m, alpha, rng, R, ds.classes)
    X = with_bias(ctx.tensor(ds.x_train[idx]))
    prob = SoftmaxWorkers(X, torch.as_tensor(ds.y_train[idx], device=ctx.torch_device), ds.classes)
    Xt = with_bias(ctx.tensor(ds.x_test))
    yt = torch.as_tensor(ds.y_test, device=ctx.torch_device)
    rules = ("caf",) + tuple(competitors) + ("mean",)
    configs = [(a, g) for a in attacks for g in rules] + [(None, "mean")]
    final = algorithm1(prob, configs, f=f, T=T, gamma=gamma, beta=beta, C=C, batch_size=b,
                       generator=ctx.generator("run"), aggregator_options=aggregator_options)
    acc = {cfg: _test_accuracy(th, Xt, yt, ds.classes) for cfg, th in zip(configs[:-1], final[:-1])}
    acc_free = _test_accuracy(final[-1], Xt, yt, ds.classes)
    cols = [(a, g) for a in attacks for g in competitors]
    floor = 1.0 / len(ds.y_test)  # an accuracy of 0 counts as one test sample (the measurement's resolution)
    acc = {k: np.maximum(v, floor) for k, v in acc.items()}
    Y = np.stack([acc[(a, "caf")] / acc[(a, g)] for a, g in cols], 1)  # per partition: the figure and the finding
    brng = ctx.numpy_rng("bootstrap")
    v_claim, info = bound_verdict(Y, theory, rng=brng)
    # per partition CAF is not always ahead: the partitions where some competitor beats it under the same attack
    caf_acc = {a: acc[(a, "caf")] for a in attacks}
    beaten = {a: np.flatnonzero(caf_acc[a] < np.max([acc[(a, g)] for g in competitors], 0)) for a in attacks}
    with aside():  # context, not a control: the unfiltered mean against the same competitors
        Yc = np.stack([acc[(a, "mean")] / acc[(a, g)] for a, g in cols], 1)
        _, info_c = bound_verdict(Yc, theory, rng=brng)
    verdict = v_claim
    lines = "; ".join(f"{ATTACK_NAMES[a]}: " + ", ".join(f"{NAMES[g]} {100 * acc[(a, g)].mean():.1f}"
                                                       for g in ("caf",) + tuple(competitors) + ("mean",))
                      for a in attacks)
    worst = int(np.argmin(info["ci_lo"]))
    mean_ahead = [f"{ATTACK_NAMES[a]}/{NAMES[g]}" for (a, g), lo in zip(cols, info_c["ci_lo"]) if lo > 1]
    subst = (f"{ds.describe()}; " + ("the paper's dataset" if on_mnist else "digits 8x8 in place of MNIST")
             + f"; n = {honest + f} workers (f = {f}), Dirichlet(alpha = {alpha}) label split, {m} samples per honest "
             f"worker ({reused} draws reused a sample of another worker), b = {b}, C = {C}, T = {T}, gamma = {gamma:g}, "
             f"beta = {beta}; softmax-linear model in place of the 431,080-parameter CNN; no privacy noise (CDP adds it "
             f"after aggregation); {R} replicates")
    return result_for(
        ctx,
        Claim("Section 5.2, Figure 2 (MNIST, f = 5 among n = 15, alpha = 1): 'Figure 2 demonstrates the clear superiority "
              "of CafCor (and CAF) over competing aggregations across all configurations' (CWTM, CWMED, GM, MK, Meamed; "
              "sign flipping and label flipping). Reproduced here on " + ("MNIST" if on_mnist else "scikit-learn's 8x8 "
              "digits in place of MNIST") + ": acc(CAF)/acc(b) >= 1 for every competitor b under both attacks.",
              r"\mathrm{acc}(\mathrm{CAF})/\mathrm{acc}(b)\ge 1,\ b\in\{\mathrm{CWTM,CWMED,GM,MK,Meamed}\}",
              "allouah2025, Section 5.2, Figure 2 (App. D.2)",
              "\"acc\"(\"CAF\") \\/ \"acc\"(b) >= 1"),
        verdict,
        observed={"accuracy": {f"{a}/{g}": v.tolist() for (a, g), v in acc.items()},
                  "accuracy_mean": {f"{a}/{g}": float(v.mean()) for (a, g), v in acc.items()},
                  "adversary_free_dsgd": acc_free.tolist(),
                  "ratio_CAF_over": {f"{a}/{g}": [float(info["mean"][i]), float(info["ci_lo"][i]), float(info["ci_hi"][i])]
                                     for i, (a, g) in enumerate(cols)},
                  "partitions_where_a_competitor_beats_caf": {a: ix.tolist() for a, ix in beaten.items()},
                  "dataset": ds.describe(), "reused_draws": int(reused), "replicates": R, "substitution": subst},
        predicted={"ratio_at_least": 1.0, "paper": "CAF best under SF (close to 80%) and LF (about 90%, as adversary-free "
                                                   "DSGD); the best of CWTM, CWMED, GM just above 50% under LF"},
        fit={"ordering": {k: (v.tolist() if isinstance(v, np.ndarray) else v) for k, v in info.items()},
             "context_mean": {k: (v.tolist() if isinstance(v, np.ndarray) else v) for k, v in info_c.items()}},
        explanation=(f"Final test accuracy (%), mean over {R} replicates: {lines}; adversary-free DSGD "
                     f"{100 * acc_free.mean():.1f}. The smallest CAF/competitor ratio is "
                     f"{ATTACK_NAMES[cols[worst][0]]}/{NAMES[cols[worst][1]]}: {info['mean'][worst]:.3f} (CI lower end "
                     f"{info['ci_lo'][worst]:.3f}); CAF is "
                     + ("ahead on every pair." if v_claim.passed else "not ahead on every pair.")
                     + " Per partition: " + "; ".join(
                         f"under {ATTACK_NAMES[a]} a competitor beats CAF in {len(ix)} of {R}"
                         + (f" (CAF's accuracy there {', '.join(f'{100 * caf_acc[a][k]:.0f}%' for k in ix)})"
                            if len(ix) else "") for a, ix in beaten.items()) + "."
                     + f" Context (not judged): the unfiltered mean is ahead of {', '.join(mean_ahead) or 'no competitor'} "
                     f"(SF and LF at f = {f} of {honest + f} shorten the mean's step rather than reverse it)."
                     f" Substitution: {subst}."),
        finding=remark(f"{'MNIST' if on_mnist else 'Digits 8x8 (not MNIST)'}: {lines}; adversary-free DSGD "
                       f"{100 * acc_free.mean():.1f}. Partitions where a competitor beats CAF: "
                       + ", ".join(f"{ATTACK_NAMES[a]} {len(ix)} of {R}" for a, ix in beaten.items()) + f". {subst}."),
        figure=figspec.figure(figspec.panel(
            "acc(CAF)/acc(aggregator), " + ("MNIST" if on_mnist else "digits 8x8 in place of MNIST"),
            "pair: " + ", ".join(f"{i + 1} = {ATTACK_NAMES[a]}/{NAMES[g]}" for i, (a, g) in enumerate(cols)), "ratio",
            [figspec.observed("CAF / aggregator", np.arange(1, len(cols) + 1), Y, rng=ctx.numpy_rng("figure")),
             figspec.observed("context: mean / aggregator", np.arange(1, len(cols) + 1), Yc, rng=ctx.numpy_rng("figure")),
             figspec.line("Fig. 2: ratio 1", np.arange(1, len(cols) + 1), 1.0, "bound")],
            xscale="linear", yscale="linear")),
        arrays={"ratios": Y, "control_ratios": Yc},
    )
