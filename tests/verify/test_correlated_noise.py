"""verify/correlated_noise.py: the shared-seed construction of spec allouah2025 2.2."""
from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from analytic import privacy as P
from verify.correlated_noise import (
    SharedSeeds,
    colluder_known_terms,
    correlated_noise,
    gaussian_llr,
    independent_noise,
    pair_noise,
    pair_stream,
    protocol_noise,
    renyi_divergence_mc,
    renyi_divergence_mc_se,
    server_view,
    worker_correlated_noise,
)
from analytic.errors import InputError


class OrderedKDF(SharedSeeds):
    """A planted bug: the secret depends on the order of (i, j), so the two endpoints disagree."""

    def pair_seed(self, i: int, j: int) -> int:
        return int(np.random.SeedSequence(entropy=self.master, spawn_key=(i, j)).generate_state(1, np.uint64)[0])


def test_secrets_are_symmetric_and_distinct():
    s = SharedSeeds(11, 6)
    assert s.pair_seed(1, 4) == s.pair_seed(4, 1)
    seeds = {s.pair_seed(i, j) for i, j in s.pairs()}
    assert len(seeds) == 15
    assert SharedSeeds(12, 6).pair_seed(1, 4) != s.pair_seed(1, 4)
    with pytest.raises(InputError, match="itself"):
        s.pair_seed(2, 2)
    with pytest.raises(InputError, match="worker"):
        s.pair_seed(0, 6)


def test_stream_is_a_pure_function_of_secret_and_step():
    a = pair_stream(123456789, 3, (4, 7))
    _ = pair_stream(123456789, 2, (4, 7))  # other calls in between change nothing
    b = pair_stream(123456789, 3, (4, 7))
    assert torch.equal(a, b) and a.dtype == torch.float64
    assert not torch.equal(a, pair_stream(123456789, 4, (4, 7)))
    assert not torch.equal(a, pair_stream(123456788, 3, (4, 7)))


def test_pairwise_terms_are_exact_negatives():
    s = SharedSeeds(5, 7)
    for i, j in [(0, 1), (2, 6), (5, 3)]:
        v_ij = pair_noise(s, i, j, 1, 3, 9, 0.8)
        v_ji = pair_noise(s, j, i, 1, 3, 9, 0.8)
        assert torch.equal(v_ij, -v_ji)
        assert not torch.all(v_ij == 0)


def test_each_worker_alone_reproduces_the_batched_noise_bit_for_bit():
    s = SharedSeeds(3, 9)
    batched = correlated_noise(s, 2, 5, 11, 1.7)
    own = torch.stack([worker_correlated_noise(s, i, 2, 5, 11, 1.7) for i in range(9)], 1)
    assert batched.shape == (5, 9, 11)
    assert torch.equal(batched, own)


@settings(max_examples=25, deadline=None)
@given(n=st.integers(2, 12), d=st.integers(1, 40), sigma=st.floats(0.01, 50.0), t=st.integers(0, 10_000),
       master=st.integers(0, 2**40))
def test_sum_over_all_workers_cancels(n, d, sigma, t, master):
    xi = correlated_noise(SharedSeeds(master, n), t, 3, d, sigma)
    assert float(xi.sum(1).abs().max()) <= 1e-12 * sigma * n
    assert float(xi.abs().max()) > 0


def test_planted_asymmetric_kdf_breaks_cancellation():
    bad = OrderedKDF(3, 5)
    own = torch.stack([worker_correlated_noise(bad, i, 0, 2, 4, 1.0) for i in range(5)], 1)
    assert float(own.sum(1).abs().max()) > 0.1


def test_protocol_noise_second_moments():
    """Var(xi_i) = (n-1) s_cor^2 + s_ind^2 and Cov = -s_cor^2 (spec 2.2), within 5 standard errors."""
    n, c, i = 5, 0.9, 0.4
    g = torch.Generator().manual_seed(0)
    xi = protocol_noise(SharedSeeds(1, n), 0, 40_000, 2, c, i, g)
    X = xi.permute(0, 2, 1).reshape(-1, n)
    S = (X.T @ X / X.shape[0]).numpy()
    var = (n - 1) * c**2 + i**2
    assert np.allclose(np.diag(S), var, atol=5 * var * math.sqrt(2 / X.shape[0]))
    off = S[~np.eye(n, dtype=bool)]
    assert np.allclose(off, -c**2, atol=5 * var / math.sqrt(X.shape[0]))


