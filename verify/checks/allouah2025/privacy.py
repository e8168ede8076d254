"""allouah2025 checks c01-c10: CafCor's correlated noise and its Rényi privacy accountant.

Our reading: docs/papers/allouah2025.md §2.2, 3 and 6 (C1-C10), 7 (items 1, 3). The noise
is built exactly as in docs/papers/allouah2025.md §2.2 (verify/correlated_noise.py: pairwise shared seeds, both ends
regenerate the same vector), the accountant is analytic/privacy.py, and the paper's formulas are
the Bounds of analytic/papers/allouah2025.py.

Conventions: honest workers are 0..n-f-1, malicious ones n-f..n-1, and the colluders are the
first q malicious workers. Malicious workers add no noise of their own to anything the checks
measure (their shared terms with honest workers stay in the honest messages).

Each check's keyword arguments default to the real implementation (the accountant, the noise
generator, the paper's formula); the tests pass a deliberately wrong version (a wrong accountant
constant, a sign bug, an asymmetric key derivation) and require ``violated``.
"""
from __future__ import annotations

import math
from typing import Callable

import numpy as np
import torch

from analytic import privacy as P
from analytic.papers import allouah2025 as A
from verify import figspec
from verify.correlated_noise import (
    SharedSeeds,
    StreamMemo,
    correlated_noise,
    gaussian_llr,
    pair_noise,
    pair_stream,
    protocol_noise,
    renyi_divergence_mc,
    server_view,
    worker_correlated_noise,
)
from verify.engine import Context
from verify.fit import (
    apply_assumptions,
    combine,
    deterministic_verdict,
    exact_zero_verdict,
    family_z,
    identity_verdict,
    mc_bound_verdict,
    mc_identity_verdict,
    power_law,
    rate_verdict,
)
from verify.checks.allouah2025 import search as S
from verify.normal_draws import randn
from verify.registry import check, register_paper, result_for
from verify.result import Assumption, Claim, Result, erratum, remark

register_paper(A.PAPER)


# -- small helpers ---------------------------------------------------------------------------------
def _claim(bound, latex: str = "", text: str | None = None, source: str | None = None) -> Claim:
    return Claim(text=text or bound.statement, latex=latex or bound.latex(), source=source or bound.source,
                 typst=bound.typst)


def _seeds(ctx: Context, stream: str, n: int) -> SharedSeeds:
    """A master secret for one simulated federation, from the context's seed tree."""
    return SharedSeeds(int(ctx.seed_sequence(stream).generate_state(1, dtype=np.uint32)[0]), n)


def second_moments(X: torch.Tensor, with_se: bool = True) -> tuple[np.ndarray, np.ndarray | None]:
    """E[x x^T] of zero-mean samples X [M, m] and the standard error of each entry (from 4th moments)."""
    X = X.to(torch.float64)
    M = X.shape[0]
    S = (X.T @ X) / M
    if not with_se:
        return S.cpu().numpy(), None
    X2 = X * X
    fourth = (X2.T @ X2) / M  # E[x_i^2 x_j^2]
    se = torch.sqrt(torch.clamp(fourth - S * S, min=0.0) / M)
    return S.cpu().numpy(), se.cpu().numpy()


def _ci_series(label: str, x, y, se, z: float, band: str) -> dict:
    y, se = np.asarray(y, dtype=float), np.asarray(se, dtype=float)
    return figspec.interval(label, x, y, y - z * se, y + z * se, band)


def _worker_sets(n: int, f: int, q: int) -> tuple[list[int], list[int], list[int]]:
    honest = list(range(n - f))
    malicious = list(range(n - f, n))
    return honest, malicious, malicious[:q]


# =====================================================================================================
# C1: exact pairwise cancellation over all workers
# =====================================================================================================
C1_TITLE = "Pairwise shared-seed noise cancels exactly when all n workers add their terms"


@check("allouah2025.c01", C1_TITLE, "identity", "holds", statements=("Algorithm 1", "Section 3"))
def c01_exact_cancellation(ctx: Context, *, seeds_factory: Callable[[int, int], SharedSeeds] = SharedSeeds) -> Result:
    """Claim 1: n in {2,5,17}, d in {1,1000}, T = 3. Each worker regenerates its own terms from its own
    secrets; ||sum_i sum_{j!=i} v^(ij)||_inf <= 1e-10 sigma_cor n, v^(ij) = -v^(ji) bit for bit, and both
    endpoints draw the identical z^(ij) (also when the steps are visited in reverse order)."""
    R, sigma_cor, steps = ctx.reps(4, 16), 1.3, 3
    float64 = ctx.dtype == torch.float64
    tol = 1e-10 if float64 else 1e-5  # docs/papers/allouah2025.md §6: loosen to ~1e-5 sigma_cor sqrt(n) (>= our 1e-5 sigma_cor n / n) in float32
    dev, dt = ctx.torch_device, ctx.dtype
    rows, mismatches, checked_pairs = [], 0, 0
    for n in (2, 5, 17):
        seeds = seeds_factory(_seeds(ctx, f"c01/n={n}", n).master, n)
        for d in (1, 1000):
            worst = 0.0
            for t in reversed(range(steps)):  # reverse order: the streams must not depend on call order
                own = torch.stack([worker_correlated_noise(seeds, i, t, R, d, sigma_cor, dt, dev) for i in range(n)], 1)
                total = own.sum(1)
                worst = max(worst, float(total.abs().max()) / (sigma_cor * n))
                batched = correlated_noise(seeds, t, R, d, sigma_cor, dt, dev)
                mismatches += int(not torch.equal(batched, own))
                for i in range(n):
                    for j in range(i + 1, n):
                        v_ij = pair_noise(seeds, i, j, t, R, d, sigma_cor, dt, dev)
                        v_ji = pair_noise(seeds, j, i, t, R, d, sigma_cor, dt, dev)
                        z_i = pair_stream(seeds.pair_seed(i, j), t, (R, d), dt, dev)
                        z_j = pair_stream(seeds.pair_seed(j, i), t, (R, d), dt, dev)
                        mismatches += int(not torch.equal(v_ij, -v_ji)) + int(not torch.equal(z_i, z_j))
                        checked_pairs += 1
            rows.append((n, d, worst))
    worst_all = max(r[2] for r in rows)
    v_sum, info_sum = exact_zero_verdict(worst_all, tol)
    v_bits, info_bits = exact_zero_verdict(float(mismatches))
    verdict = combine([v_sum, v_bits])
    assumptions = [Assumption("tolerance matches the arithmetic (1e-10 in float64, 1e-5 in float32)", True, tol,
                              "exact", str(dt).replace("torch.", ""))]
    ns = [2, 5, 17]
    series = [figspec.line(f"d = {d}", ns, [float(r[2]) for r in rows if r[1] == d], "observed") for d in (1, 1000)]
    series.append(figspec.line(f"tolerance {tol:g}", ns, tol, "bound"))
    return result_for(
        ctx,
        Claim("Summed over all n workers, the pairwise terms cancel exactly: sum_i sum_{j != i} v_t^(ij) = 0, since "
              "v_t^(ij) = -v_t^(ji) and both endpoints regenerate z_t^(ij) from their shared seed.",
              r"\sum_{i\in[n]}\sum_{j\ne i} v_t^{(ij)} = 0,\quad v_t^{(ij)}=-v_t^{(ji)}",
              "allouah2025, Algorithm 1 line 6 and section 3 (pairwise-canceling noise)",
              'sum_(i in [n]) sum_(j != i) v_t^((i j)) = 0, quad v_t^((i j)) = -v_t^((j i))'),
        verdict,
        observed={"settings": [{"n": n, "d": d, "max_abs_sum_over_sigma_n": w} for n, d, w in rows],
                  "max_abs_sum_over_sigma_n": worst_all, "bit_mismatches": mismatches,
                  "pairs_checked": checked_pairs, "replicates": R, "steps": steps},
        predicted={"sum": 0.0, "tolerance": tol, "bit_mismatches": 0},
        fit={"sum": info_sum, "bits": info_bits},
        explanation=(f"Every worker rebuilt its own noise from its own seeds; summed over all n workers the largest "
                     f"coordinate was {worst_all:.2e} sigma_cor n (tolerance {tol:g}), i.e. floating-point rounding only. "
                     f"Over {checked_pairs} pair-step draws the two endpoints produced bit-identical vectors with "
                     f"opposite signs ({mismatches} mismatches), whatever the order of the calls."),
        assumptions=assumptions,
        figure=figspec.figure(figspec.panel(
            "Cancellation over all workers (exact zeros drawn at 1e-19)", "n (workers)",
            "max |sum of pairwise noise| / (sigma_cor n)", series, "linear", "log")),
    )



# =====================================================================================================
# C2: the honest-only residual
# =====================================================================================================
C2_TITLE = "Honest-only noise average keeps the pairs with malicious workers: E||.||^2 = d(f s_cor^2 + s_ind^2)/(n-f)"


def _honest_mean_sq(ctx: Context, n: int, f: int, d: int, s_cor2: float, s_ind2: float, N: int, stream: str) -> np.ndarray:
    seeds = _seeds(ctx, stream, n)
    xi = protocol_noise(seeds, 0, N, d, math.sqrt(s_cor2), math.sqrt(s_ind2), ctx.generator(stream + "/ind"),
                        ctx.dtype, ctx.torch_device)
    honest_mean = xi[:, : n - f].mean(1)
    return (honest_mean**2).sum(-1).to(torch.float64).cpu().numpy()