def test_independent_noise_shape_and_scale():
    g = torch.Generator().manual_seed(1)
    v = independent_noise(g, 1000, 4, 3, 2.0)
    assert v.shape == (1000, 4, 3) and abs(float(v.std()) - 2.0) < 0.1


def test_server_view_recovers_honest_sum_when_all_colluders_reveal_and_no_independent_noise():
    n, f = 8, 3
    s = SharedSeeds(9, n)
    x = torch.randn(6, n, 4, generator=torch.Generator().manual_seed(2), dtype=torch.float64)
    msgs = x + correlated_noise(s, 0, 6, 4, 2.0)
    honest, colluders = list(range(n - f)), list(range(n - f, n))
    view = server_view(msgs, s, 0, honest, colluders, 2.0)
    assert float((view.sum(1) - x[:, honest].sum(1)).abs().max()) < 1e-12
    # with fewer colluders the honest sum stays hidden
    partial = server_view(msgs, s, 0, honest, colluders[:1], 2.0)
    assert float((partial.sum(1) - x[:, honest].sum(1)).abs().max()) > 0.1


def test_server_view_matches_eq8_covariance():
    n, f, q, c2, i2 = 7, 3, 1, 0.6, 0.25
    s = SharedSeeds(4, n)
    xi = protocol_noise(s, 0, 30_000, 2, math.sqrt(c2), math.sqrt(i2), torch.Generator().manual_seed(3))
    honest = list(range(n - f))
    view = server_view(xi, s, 0, honest, [n - f + k for k in range(q)], math.sqrt(c2))
    X = view.permute(0, 2, 1).reshape(-1, n - f)
    S = (X.T @ X / X.shape[0]).numpy()
    Sigma = P.server_view_covariance(n, f, q, c2, i2)
    assert np.abs(S - Sigma).max() < 5 * Sigma[0, 0] * math.sqrt(2 / X.shape[0])


def test_colluders_must_be_malicious():
    s = SharedSeeds(1, 5)
    with pytest.raises(InputError, match="q"):
        server_view(torch.zeros(1, 5, 1, dtype=torch.float64), s, 0, [0, 1, 2], [2, 3], 1.0)
    assert colluder_known_terms(s, 0, [0], [], 2, 3, 1.0).abs().max() == 0


def test_negative_noise_is_refused():
    with pytest.raises(InputError, match="sigma_ind"):
        protocol_noise(SharedSeeds(1, 3), 0, 2, 2, 1.0, -1.0, torch.Generator())


def test_llr_and_renyi_estimator_on_a_known_gaussian():
    """D_alpha(N(mu_a, S) || N(mu_b, S)) = alpha/2 eta; the LLR is N(-eta/2, eta) under P_B."""
    g = torch.Generator().manual_seed(5)
    S = torch.tensor([[2.0, -0.5], [-0.5, 1.0]], dtype=torch.float64)
    mu_a, mu_b = torch.tensor([0.6, 0.0], dtype=torch.float64), torch.zeros(2, dtype=torch.float64)
    eta = float(mu_a @ torch.linalg.solve(S, mu_a))
    Y = torch.randn(400_000, 2, generator=g, dtype=torch.float64) @ torch.linalg.cholesky(S).T + mu_b
    llr = gaussian_llr(Y, mu_a, mu_b, S)
    assert abs(float(llr.mean()) + eta / 2) < 5 * math.sqrt(eta / Y.shape[0])
    assert abs(float(llr.var()) / eta - 1) < 0.02
    for alpha in (1.5, 2.0):
        D, se = renyi_divergence_mc(llr, alpha), renyi_divergence_mc_se(llr, alpha)
        assert abs(D - alpha * eta / 2) < 5 * se and se < 0.02 * alpha * eta / 2
    with pytest.raises(InputError, match="alpha"):
        renyi_divergence_mc(llr, 1.0)


def _previous_sums(seeds, t, R, d, s):
    """The accumulation before the in-place one: a fresh stream per pair, acc[i] += s z, acc[j] += -s z; each worker's
    own sum out += (sign s) z; the colluders' known terms the same way."""
    from verify.correlated_noise import pair_stream_numpy
    acc = np.zeros((seeds.n, R, d))
    own = np.zeros((seeds.n, R, d))
    if s != 0.0:
        for i, j in seeds.pairs():
            z = pair_stream_numpy(seeds.pair_seed(i, j), t, (R, d))
            acc[i] += s * z
            acc[j] += -s * z
        for i in range(seeds.n):
            for j in range(seeds.n):
                if j != i:
                    own[i] += ((1.0 if i < j else -1.0) * s) * pair_stream_numpy(seeds.pair_seed(i, j), t, (R, d))
    return acc.transpose(1, 0, 2), own.transpose(1, 0, 2)


@pytest.mark.parametrize("n, R, d, s", [(6, 5, 3, 0.7), (4, 1, 1, 1.0), (5, 3, 2, 2.5e-3), (3, 2, 4, 0.0),
                                        (2, 7, 1, -0.0)])
def test_in_place_accumulation_is_the_previous_sum_bit_for_bit(n, R, d, s):
    """The pair streams drawn into one buffer, scaled in place (s = 1 skips the product) and added or subtracted give
    the same bits as the fresh-array sums (sigma_cor = 0 and -0 included)."""
    from verify.correlated_noise import pair_stream_numpy
    seeds = SharedSeeds(master=17, n=n)
    acc, own = _previous_sums(seeds, 5, R, d, s)
    assert np.array_equal(correlated_noise(seeds, 5, R, d, s).numpy(), acc)
    for i in range(n):
        assert np.array_equal(worker_correlated_noise(seeds, i, 5, R, d, s).numpy(), own[:, i])
    known = colluder_known_terms(seeds, 5, [0, 1], [n - 1], R, d, s).numpy()
    for r, i in enumerate([0, 1]):
        ref = np.zeros((R, d))
        if s != 0.0 and i != n - 1:
            ref += ((1.0 if i < n - 1 else -1.0) * s) * pair_stream_numpy(seeds.pair_seed(i, n - 1), 5, (R, d))
        assert np.array_equal(known[:, r], ref)


def test_stream_memo_gives_the_server_view_of_fresh_streams_bit_for_bit():
    """server_view with the streams kept while drawing (StreamMemo) equals the view that regenerates them; only the
    named pairs are kept, and a memo of other pairs (or none) changes nothing."""
    from verify.correlated_noise import StreamMemo
    n, R, d, s = 7, 4, 3, 0.8
    seeds = SharedSeeds(master=5, n=n)
    honest, colluders = [0, 1, 2, 3], [5, 6]
    fresh = server_view(protocol_noise(seeds, 2, R, d, s, 0.3, torch.Generator().manual_seed(1)), seeds, 2, honest,
                        colluders, s)
    memo = StreamMemo(seeds, [(i, j) for i in honest for j in colluders])
    xi = protocol_noise(seeds, 2, R, d, s, 0.3, torch.Generator().manual_seed(1), memo=memo)
    assert len(memo._kept) == len(honest) * len(colluders)
    assert torch.equal(server_view(xi, seeds, 2, honest, colluders, s, memo), fresh)
    other = StreamMemo(seeds, [(0, 4)])
    xi = protocol_noise(seeds, 2, R, d, s, 0.3, torch.Generator().manual_seed(1), memo=other)
    assert len(other._kept) == 1
    assert torch.equal(server_view(xi, seeds, 2, honest, colluders, s, other), fresh)
    later = StreamMemo(seeds, [(0, 5)])  # a memo filled at another step does not serve this one
    correlated_noise(seeds, 3, R, d, s, memo=later)
    assert torch.equal(server_view(xi, seeds, 2, honest, colluders, s, later), fresh)