@check("allouah2025.c02", C2_TITLE, "identity", "holds", statements=("Section 3", "Lemma C.2"))
def c02_honest_residual(ctx: Context, *, predicted_fn: Callable[..., float] | None = None) -> Result:
    """Claim 2: n = 20, d = 50, sigma_cor^2 = 1, sigma_ind^2 = 0.5, f in {0, 2, 4, 6, 8} (the point f = 4 of docs/papers/allouah2025.md §6,
    N >= 1e4, theory 14.0625): the mean of ||(1/|H|) sum_H xi||^2 within 3 SE (family-wise) of the formula."""
    predicted_fn = predicted_fn or (lambda **kw: A.HONEST_RESIDUAL(**kw))
    n, d, s_cor2, s_ind2 = 20, 50, 1.0, 0.5
    fs = np.array([0, 2, 4, 6, 8])
    N_main = ctx.reps(10_000, 40_000)
    N_sweep = max(N_main // 10, 200)  # our reading (docs/papers/allouah2025.md) point f = 4 carries the N >= 1e4 requirement
    samples = {int(f): _honest_mean_sq(ctx, n, int(f), d, s_cor2, s_ind2, N_main if f == 4 else N_sweep, f"c02/f={f}")
               for f in fs}
    mean = np.array([samples[int(f)].mean() for f in fs])
    se = np.array([samples[int(f)].std(ddof=1) / math.sqrt(samples[int(f)].size) for f in fs])
    predicted = np.array([float(predicted_fn(d=d, f=int(f), n=n, sigma_cor2=s_cor2, sigma_ind2=s_ind2)) for f in fs])
    if_cancelled = d * s_ind2 / (n - fs)
    z = family_z(len(fs))
    verdict, info = mc_identity_verdict(mean, se, predicted, z)
    k4 = int(np.where(fs == 4)[0][0])
    finding = remark(
        f"Remark (not an erratum), quantifying what the paper states: section 3 (line 108) calls the correlated terms "
        f"'pairwise-canceling' (v^(ij) = -v^(ji)), and Appendix C (line 558) says 'all correlated noise terms cancel "
        f"out upon averaging, except those shared with malicious workers'. The simulated share of noise the honest "
        f"average keeps: at n = {n}, f = 4, E||.||^2 = {mean[k4]:.3f} +- {se[k4]:.3f}, matching "
        f"d(f s_cor^2 + s_ind^2)/(n-f) = {predicted[k4]:.4f}, against {if_cancelled[k4]:.4f} if every pair cancelled; "
        f"the uncancelled pairs with the f malicious workers carry {1 - if_cancelled[k4] / mean[k4]:.0%} of it.")
    return result_for(
        ctx, _claim(A.HONEST_RESIDUAL,
        r"\mathbb{E}\left\|\frac{1}{|\mathcal{H}|}\sum_{i\in\mathcal{H}}\xi^{(i)}\right\|^2=\frac{d(f\sigma_{\mathrm{cor}}^2+\sigma_{\mathrm{ind}}^2)}{n-f}"),
        verdict,
        observed={"f": fs, "mean": mean, "se": se, "samples_per_f": [int(samples[int(f)].size) for f in fs],
                  "n": n, "d": d, "sigma_cor2": s_cor2, "sigma_ind2": s_ind2},
        predicted={"formula": predicted, "if_honest_sum_cancelled": if_cancelled},
        fit=info,
        explanation=(f"Simulating the shared-seed protocol with n = {n} and d = {d}, the squared norm of the honest "
                     f"workers' average noise matched d(f s_cor^2 + s_ind^2)/(n-f) at every f (largest deviation "
                     f"{info['max_abs_z']:.2f} standard errors; allowed {z:.2f}). The honest-honest pairs cancel, but "
                     "each honest worker keeps the terms it shares with the f malicious workers."),
        assumptions=[Assumption("malicious workers add no noise of their own to the honest average", True, None, "exact",
                                "they only appear through the pairs they share with honest workers")],
        figure=figspec.figure(figspec.panel(
            f"Honest-only noise average, n = {n}, d = {d}", "f (malicious workers)", "E||mean of honest noise||^2",
            [_ci_series("simulated protocol", fs, mean, se, z, f"+-{z:.2f} SE (family-wise 99.73%)"),
             figspec.line("d(f s_cor^2 + s_ind^2)/(n-f)", fs, predicted, "bound"),
             figspec.line("if the honest sum cancelled: d s_ind^2/(n-f)", fs, if_cancelled, "reference")],
            "linear", "linear")),
        finding=finding,
        arrays={"sq_norm_f4": samples[4]},
    )



# =====================================================================================================
# C3: per-worker marginals
# =====================================================================================================
C3_TITLE = "Per-worker noise: Var = (n-1) s_cor^2 + s_ind^2, Cov between workers = -s_cor^2"


@check("allouah2025.c03", C3_TITLE, "identity", "holds", statements=("Algorithm 1", "Section 3"))
def c03_marginals(ctx: Context, *, noise_fn: Callable = protocol_noise) -> Result:
    """Claim 3: n = 6, sigma_cor^2 = 0.7, sigma_ind^2 = 0.3, d = 20 (coordinates pooled): every entry of the
    empirical covariance of (xi^(1)..xi^(n)) within 3 SE (family-wise over the n(n+1)/2 entries)."""
    n, d, s_cor2, s_ind2 = 6, 20, 0.7, 0.3
    N = ctx.reps(20_000, 80_000)
    seeds = _seeds(ctx, "c03", n)
    xi = noise_fn(seeds, 0, N, d, math.sqrt(s_cor2), math.sqrt(s_ind2), ctx.generator("c03/ind"), ctx.dtype,
                  ctx.torch_device)
    X = xi.permute(0, 2, 1).reshape(-1, n)  # every coordinate of every replicate is one sample of the n workers
    S, se = second_moments(X)
    var_pred = float(A.MARGINAL_VAR(n=n, sigma_cor2=s_cor2, sigma_ind2=s_ind2))
    cov_pred = float(A.MARGINAL_COV(sigma_cor2=s_cor2))
    predicted = np.full((n, n), cov_pred)
    np.fill_diagonal(predicted, var_pred)
    iu = np.triu_indices(n)
    z = family_z(len(iu[0]))
    verdict, info = mc_identity_verdict(S[iu], se[iu], predicted[iu], z)
    off = ~np.eye(n, dtype=bool)
    pairs = np.array([(i, j) for i in range(n) for j in range(i + 1, n)])
    return result_for(
        ctx,
        Claim(f"{A.MARGINAL_VAR.statement} {A.MARGINAL_COV.statement}",
              r"\mathrm{Var}(\xi^{(i)})=(n-1)\sigma_{\mathrm{cor}}^2+\sigma_{\mathrm{ind}}^2,\ \ "
              r"\mathrm{Cov}(\xi^{(i)},\xi^{(k)})=-\sigma_{\mathrm{cor}}^2",
              A.MARGINAL_VAR.source, A.MARGINAL_VAR.typst + ", quad " + A.MARGINAL_COV.typst),
        verdict,
        observed={"covariance": S, "se": se, "mean_variance": float(np.diag(S).mean()),
                  "mean_covariance": float(S[off].mean()), "samples": int(X.shape[0]), "n": n, "d": d},
        predicted={"variance": var_pred, "covariance": cov_pred, "matrix": predicted},
        fit=info,
        explanation=(f"Over {X.shape[0]} simulated samples the per-worker variance averaged {np.diag(S).mean():.4f} "
                     f"(predicted {var_pred:.4f}) and the covariance between two workers {S[off].mean():.4f} "
                     f"(predicted {cov_pred:.4f}); the worst entry was {info['max_abs_z']:.2f} standard errors off "
                     f"(allowed {z:.2f}). Each shared pair enters the two workers with opposite signs, hence the "
                     "negative covariance."),
        assumptions=[],
        figure=figspec.figure(
            figspec.panel("Per-worker variance", "worker i", "Var(xi^(i))",
                          [_ci_series("simulated protocol", range(1, n + 1), np.diag(S), np.diag(se), z,
                                      f"+-{z:.2f} SE (family-wise 99.73%)"),
                           figspec.line("(n-1) s_cor^2 + s_ind^2", range(1, n + 1), var_pred, "bound")],
                          "linear", "linear"),
            figspec.panel("Covariance between workers", "pair index", "Cov(xi^(i), xi^(k))",
                          [_ci_series("simulated protocol", range(1, len(pairs) + 1), S[pairs[:, 0], pairs[:, 1]],
                                      se[pairs[:, 0], pairs[:, 1]], z, f"+-{z:.2f} SE (family-wise 99.73%)"),
                           figspec.line("-s_cor^2", range(1, len(pairs) + 1), cov_pred, "bound")],
                          "linear", "linear")),
    )



# =====================================================================================================
# C4: server-view covariance after the colluders' terms are removed
# =====================================================================================================
C4_TITLE = "Server's de-noised view of the honest rows has covariance a I - s_cor^2 11^T (eq. 8)"


def _view_moments(ctx: Context, n: int, f: int, q: int, s_cor2: float, s_ind2: float, N: int, d: int, stream: str):
    seeds = _seeds(ctx, stream, n)
    honest, _, colluders = _worker_sets(n, f, q)
    memo = StreamMemo(seeds, [(i, j) for i in honest for j in colluders])  # the server's streams: drawn once
    xi = protocol_noise(seeds, 0, N, d, math.sqrt(s_cor2), math.sqrt(s_ind2), ctx.generator(stream + "/ind"),
                        ctx.dtype, ctx.torch_device, memo)
    view = server_view(xi, seeds, 0, honest, colluders, math.sqrt(s_cor2), memo)  # inputs 0: the view is the noise
    return second_moments(view.permute(0, 2, 1).reshape(-1, len(honest)))


def eq8_covariance(n: int, f: int, q: int, s_cor2: float, s_ind2: float) -> np.ndarray:
    """Eq. (8): a I_{n-f} - sigma_cor^2 11^T with a = (n-q) sigma_cor^2 + sigma_ind^2."""
    a, _ = P.lemma_a4_ab(n, f, q, s_cor2, s_ind2)
    return a * np.eye(n - f) - s_cor2 * np.ones((n - f, n - f))


@check("allouah2025.c04", C4_TITLE, "identity", "holds", statements=("Lemma A.4",))
def c04_server_view(ctx: Context, *, predicted_fn: Callable[..., np.ndarray] = eq8_covariance) -> Result:
    """Claim 4: (n,f,q) in {(8,3,0),(8,3,2),(8,3,3),(30,5,5)} (plus (8,3,1) for the figure), sigma_cor^2 = 0.7,
    sigma_ind^2 = 0.3: every entry of the view covariance within max(4, family-wise 3-sigma) SE of eq. (8)."""
    s_cor2, s_ind2 = 0.7, 0.3
    configs = [(8, 3, 0), (8, 3, 1), (8, 3, 2), (8, 3, 3), (30, 5, 5)]
    sizes = {8: (ctx.reps(20_000, 100_000), 5), 30: (ctx.reps(4_000, 20_000), 10)}
    est, se, pred = {}, {}, {}
    for n, f, q in configs:
        N, d = sizes[n]
        est[(n, f, q)], se[(n, f, q)] = _view_moments(ctx, n, f, q, s_cor2, s_ind2, N, d, f"c04/{n},{f},{q}")
        pred[(n, f, q)] = np.asarray(predicted_fn(n, f, q, s_cor2, s_ind2), dtype=float)
    n_entries = sum((n - f) * (n - f + 1) // 2 for n, f, _ in configs)
    z = max(4.0, family_z(n_entries))
    parts, worst = [], 0.0
    for key in configs:
        iu = np.triu_indices(key[0] - key[1])
        v, info = mc_identity_verdict(est[key][iu], se[key][iu], pred[key][iu], z)
        parts.append(v)
        worst = max(worst, info["max_abs_z"])
    verdict = combine(parts)
    q_fig = [q for n, _, q in configs if n == 8]

    def diag_off(key):
        m = key[0] - key[1]
        off = ~np.eye(m, dtype=bool)
        return (np.diag(est[key]).mean(), np.sqrt((np.diag(se[key]) ** 2).sum()) / m,
                est[key][off].mean(), np.sqrt((se[key][off] ** 2).sum()) / off.sum())

    stats8 = np.array([diag_off((8, 3, q)) for q in q_fig])
    band = f"+-{z:.2f} SE of the entry average"
    return result_for(
        ctx,
        Claim(A.SERVER_VIEW_TEXT, A.SERVER_VIEW_LATEX, A.SERVER_VIEW_SOURCE, A.SERVER_VIEW_TYPST),
        verdict,
        observed={"configs": [list(k) for k in configs],
                  "covariance": {f"{n},{f},{q}": est[(n, f, q)] for n, f, q in configs},
                  "se": {f"{n},{f},{q}": se[(n, f, q)] for n, f, q in configs},
                  "max_abs_z": worst, "samples": {str(k): v[0] * v[1] for k, v in sizes.items()}},
        predicted={"covariance": {f"{n},{f},{q}": pred[(n, f, q)] for n, f, q in configs},
                   "sigma_cor2": s_cor2, "sigma_ind2": s_ind2},
        fit={"z": z, "entries": n_entries, "max_abs_z": worst},
        explanation=(f"The server subtracted every pairwise term it learns from the q colluders and kept the honest "
                     f"rows. Across {n_entries} covariance entries in five (n, f, q) settings the worst deviation from "
                     f"eq. (8) was {worst:.2f} standard errors (allowed {z:.2f}): each revealed colluder lowers the "
                     "diagonal by s_cor^2, and the off-diagonal stays -s_cor^2."),
        assumptions=[],
        figure=figspec.figure(
            figspec.panel("Diagonal of the view covariance (n = 8, f = 3)", "q (colluders)", "mean Var of a row",
                          [_ci_series("simulated protocol", q_fig, stats8[:, 0], stats8[:, 1], z, band),
                           figspec.line("a - s_cor^2 = (n-q-1) s_cor^2 + s_ind^2", q_fig,
                                        [(8 - q - 1) * s_cor2 + s_ind2 for q in q_fig], "bound")], "linear", "linear"),
            figspec.panel("Off-diagonal of the view covariance (n = 8, f = 3)", "q (colluders)", "mean Cov of two rows",
                          [_ci_series("simulated protocol", q_fig, stats8[:, 2], stats8[:, 3], z, band),
                           figspec.line("-s_cor^2", q_fig, -s_cor2, "bound")], "linear", "linear")),
    )



# =====================================================================================================
# C5: closed form = matrix form; our reading (docs/papers/allouah2025.md) regression vectors
# =====================================================================================================
C5_TITLE = "Lemma A.4: closed form eq. (2) equals the matrix form (1/2)(2C)^2 e_i^T Sigma^-1 e_i"


def _random_settings(rng: np.random.Generator, count: int) -> list[tuple]:
    """(n, f, q, sigma_cor^2, sigma_ind^2, C) with n <= 50, q <= f < n/2, sigma's in [0, 5], b > 0."""
    out = []
    while len(out) < count:
        n = int(rng.integers(2, 51))
        f = int(rng.integers(0, (n - 1) // 2 + 1))
        q = int(rng.integers(0, f + 1))
        s_cor, s_ind = rng.uniform(0, 5, size=2)
        kind = rng.random()
        s_cor = 0.0 if kind < 0.1 else s_cor
        s_ind = 0.0 if 0.1 <= kind < 0.2 and q < f else s_ind
        if (f - q) * s_cor**2 + s_ind**2 <= 0.0:
            continue
        out.append((n, f, q, s_cor**2, s_ind**2, float(rng.uniform(0.1, 3.0))))
    return out


@check("allouah2025.c05", C5_TITLE, "identity", "holds", statements=("Lemma A.4",))
def c05_closed_vs_matrix(ctx: Context, *, closed_form_fn: Callable[..., float] = P.secldp_rdp_step,
                matrix_form_fn: Callable[..., float] = P.secldp_rdp_step_matrix) -> Result:
    """Claim 5: over a random grid, eq. (2) equals the matrix form to 1e-10 relative; the paper's formula
    (sympy Bound) equals the accountant's; the docs/papers/allouah2025.md §3.6 vectors reproduce to their printed precision."""
    settings = _random_settings(ctx.numpy_rng("c05/grid"), ctx.pick(300, 2000))
    closed = np.array([closed_form_fn(*s) for s in settings])
    matrix = np.array([matrix_form_fn(*s) for s in settings])
    cols = np.array(settings, dtype=float).T
    paper = np.asarray(A.LEMMA_A4(n=cols[0], f=cols[1], q=cols[2], sigma_cor2=cols[3], sigma_ind2=cols[4], C=cols[5]),
                       dtype=float)
    # 1e-10 as our reading (docs/papers/allouah2025.md) asks, loosened to 64 u kappa(Sigma) where the view covariance is ill-conditioned
    # (b << a): forming Sigma alone perturbs its smallest eigenvalue b by ~u a, so no solver does better.
    kappa = np.array([np.linalg.cond(P.server_view_covariance(*st[:5])) for st in settings])
    rtol = np.maximum(1e-10, 64 * np.finfo(float).eps * kappa)
    v_matrix, i_matrix = identity_verdict(matrix, closed, rtol=rtol)
    i_matrix.update({"rtol": "max(1e-10, 64 u kappa(Sigma))", "loosened_settings": int(np.sum(rtol > 1e-10)),
                     "max_kappa": float(kappa.max()), "max_error_over_u_kappa":
                     float(np.max(np.abs(matrix - closed) / np.abs(closed) / (np.finfo(float).eps * kappa)))})
    v_paper, i_paper = identity_verdict(paper, closed, rtol=1e-12)
    vec_obs, vec_exp, vec_tol = [], [], []
    for row in A.REGRESSION_VECTORS:
        C, n, f, q, c2, i2, T, delta = (float(x) for x in row[:8])
        n, f, q, T = int(n), int(f), int(q), int(T)
        e = closed_form_fn(n, f, q, c2, i2, C)
        mir = P.epsilon_mironov_optimal(P.compose(e, T), delta)
        vec_obs += [e, mir.epsilon, mir.alpha]
        vec_exp += [float(x) for x in row[8:]]
        vec_tol += [max(A.printed_tolerance(x), 1e-8 * abs(float(x))) for x in row[8:]]
    v_vec, i_vec = identity_verdict(vec_obs, vec_exp, rtol=0.0, atol=np.array(vec_tol))
    verdict = combine([v_matrix, v_paper, v_vec])
    ns = np.array([s[0] for s in settings])
    rel = np.abs(matrix - closed) / np.abs(closed)
    by_n = sorted({int(x) for x in ns})
    worst_by_n = [float(rel[ns == k].max()) for k in by_n]
    return result_for(
        ctx, _claim(A.LEMMA_A4, A.LEMMA_A4_LATEX), verdict,
        observed={"settings": len(settings), "max_rel_error_matrix": float(rel.max()),
                  "max_rel_error_paper_formula": i_paper["max_rel_error"],
                  "regression_vectors": {"observed": vec_obs, "reference": vec_exp, "tolerance": vec_tol}},
        predicted={"rtol_matrix": "1e-10, or 64 u kappa(Sigma) when larger", "rtol_paper_formula": 1e-12, "vector_tolerance": "1e-8 relative or half a "
                   "unit in the last printed digit, whichever is larger"},
        fit={"matrix": i_matrix, "paper_formula": i_paper, "regression_vectors": i_vec},
        explanation=(f"Over {len(settings)} random settings (n <= 50, q <= f < n/2) the per-step divergence from eq. (2) "
                     f"and from inverting the server-view covariance built from the complete graph's incidence matrix "
                     f"agreed to {rel.max():.1e} relative, within 1e-10 except where the covariance is ill-conditioned "
                     f"({i_matrix['loosened_settings']} settings, error at most {i_matrix['max_error_over_u_kappa']:.1f} "
                     "unit roundoffs times its condition number). Six reference rows (eps_step, eps*, alpha*) computed "
                     "independently beforehand were reproduced to their printed digits."),
        assumptions=[],
        figure=figspec.figure(figspec.panel(
            "Closed form vs matrix form (exact zeros are not drawn on the log axis)", "n (workers)", "max relative difference",
            [figspec.line("|matrix - closed| / closed", by_n, [float(w) for w in worst_by_n], "observed"),
             figspec.line("tolerance 1e-10", by_n, 1e-10, "bound")], "linear", "log")),
    )



# =====================================================================================================
# C6: Monte Carlo Rényi divergence and privacy-loss distribution vs the accountant
# =====================================================================================================
C6_TITLE = "Monte Carlo Rényi divergence of the server's view matches alpha * eps_step (alpha <= 2)"


def _protocol_views(ctx: Context, n: int, f: int, qs: tuple[int, ...], s_cor2: float, s_ind2: float, N: int,
                    stream: str) -> dict[int, torch.Tensor]:
    """One simulated step (d = 1, inputs 0): the server's view [N, n-f] of the honest rows for each number
    of colluders in ``qs``, all from the same protocol draw."""
    seeds = _seeds(ctx, stream, n)
    honest, _, _ = _worker_sets(n, f, 0)
    memo = StreamMemo(seeds, [(i, j) for i in honest for j in _worker_sets(n, f, max(qs))[2]])  # drawn once
    xi = protocol_noise(seeds, 0, N, 1, math.sqrt(s_cor2), math.sqrt(s_ind2), ctx.generator(stream + "/ind"),
                        ctx.dtype, ctx.torch_device, memo)
    return {q: server_view(xi, seeds, 0, honest, _worker_sets(n, f, q)[2], math.sqrt(s_cor2), memo)[..., 0]
            .to(torch.float64) for q in qs}


def _privacy_loss_batch(ctx: Context, b: int, n: int, f: int, q: int, s_cor2: float, s_ind2: float, C: float,
                        N: int, alphas: np.ndarray) -> np.ndarray:
    """One independent batch: view covariances from one draw, privacy losses from two more (P_A, P_B).

    Returns [D_alpha (q colluders) ..., D_alpha (0 colluders) ..., mean_A, mean_B, var_A, var_B].
    """
    m = n - f
    x_b = torch.zeros(m, dtype=torch.float64, device=ctx.torch_device)
    x_b[0] = -C
    x_a = x_b.clone()
    x_a[0] = C
    est = _protocol_views(ctx, n, f, (q, 0), s_cor2, s_ind2, N, f"c06/{b}/est")
    Sigma = {k: torch.from_numpy(second_moments(v, with_se=False)[0]).to(x_b) for k, v in est.items()}
    world_b = _protocol_views(ctx, n, f, (q, 0), s_cor2, s_ind2, N, f"c06/{b}/B")
    world_a = _protocol_views(ctx, n, f, (q,), s_cor2, s_ind2, N, f"c06/{b}/A")
    llr_b = gaussian_llr(x_b + world_b[q], x_a, x_b, Sigma[q])
    llr_a = gaussian_llr(x_a + world_a[q], x_a, x_b, Sigma[q])
    llr_b0 = gaussian_llr(x_b + world_b[0], x_a, x_b, Sigma[0])
    return np.concatenate([renyi_divergence_mc(llr_b, alphas), renyi_divergence_mc(llr_b0, alphas),
                           [float(llr_a.mean()), float(llr_b.mean()), float(llr_a.var()), float(llr_b.var())]])


@check("allouah2025.c06", C6_TITLE, "privacy", "holds", statements=("Lemma A.1", "Lemma A.4"))
def c06_monte_carlo_renyi(ctx: Context, *, rdp_step_fn: Callable[..., float] = P.secldp_rdp_step) -> Result:
    """Claim 6 at n = 8, f = 3, q = 2, sigma_cor^2 = sigma_ind^2 = 2, C = 1, d = 1; worker 0 holds +C (P_A) or
    -C (P_B), the others 0. The log-likelihood ratio uses the *empirical* covariance of the simulated view
    (an independent draw), so nothing of the accountant enters the measurement. B independent batches
    (each: covariance draw + P_A draw + P_B draw) give every statistic a standard error that includes the
    covariance estimate.
    (a) D_alpha (alpha in {1.25, 1.5, 1.75, 2}) consistent with alpha eps_step (within z SE; our reading (docs/papers/allouah2025.md) 3% is
        reported and met when the simulation is precise enough);
    (b) privacy-loss mean +-eta/2 and variance eta (eta = 2 eps_step), within z SE (spec: 2%);
    (c) with fewer secrets revealed (q' = 0) than accounted: D_alpha <= alpha eps_step(q) (upper CI)."""
    n, f, q, s_cor2, s_ind2, C = 8, 3, 2, 2.0, 2.0, 1.0
    B, N_b = ctx.reps(20, 100), 20_000
    alphas = np.array([1.25, 1.5, 1.75, 2.0])
    k = alphas.size
    Y = np.stack([_privacy_loss_batch(ctx, b, n, f, q, s_cor2, s_ind2, C, N_b, alphas) for b in range(B)])
    mean, se = Y.mean(0), Y.std(0, ddof=1) / math.sqrt(B)
    e_step = float(rdp_step_fn(n, f, q, s_cor2, s_ind2, C))
    eta = 2.0 * e_step
    z = family_z(2 * k + 4, df=B - 1)
    D, D_se, D0, D0_se = mean[:k], se[:k], mean[k:2 * k], se[k:2 * k]
    v_a, i_a = mc_identity_verdict(D, D_se, alphas * e_step, z)
    names = ["mean_under_A", "mean_under_B", "var_under_A", "var_under_B"]
    pl_pred = np.array([eta / 2, -eta / 2, eta, eta])
    v_b, i_b = mc_identity_verdict(mean[2 * k:], se[2 * k:], pl_pred, z)
    v_c, _ = mc_bound_verdict(D0, D0_se, alphas * e_step, z, side="upper")
    verdict = combine([v_a, v_b, v_c])
    assumptions = [Assumption("alpha <= 2 (the Monte Carlo estimator is reliable only there)",
                              bool(alphas.max() <= 2.0), float(alphas.max()), "exact")]
    verdict = apply_assumptions(verdict, assumptions)
    rel_D = np.abs(D / (alphas * e_step) - 1)
    rel_pl = np.abs(mean[2 * k:] / pl_pred - 1)
    e_q0 = P.secldp_rdp_step(n, f, 0, s_cor2, s_ind2, C)
    band = f"+-{z:.2f} SE over {B} batches of {N_b} samples"
    return result_for(
        ctx,
        _claim(A.RENYI_GAUSSIAN, r"D_\alpha(P_A\|P_B)=\frac{\alpha}{2}(2C)^2 e_i^\top\Sigma^{-1}e_i"
                                 r"=\alpha\,\varepsilon_{\mathrm{step}}"), verdict,
        observed={"alpha": alphas, "D_alpha": D, "D_alpha_se": D_se, "D_alpha_q0": D0, "D_alpha_q0_se": D0_se,
                  "privacy_loss": {nm: {"value": float(mean[2 * k + j]), "se": float(se[2 * k + j])}
                                   for j, nm in enumerate(names)},
                  "rel_error_D": rel_D, "rel_error_privacy_loss": rel_pl,
                  "tolerances_met": {"D_within_3pct": bool(np.all(rel_D <= 0.03)),
                                          "moments_within_2pct": bool(np.all(rel_pl <= 0.02))},
                  "batches": B, "samples_per_batch": N_b,
                  "setting": {"n": n, "f": f, "q": q, "sigma_cor2": s_cor2, "sigma_ind2": s_ind2, "C": C}},
        predicted={"eps_step": e_step, "alpha_eps_step": alphas * e_step, "eta": eta,
                   "privacy_loss": dict(zip(names, pl_pred.tolist())), "eps_step_q0": e_q0},
        fit={"z": z, "D_alpha": i_a, "privacy_loss": i_b, "fewer_secrets": v_c.value},
        explanation=(f"The server's simulated view of the honest rows for two adjacent inputs gave Rényi divergences "
                     f"{', '.join(f'{x:.4f}' for x in D)} at alpha = {', '.join(f'{a:g}' for a in alphas)}, against "
                     f"alpha eps_step = {', '.join(f'{a * e_step:.4f}' for a in alphas)} from Lemma A.4 (largest relative "
                     f"gap {rel_D.max():.1%}). The privacy loss had mean {mean[2 * k + 1]:.4f} and variance "
                     f"{mean[2 * k + 3]:.4f} under P_B (predicted {-eta / 2:.4f} and {eta:.4f}); revealing fewer secrets "
                     "than accounted for only lowers the divergence."),
        assumptions=assumptions,
        figure=figspec.figure(figspec.panel(
            f"Rényi divergence of the server's view (n = {n}, f = {f})", "alpha (Rényi order)", "D_alpha(P_A || P_B)",
            [_ci_series(f"Monte Carlo, q = {q} colluders", alphas, D, D_se, z, band),
             figspec.line(f"accountant alpha eps_step (q = {q})", alphas, alphas * e_step, "bound"),
             _ci_series("Monte Carlo, q' = 0 (fewer secrets revealed)", alphas, D0, D0_se, z, band),
             figspec.line("alpha eps_step (q = 0)", alphas, alphas * e_q0, "reference")], "linear", "linear")),
        arrays={"batch_statistics": Y},
    )



# =====================================================================================================
# C7: Theorem 4.1's condition implies eps; the experiments' eps lie outside its range (a remark)
# =====================================================================================================
C7_TITLE = "Theorem 4.1: on the noise boundary the accountant's eps* <= eps^2/(8L) + eps/sqrt(2) <= eps"


def _random_theorem_instance(rng: np.random.Generator) -> dict:
    n = int(rng.integers(3, 201))
    f = int(rng.integers(0, (n - 1) // 2 + 1))
    q = int(rng.integers(0, f + 1))
    u = rng.random()
    if u < 0.1 and q < f:
        ratio = math.inf  # sigma_ind = 0
    elif u < 0.2:
        ratio = 0.0  # LDP-like: sigma_cor = 0
    else:
        ratio = float(10 ** rng.uniform(-2, 2))
    delta = float(10 ** rng.uniform(-10, -2))
    L = -math.log(delta)
    return {"n": n, "f": f, "q": q, "ratio": ratio, "T": int(round(10 ** rng.uniform(0, 4))), "delta": delta,
            "epsilon": float(rng.uniform(0.02, 0.999) * L), "C": float(10 ** rng.uniform(-1, 1))}


def experiments_outside_theorem41() -> tuple[list[dict], str]:
    """docs/papers/allouah2025.md §7 item 3: every experimental eps exceeds log(1/delta); Corollary 4.1's noise then
    misses it. A remark: the paper measures its budgets with Opacus and does not rest them on Theorem 4.1."""
    rows = []
    for b in A.EXPERIMENT_BUDGETS:
        s2 = P.corollary41_noise(b.n, b.f, b.epsilon, b.T, b.delta, b.C, enforce_range=False)
        acc = P.account("secldp", b.n, b.f, b.f, s2, s2, b.C, b.T, b.delta)
        rows.append({"dataset": b.dataset, "n": b.n, "f": b.f, "reported_epsilon": b.epsilon, "delta": b.delta,
                     "log_1_over_delta": P.log_inv_delta(b.delta), "corollary_sigma2": s2,
                     "achieved_eps_mironov": acc.mironov.epsilon, "achieved_eps_opacus_grid": acc.grid.epsilon,
                     "source": b.source})
    L = rows[0]["log_1_over_delta"]
    reported = ", ".join(f"{r['reported_epsilon']:g}" for r in rows)
    mironov = ", ".join(f"{r['achieved_eps_mironov']:.4f}" for r in rows)
    grid = ", ".join(f"{r['achieved_eps_opacus_grid']:.4f}" for r in rows)
    text = (f"Remark (not an erratum): section 5 estimates its budgets with Opacus (line 225, 'To estimate the privacy "
            f"budgets achieved at the end of training, we use Opacus') and never claims Theorem 4.1's condition covers "
            f"its experiments. Every budget it reports ({reported} at delta = 1e-4, "
            f"and {A.EXPERIMENT2_EPSILON:g} in section 5.2) exceeds log(1/delta) = {L:.2f}, outside Theorem 4.1's "
            f"range eps < log(1/delta). At those budgets Corollary 4.1's noise gives, with q = f, eps* = {mironov} "
            f"(Mironov) and {grid} (Opacus grid), each above the reported budget: the theorem's noise condition "
            f"does not "
            f"describe the experiments, whose noise levels are not reported.")
    return rows, text


def _corollary_panel(rows: list[dict]) -> dict:
    """eps achieved by Corollary 4.1's noise against the eps it was set for (MNIST setting), with the experiments."""
    b = A.EXPERIMENT_BUDGETS[0]
    targets = np.linspace(0.5, 45.0, 60)
    accs = [P.account("secldp", b.n, b.f, b.f, s2, s2, b.C, b.T, b.delta)
            for s2 in (P.corollary41_noise(b.n, b.f, e, b.T, b.delta, b.C, enforce_range=False) for e in targets)]
    L = P.log_inv_delta(b.delta)
    return figspec.panel(
        f"Corollary 4.1's noise (n = {b.n}, f = q = {b.f}, C = {b.C:g}, T = {b.T}, delta = {b.delta:g}); "
        f"the theorem covers eps < {L:.2f}", "eps the noise is set for", "eps achieved",
        [figspec.line("Mironov eps*", targets, [a.mironov.epsilon for a in accs], "bound"),
         figspec.line("Opacus grid", targets, [a.grid.epsilon for a in accs], "bound"),
         figspec.line("achieved = target", targets, targets, "reference"),
         figspec.line("the paper's experiments (own settings, Mironov)", [r["reported_epsilon"] for r in rows], [r["achieved_eps_mironov"] for r in rows], "observed")],
        "linear", "linear")


@check("allouah2025.c07", C7_TITLE, "privacy", "holds", statements=("Theorem 4.1",))
def c07_theorem_condition(ctx: Context, *, required_fn: Callable[..., float] = P.theorem41_required_sigma_eff2) -> Result:
    """Claim 7: 1000 random (n, f, q, noise shape, T, delta, eps < log(1/delta)) placed on the boundary
    sigma_eff^2 = R; the accountant's Mironov-optimal eps* must be <= eps and <= eps^2/(8L) + eps/sqrt(2)."""
    rng = ctx.numpy_rng("c07/instances")
    count = ctx.pick(1000, 10000)
    eps_star, eps_target, proof_bound, grid_eps, grid_edge, x_ratio, deltas = [], [], [], [], [], [], []
    held = 0
    for _ in range(count):
        s = _random_theorem_instance(rng)
        R = required_fn(s["epsilon"], s["T"], s["delta"], s["C"])
        mech = "secldp"
        c2, i2 = P.scale_noise_to_sigma_eff2(R, mech, s["n"], s["f"], s["q"], P.noise_shape(mech, s["ratio"]))
        # the condition as stated by required_fn (the thing under test), met on the boundary up to rounding
        held += P.secldp_sigma_eff2(s["n"], s["f"], s["q"], c2, i2) >= R * (1 - 1e-12)
        acc = P.account(mech, s["n"], s["f"], s["q"], c2, i2, s["C"], s["T"], s["delta"])
        eps_star.append(acc.mironov.epsilon)
        eps_target.append(s["epsilon"])
        proof_bound.append(P.theorem41_epsilon_bound(s["epsilon"], s["delta"]))
        grid_eps.append(acc.grid.epsilon)
        grid_edge.append(acc.grid.on_grid_edge)
        x_ratio.append(s["epsilon"] / -math.log(s["delta"]))
        deltas.append(s["delta"])
    eps_star, eps_target, proof_bound = map(np.array, (eps_star, eps_target, proof_bound))
    grid_eps, grid_edge, x_ratio = np.array(grid_eps), np.array(grid_edge), np.array(x_ratio)
    v_eps, i_eps = deterministic_verdict(eps_star, eps_target, rtol=1e-12)
    # the proof's bound as a Bound at each instance's (eps, delta): the statement's card sees both move
    v_proof, i_proof = deterministic_verdict(eps_star, A.THM_4_1_EPS_BOUND, rtol=1e-12,
                                             at={"epsilon": eps_target, "delta": np.array(deltas)})
    inside = ~grid_edge
    v_grid, i_grid = deterministic_verdict(grid_eps[inside], eps_star[inside], rtol=1e-12)
    verdict = combine([v_eps, v_proof, v_grid])
    assumptions = [Assumption("every sampled eps lies in (0, log(1/delta))", bool(np.all(x_ratio < 1)), float(x_ratio.max()),
                              "exact", "largest eps/log(1/delta) sampled"),
                   Assumption("the sampled noise meets the condition (on its boundary)", held == count, float(held), "exact",
                              f"{held} of {count} instances")]
    verdict = apply_assumptions(verdict, assumptions)
    rows, finding = experiments_outside_theorem41()
    finding = remark(finding)
    ratio = eps_star / eps_target
    order = np.argsort(x_ratio)
    pick = order[np.linspace(0, count - 1, min(count, 120)).astype(int)]
    xs = np.linspace(0.02, 0.999, 60)
    return result_for(
        ctx, Claim(A.THM_4_1.statement, A.THM_4_1_LATEX, A.THM_4_1.source,
                                                      A.THM_4_1.typst),
        verdict,
        observed={"instances": count, "max_eps_star_over_eps": float(ratio.max()),
                  "min_eps_star_over_eps": float(ratio.min()),
                  "max_eps_star_over_proof_bound": i_proof["worst_ratio"],
                  "grid_optimum_on_edge": int(grid_edge.sum()),
                  "max_grid_over_mironov_inside_grid": i_grid["worst_ratio"] if inside.any() else None,
                  "experiments": rows},
        predicted={"eps_star_over_eps_range": [1 / math.sqrt(2), 1 / 8 + 1 / math.sqrt(2)],
                   "proof_bound": "eps^2/(8 log(1/delta)) + eps/sqrt(2)"},
        fit={"eps": i_eps, "proof_bound": i_proof, "grid_vs_mironov": i_grid},
        explanation=(f"For {count} random settings placed exactly on Theorem 4.1's boundary, the accountant's "
                     f"Mironov-optimal eps* stayed between {ratio.min():.3f} and {ratio.max():.3f} times the target eps, "
                     f"and equal (to rounding) to the proof's eps^2/(8L) + eps/sqrt(2). The Opacus-grid conversion was "
                     f"never larger where its optimum lay inside the grid ({int(grid_edge.sum())} instances sat on the "
                     "grid's edge and were not compared)."),
        assumptions=assumptions,
        figure=figspec.figure(
            figspec.panel(
                "Theorem 4.1 on its boundary", "eps / log(1/delta)", "eps* / eps",
                [figspec.line("accountant eps* / eps (sampled settings)", x_ratio[pick].tolist(), ratio[pick].tolist(), "observed"),
                 figspec.line("proof: x/8 + 1/sqrt(2)", xs, xs / 8 + 1 / math.sqrt(2), "bound"),
                 figspec.line("eps* = eps", xs, 1.0, "reference")], "linear", "linear"),
            _corollary_panel(rows)),
        finding=finding,
    )



# =====================================================================================================
# C8: special cases
# =====================================================================================================
C8_TITLE = "Special cases: q = f with s_ind = 0 gives no privacy (sum exposed); LDP; q < f with s_ind = 0 finite"


def _honest_sum_exposure(ctx: Context, n: int, f: int, q: int, s_cor: float, R: int, d: int, stream: str):
    """Simulate inputs x_i and sigma_ind = 0. Returns (server's de-noised honest sum - true sum) [R, d] and
    (sum of all n protocol-conformant messages - true sum of all inputs) [R, d]."""
    seeds = _seeds(ctx, stream, n)
    honest, _, colluders = _worker_sets(n, f, q)
    g = ctx.generator(stream + "/x")
    x = randn(R, n, d, generator=g, dtype=ctx.dtype, device=ctx.torch_device)
    memo = StreamMemo(seeds, [(i, j) for i in honest for j in colluders])  # the server's streams: drawn once
    msgs = x + correlated_noise(seeds, 0, R, d, s_cor, ctx.dtype, ctx.torch_device, memo)
    view = server_view(msgs, seeds, 0, honest, colluders, s_cor, memo)
    err_view = (view.sum(1) - x[:, honest].sum(1)).to(torch.float64)
    err_all = (msgs.sum(1) - x.sum(1)).to(torch.float64)
    return err_view.cpu().numpy(), err_all.cpu().numpy()


def _empirical_sigma_eff2(ctx: Context, n: int, f: int, q: int, c2: float, i2: float, N: int, d: int,
                          stream: str) -> float:
    """Variance of the GLS estimate of one honest input from the simulated de-noised view, 1/(Sigma^-1)_ii
    (the same for every honest row by symmetry, so averaged over the rows)."""
    S, _ = _view_moments(ctx, n, f, q, c2, i2, N, d, stream)
    return float(1.0 / np.mean(np.diag(np.linalg.inv(S))))


@check("allouah2025.c08", C8_TITLE, "privacy", "holds", statements=("Theorem 4.1", "Lemma A.4"))
def c08_special_cases(ctx: Context, *, sigma_eff2_fn: Callable[..., float] = P.secldp_sigma_eff2) -> Result:
    """Claim 8 (and docs/papers/allouah2025.md §3.2's table), n = 10, f = 3: (i) q = f, sigma_ind = 0 => sigma_eff^2 = 0, eps = inf, and in
    simulation the server recovers the honest sum exactly; (ii) LDP => sigma_eff^2 = sigma_ind^2; (iii) q < f,
    sigma_ind = 0 => sigma_eff^2 = (n-q) s_cor^2 (f-q)/(f-q+1), finite eps, and the honest sum keeps variance
    (n-f)(f-q) s_cor^2; (iv) q = f general and f = q = 0 forms, and the CDP-like limit n sigma_ind^2."""
    n, f, C, T, delta, s_cor = 10, 3, 1.0, 100, 1e-5, 1.0
    R, d = ctx.reps(2000, 10_000), 5
    tol = 1e-9 if ctx.dtype == torch.float64 else 1e-4
    parts, checks = [], {}

    def record(name, observed, expected, rtol=1e-12, atol=0.0):
        if np.all(np.asarray(expected, dtype=float) == 0.0):
            v, info = exact_zero_verdict(float(np.max(np.abs(observed))), atol)
        else:
            v, info = identity_verdict(observed, expected, rtol=rtol, atol=atol)
        parts.append(v)
        checks[name] = {"observed": observed, "expected": expected, "verdict": v.value, **info}

    # (i) q = f, sigma_ind = 0
    s2_qf = sigma_eff2_fn(n, f, f, s_cor**2, 0.0)
    acc_qf = P.account_sigma_eff2(s2_qf, C, T, delta)
    record("q=f, s_ind=0: sigma_eff^2", s2_qf, 0.0, atol=0.0)
    record("q=f, s_ind=0: eps is infinite (1 = yes)", float(math.isinf(acc_qf.mironov.epsilon)
                                                          and math.isinf(acc_qf.grid.epsilon)), 1.0)
    err_view, err_all = _honest_sum_exposure(ctx, n, f, f, s_cor, R, d, "c08/qf")
    scale = s_cor * n
    record("q=f, s_ind=0: server's honest sum minus the true sum (max, / s_cor n)", float(np.abs(err_view).max()) / scale,
           0.0, atol=tol)
    # (ii) LDP
    rng = ctx.numpy_rng("c08/ldp")
    ldp_obs, ldp_exp = [], []
    for _ in range(50):
        nn = int(rng.integers(3, 60))
        ff = int(rng.integers(0, (nn - 1) // 2 + 1))
        qq = int(rng.integers(0, ff + 1))
        i2 = float(rng.uniform(0.01, 5.0))
        ldp_obs.append(sigma_eff2_fn(nn, ff, qq, 0.0, i2))
        ldp_exp.append(i2)
    record("LDP (s_cor = 0): sigma_eff^2 = s_ind^2 (50 random settings)", ldp_obs, ldp_exp)
    # (iii) q < f, sigma_ind = 0
    q = 1
    s2_q1 = sigma_eff2_fn(n, f, q, s_cor**2, 0.0)
    record("q<f, s_ind=0: sigma_eff^2 = (n-q) s_cor^2 (f-q)/(f-q+1)", s2_q1, (n - q) * s_cor**2 * (f - q) / (f - q + 1))
    acc_q1 = P.account_sigma_eff2(s2_q1, C, T, delta)
    record("q<f, s_ind=0: eps is finite (1 = yes)", float(math.isfinite(acc_q1.mironov.epsilon)), 1.0)
    err_view1, err_all1 = _honest_sum_exposure(ctx, n, f, q, s_cor, R, d, "c08/q1")
    resid = err_view1.ravel()
    pred_var = (n - f) * (f - q) * s_cor**2
    est_var = float(np.mean(resid**2))
    se_var = float(np.std(resid**2, ddof=1) / math.sqrt(resid.size))
    v_res, i_res = mc_identity_verdict(est_var, se_var, pred_var, 3.0)
    parts.append(v_res)
    checks["q<f, s_ind=0: honest-sum residual variance (n-f)(f-q) s_cor^2"] = {
        "observed": est_var, "se": se_var, "expected": pred_var, "verdict": v_res.value, **i_res}
    # (iv) q = f general; f = q = 0 and its CDP-like limit
    c2, i2 = 0.8, 0.3
    record("q=f: ((n-f) s_cor^2 + s_ind^2) s_ind^2/(s_ind^2 + s_cor^2)", sigma_eff2_fn(n, f, f, c2, i2),
           ((n - f) * c2 + i2) * i2 / (i2 + c2))
    record("f=q=0: (n s_cor^2 + s_ind^2) s_ind^2/(s_ind^2 + s_cor^2)", sigma_eff2_fn(n, 0, 0, c2, i2),
           (n * c2 + i2) * i2 / (i2 + c2))
    big = 1e8
    record("f=q=0, s_cor^2 = 1e8: -> n s_ind^2 (CDP-like limit)", sigma_eff2_fn(n, 0, 0, big, i2), n * i2, rtol=1e-6)
    verdict = combine(parts)
    exposed_all = float(np.abs(err_all1).max()) / scale
    finding = erratum(
        f"Section 4.1's q < f case holds only if the f - q non-colluding malicious workers keep their correlated "
        f"terms out of the server's view. The paper lets malicious workers 'send arbitrary messages' and 'need not "
        f"follow the prescribed protocol' (line 42), so they may also follow it: with sigma_ind = 0, "
        f"q = {q} < f = {f}, "
        f"the sum of all n conformant messages equals the sum of the inputs (error {exposed_all:.1e} relative to "
        f"s_cor n), and the honest sum is exposed while the accountant reports finite eps.",
        paper_says=("Section 4.1, line 145: 'if at least one malicious worker j does not collude with the server "
                    "(i.e., "
                    "j retains its shared secrets and q < f), the independent noise term can be entirely removed "
                    "(sigma_ind = 0) ... The key insight is that each honest worker shares correlated noise with all "
                    "other workers, including non-colluding malicious worker j. As a result, the server cannot cancel "
                    "the correlated noise associated with worker j's hidden secrets.' Lemma A.4's sigma_eff^2 = "
                    f"(n-q) s_cor^2 (f-q)/(f-q+1) > 0 at sigma_ind = 0 (here {s2_q1:.4f})."),
        correction=("The guarantee at sigma_ind = 0, q < f needs the hidden assumption that the f - q non-colluding "
                    "malicious workers never send messages containing their correlated terms. Since at most f workers "
                    "are malicious and they may behave arbitrarily (line 42), including conformantly, the worst case "
                    "over their behaviour is sigma_eff^2 = 0 and eps = inf; a guarantee for every q <= f needs "
                    "sigma_ind > 0 (the q = f case of Theorem 4.1). The toolkit accounts with q = f by default."),
        witness=(f"n = {n}, f = {f}, q = {q}, sigma_cor = {s_cor:g}, sigma_ind = 0, d = {d}, {R} replicates: "
                 f"max |sum of all messages - sum of all inputs| / (s_cor n) = {exposed_all:.1e}; the server, "
                 "knowing the q colluders' seeds and (DP's worst case) the other workers' inputs, subtracts them and "
                 "reads the honest sum exactly."),
        second_argument=("Exact algebra: v^(ij) = -v^(ji) (line 108), so sum_i sum_{j != i} v^(ij) = 0 identically; "
                         "with sigma_ind = 0 the sum of all n conformant messages is sum_i g^(i) with no noise left, a "
                         "deterministic function of the inputs, so changing one honest input shifts it by a constant "
                         "and the Renyi divergence between neighbouring views is infinite."),
    )
    # (v) the GLS attacker (docs/papers/allouah2025.md §3.7 recipe 5): 1 / max_i (Sigma_hat^-1)_ii from simulated views = sigma_eff^2
    regimes = [("q = f, s_ind^2 = 1", f, f, 1.0), ("q = 1 < f, s_ind = 0", f, 1, 0.0), ("f = q = 0, s_ind^2 = 1", 0, 0, 1.0)]
    sim_c2 = np.array([0.1, 1.0, 10.0])
    N_gls = ctx.reps(4000, 20_000)
    gls = {name: np.array([_empirical_sigma_eff2(ctx, n, ff, qq, float(c2), i2, N_gls, d, f"c08/gls/{name}/{c2}")
                           for c2 in sim_c2]) for name, ff, qq, i2 in regimes}
    gls_pred = {name: np.array([sigma_eff2_fn(n, ff, qq, float(c2), i2) for c2 in sim_c2])
                for name, ff, qq, i2 in regimes}
    gls_key = "GLS attacker's variance from simulated views = sigma_eff^2 (9 points, 5%)"
    record(gls_key,
           np.concatenate(list(gls.values())), np.concatenate(list(gls_pred.values())), rtol=0.05)
    sc2 = np.logspace(-2, 3, 40)
    series = []
    for name, ff, qq, i2 in regimes:
        series.append(figspec.line(f"sigma_eff^2, {name}", sc2, [P.secldp_sigma_eff2(n, ff, qq, x, i2) for x in sc2],
                                   "bound"))
        series.append(figspec.line(f"simulated GLS attacker, {name}", sim_c2.tolist(), gls[name].tolist(), "observed"))
    series.append(figspec.line("LDP: s_ind^2 = 1", sc2, P.ldp_sigma_eff2(1.0), "reference"))
    series.append(figspec.line("CDP (q = f): (n-f) s_ind^2", sc2, P.cdp_sigma_eff2(n, f, f, 1.0, 1.0), "reference"))
    return result_for(
        ctx, _claim(A.SIGMA_EFF2, r"\sigma_{\mathrm{eff}}^2=\frac{ab}{b+\sigma_{\mathrm{cor}}^2}",
                                                       source=A.SIGMA_EFF2.source + "; section 4.1 text"),
        verdict,
        observed={"checks": checks, "replicates": R, "d": d, "all_messages_sum_error_q1": exposed_all},
        predicted={"n": n, "f": f, "sigma_cor": s_cor, "C": C, "T": T, "delta": delta},
        fit={name: c["verdict"] for name, c in checks.items()},
        explanation=(f"With every malicious worker colluding (q = f) and no independent noise, sigma_eff^2 = 0, the "
                     f"accountant returns eps = inf, and the simulated server recovered the honest sum to "
                     f"{float(np.abs(err_view).max()):.1e}. Without correlated noise the mechanism is plain LDP "
                     f"(sigma_eff^2 = sigma_ind^2); with q < f and no independent noise eps is finite because the "
                     f"honest sum keeps the terms shared with non-colluding workers (variance {est_var:.3f}, predicted "
                     f"{pred_var:g}). A GLS attacker on the simulated views reached sigma_eff^2 within "
                     f"{checks[gls_key]['max_rel_error']:.1%} in every regime."),
        assumptions=[Assumption("non-colluding malicious workers act as noise sinks (Lemma A.4's model)", True, None,
                                "exact", "the model the claim is stated in; see the finding for what happens otherwise")],
        figure=figspec.figure(figspec.panel(
            f"Effective noise of one step (n = {n}, f = {f})", "s_cor^2", "sigma_eff^2",
            series, "log", "log")),
        finding=finding,
    )



# =====================================================================================================
# C9: n-fold noise saving
# =====================================================================================================
C9_TITLE = "n-fold saving: least equal noise under q = f is 2R/(n-f+1) vs R for LDP, ratio (n-f+1)/2"


@check("allouah2025.c09", C9_TITLE, "privacy", "holds", statements=("Theorem 4.1",))
def c09_noise_saving(ctx: Context, *, closed_form_fn: Callable[..., float] | None = None) -> Result:
    """Claim 9 at eps = 1, delta = 1e-5, T = 100, C = 1, f = n/10, n in {10, ..., 1000}: the least equal noise
    found numerically (root of sigma_eff^2(s^2, s^2) = R) equals 2R/(n-f+1) to 1e-9; the ratio to LDP's R is
    (n-f+1)/2 with log-log slope 1 in n; the accountant's grid calibration gives the same ratio."""
    closed_form_fn = closed_form_fn or (lambda n, f, eps, T, delta, C: P.theorem41_min_equal_noise(n, f, f, eps, T, delta, C))
    eps, delta, T, C = 1.0, 1e-5, 100, 1.0
    ns = np.array([10, 20, 50, 100, 200, 500, 1000])
    fs = ns // 10
    R = P.theorem41_required_sigma_eff2(eps, T, delta, C)
    numeric = np.array([P.bisect_increasing(lambda s2, n=int(n), f=int(f): P.secldp_sigma_eff2(n, f, f, s2, s2), R,
                                            1e-12 * R, 10 * R) for n, f in zip(ns, fs)])
    ldp_numeric = P.bisect_increasing(lambda s2: P.ldp_sigma_eff2(s2), R, 1e-12 * R, 10 * R)
    closed = np.array([closed_form_fn(int(n), int(f), eps, T, delta, C) for n, f in zip(ns, fs)])
    saving_pred = np.array([float(A.NOISE_SAVING(n=int(n), f=int(f))) for n, f in zip(ns, fs)])
    saving_obs = ldp_numeric / numeric
    v_min, i_min = identity_verdict(numeric, closed, rtol=1e-9)
    v_ldp, i_ldp = identity_verdict(ldp_numeric, R, rtol=1e-9)
    v_ratio, i_ratio = identity_verdict(saving_obs, saving_pred, rtol=1e-9)
    v_rate, i_rate = rate_verdict(ns, saving_obs[None, :], power_law("n", 1.0, "tight", "Theta(n) saving"), param="n",
                                  tol=0.05, deterministic=True)  # exact numbers from the accountant
    grid_sec = np.array([P.calibrate("secldp", int(n), int(f), int(f), eps, T, delta, C).sigma_ind2 for n, f in zip(ns, fs)])
    grid_ldp = P.calibrate("ldp", 10, 1, 1, eps, T, delta, C).sigma_ind2
    v_grid, i_grid = identity_verdict(grid_ldp / grid_sec, saving_pred, rtol=1e-9)
    achieved = np.array([P.account("secldp", int(n), int(f), int(f), s, s, C, T, delta).mironov.epsilon
                         for n, f, s in zip(ns, fs, numeric)])
    v_ach, i_ach = deterministic_verdict(achieved, eps, rtol=1e-9)
    verdict = combine([v_min, v_ldp, v_ratio, v_rate, v_grid, v_ach])
    cor = np.array([P.corollary41_noise(int(n), int(f), eps, T, delta, C) for n, f in zip(ns, fs)])
    exact_min_spec = float(A.COROLLARY_EXACT_MINIMUM[0])
    return result_for(
        ctx, _claim(A.MIN_EQUAL_NOISE_QF, r"s^2_{\min}=\frac{2R}{n-f+1},\ "
                                                       r"R=\frac{16C^2T\log(1/\delta)}{\varepsilon^2}"),
        verdict,
        observed={"n": ns, "f": fs, "numeric_min_equal_noise": numeric, "ldp_noise": ldp_numeric,
                  "saving": saving_obs, "grid_calibrated_saving": grid_ldp / grid_sec,
                  "achieved_eps_at_minimum": achieved, "slope": i_rate["slope"]},
        predicted={"R": R, "closed_form_min": closed, "saving": saving_pred, "corollary41_noise": cor,
                   "exact_minimum_n100_f10": exact_min_spec},
        fit={"min_noise": i_min, "ldp": i_ldp, "saving": i_ratio, "rate": i_rate, "grid": i_grid, "achieved": i_ach},
        explanation=(f"Solving Theorem 4.1's condition numerically for equal noise with all f = n/10 malicious workers "
                     f"colluding reproduced 2R/(n-f+1) (worst relative error {i_min['max_rel_error']:.1e}); LDP needs "
                     f"R = {R:.1f}. The saving grew from {saving_obs[0]:.1f} at n = {ns[0]} to {saving_obs[-1]:.1f} at "
                     f"n = {ns[-1]} (log-log slope {i_rate['slope']:.3f}): the noise each worker adds falls like 1/n."),
        assumptions=[Assumption("eps < log(1/delta)", eps < P.log_inv_delta(delta), eps, "exact")],
        figure=figspec.figure(figspec.panel(
            "Noise saving of SecLDP over LDP (q = f = n/10, equal noise)", "n (workers)", "LDP noise / SecLDP noise",
            [figspec.line("numerical minimum (Theorem 4.1 condition)", ns.tolist(), saving_obs.tolist(), "observed"),
             figspec.line("(n-f+1)/2", ns, saving_pred, "bound"),
             figspec.line("Corollary 4.1's noise: R/sigma^2_Cor", ns, R / cor, "reference")])),
    )



# =====================================================================================================
# C10: T-composition
# =====================================================================================================
C10_TITLE = "T-composition: eps(T) = T e + 2 sqrt(T e log(1/delta)); Opacus conversion <= Mironov's on a grid"


def composed_mironov_epsilon(rdp_step_curve: Callable[[np.ndarray], np.ndarray], T: int, delta: float) -> tuple[float, float]:
    """eps after T steps by literally adding T per-step RDP curves (Lemma A.2) on a fine order grid and
    minimising Lemma A.3 over it, then refining with a bounded scalar search. Returns (eps, alpha)."""
    from scipy.optimize import minimize_scalar

    L = P.log_inv_delta(delta)
    orders = 1.0 + np.logspace(-4, 4, 801)
    total = np.zeros_like(orders)
    for _ in range(T):
        total = total + rdp_step_curve(orders)
    k = int(np.argmin(total + L / (orders - 1.0)))
    lo, hi = orders[max(k - 1, 0)], orders[min(k + 1, orders.size - 1)]
    per_order = lambda a: float(rdp_step_curve(np.array([a]))[0]) * T + L / (a - 1.0)  # noqa: E731
    res = minimize_scalar(per_order, bounds=(lo, hi), method="bounded", options={"xatol": 1e-12})
    return float(res.fun), float(res.x)


@check("allouah2025.c10", C10_TITLE, "privacy", "holds", space=S.C10_SPACE, objective=S.C10_OBJECTIVE,
       statements=("Lemma A.2", "Lemma A.3"))
def c10_composition(ctx: Context, *, eps_fn: Callable[..., tuple[float, float]] = composed_mironov_epsilon) -> Result:
    """Claim 10 at n = 100, f = q = 10, sigma_cor^2 = sigma_ind^2 = 4, C = 1, delta = 1e-5, T = 1..1000: the
    accountant's eps(T) (T curves added, Lemma A.3 minimised) equals T e + 2 sqrt(T e L) to 1e-8, the doubling
    ratios eps(2T)/eps(T) match the closed form and lie in [sqrt 2, 2], and the Opacus-grid eps is <= the
    Mironov eps wherever the grid optimum is not on the grid's edge. Also CDP <= SecLDP <= LDP at each T."""
    n, f, q, c2, i2, C, delta = 100, 10, 10, 4.0, 4.0, 1.0, 1e-5
    Ts = np.unique(np.round(np.logspace(0, 3, ctx.pick(16, 31))).astype(int))
    L = P.log_inv_delta(delta)
    mechs = ("secldp", "ldp", "cdp")
    e = {m: P.mechanism_rdp_step(m, n, f, q, c2, i2, C) for m in mechs}
    closed = {m: np.asarray(A.COMPOSITION(T=Ts, e=e[m], delta=delta), dtype=float) for m in mechs}
    observed = {m: np.array([eps_fn(lambda a, m=m: a * e[m], int(T), delta)[0] for T in Ts]) for m in mechs}
    accounts = {m: [P.account(m, n, f, q, c2, i2, C, int(T), delta) for T in Ts] for m in mechs}
    grid = {m: np.array([a.grid.epsilon for a in accounts[m]]) for m in mechs}
    edge = {m: np.array([a.grid.on_grid_edge for a in accounts[m]]) for m in mechs}
    mironov = {m: np.array([a.mironov.epsilon for a in accounts[m]]) for m in mechs}
    orders = np.asarray(P.OPACUS_ORDERS)
    mironov_grid = {m: np.array([P.epsilon_mironov_grid(orders, orders * a.rdp_total_slope, delta).epsilon
                                 for a in accounts[m]]) for m in mechs}
    parts, info = [], {}
    for m in mechs:
        v, info[f"{m}_composition"] = identity_verdict(observed[m], closed[m], rtol=1e-8)
        parts.append(v)
        v, info[f"{m}_accountant_closed_form"] = identity_verdict(mironov[m], closed[m], rtol=1e-12)
        parts.append(v)
        v, info[f"{m}_balle_le_mironov_same_grid"] = deterministic_verdict(grid[m], mironov_grid[m], rtol=1e-12)
        parts.append(v)
    coarse = {m: (grid[m] > mironov[m]) & ~edge[m] for m in mechs}
    n_coarse = int(sum(c.sum() for c in coarse.values()))
    worst_coarse = max((float((grid[m] / mironov[m])[coarse[m]].max()) for m in mechs if coarse[m].any()), default=None)
    doubling_obs = np.array([eps_fn(lambda a: a * e["secldp"], 2 * int(T), delta)[0] for T in Ts]) / observed["secldp"]
    doubling_pred = np.asarray(A.COMPOSITION(T=2 * Ts, e=e["secldp"], delta=delta), dtype=float) / closed["secldp"]
    v, info["doubling"] = identity_verdict(doubling_obs, doubling_pred, rtol=1e-8)
    parts.append(v)
    v, info["doubling_range"] = deterministic_verdict(np.concatenate([doubling_obs, -doubling_obs]),
                                                            np.concatenate([np.full(Ts.size, 2.0),
                                                                            np.full(Ts.size, -math.sqrt(2))]),
                                                            rtol=1e-12)
    parts.append(v)
    v, info["order_cdp_secldp_ldp"] = deterministic_verdict(
        np.concatenate([mironov["cdp"], mironov["secldp"]]), np.concatenate([mironov["secldp"], mironov["ldp"]]))
    parts.append(v)
    verdict = combine(parts)
    names = {"secldp": "SecLDP (q = f)", "ldp": "LDP", "cdp": "CDP"}
    series = []
    for m in mechs:
        series.append(figspec.line(f"{names[m]}, Opacus grid", Ts.tolist(), grid[m].tolist(), "observed"))
        series.append(figspec.line(f"{names[m]}, Mironov at alpha*", Ts, closed[m], "bound"))
    return result_for(
        ctx, _claim(A.COMPOSITION, A.EPS_STAR_LATEX), verdict,
        observed={"T": Ts, "eps_composed": observed, "eps_opacus_grid": grid, "eps_mironov_same_grid": mironov_grid,
                  "grid_optimum_on_edge": edge,
                  "opacus_grid_above_mironov_optimum": {"count": n_coarse, "worst_ratio": worst_coarse,
                                                        "where": {m: Ts[coarse[m]] for m in mechs}},
                  "doubling_ratio": doubling_obs, "alpha_star_secldp": [a.mironov.alpha for a in accounts["secldp"]]},
        predicted={"eps_closed_form": closed, "doubling_ratio": doubling_pred, "e_per_step": e, "log_1_over_delta": L,
                   "setting": {"n": n, "f": f, "q": q, "sigma_cor2": c2, "sigma_ind2": i2, "C": C, "delta": delta}},
        fit=info,
        explanation=(f"Adding T per-step RDP curves and minimising Mironov's conversion reproduced T e + 2 sqrt(T e L) "
                     f"for all three mechanisms from T = 1 to {Ts[-1]}; eps(2T)/eps(T) rose from "
                     f"{doubling_obs[0]:.3f} toward 2 as the linear term takes over. At the same per-worker noise SecLDP "
                     f"(eps = {mironov['secldp'][-1]:.2f} at T = {Ts[-1]}) sits between CDP ({mironov['cdp'][-1]:.2f}) and "
                     f"LDP ({mironov['ldp'][-1]:.1f}). On the same order grid Opacus's conversion is never worse than "
                     f"Mironov's; against Mironov at the exact optimal order it was worse in {n_coarse} case(s) "
                     f"(worst ratio {worst_coarse or 1:.4f}), where alpha* falls between coarse grid points near 1."),
        assumptions=[],
        figure=figspec.figure(
            figspec.panel(f"Privacy spend vs T (n = {n}, f = q = {f}, s_cor^2 = s_ind^2 = {c2:g}, delta = {delta:g})",
                          "T (steps)", "epsilon", series),
            figspec.panel("Doubling ratio of SecLDP's eps", "T (steps)", "eps(2T) / eps(T)",
                          [figspec.line("accountant", Ts.tolist(), doubling_obs.tolist(), "observed"),
                           figspec.line("sqrt(2): pure sqrt(T) regime", Ts, math.sqrt(2), "reference"),
                           figspec.line("2: linear regime", Ts, 2.0, "reference")], "log", "linear")),
    )

