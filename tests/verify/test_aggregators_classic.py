"""The classic aggregators and attacks: properties every robust aggregator owes (hypothesis), exact
values on small inputs, and robustness against far outliers."""
from __future__ import annotations

import numpy as np
import pytest
import torch
from scipy import special
from hypothesis import given, settings
from hypothesis import strategies as st

from analytic.errors import InputError
from verify.aggregators import AGGREGATORS
from verify.aggregators.classic import coordinate_median, geometric_median, meamed, multi_krum, trimmed_mean
from verify.attacks import ATTACKS
from verify.attacks.classic import alie, alie_z_max, fall_of_empires, gaussian, large_value, sign_flip

CLASSIC = ["mean", "cwmed", "cwtm", "multikrum", "gm", "meamed"]
ATOL = 1e-9


@st.composite
def batches(draw):
    R, N, d = draw(st.integers(1, 3)), draw(st.integers(5, 12)), draw(st.integers(1, 5))
    f = draw(st.integers(0, (N - 3) // 2))
    g = torch.Generator().manual_seed(draw(st.integers(0, 2**31 - 1)))
    X = torch.randn(R, N, d, generator=g, dtype=torch.float64) * draw(st.floats(0.1, 10.0))
    return X, f, g


@pytest.mark.parametrize("name", CLASSIC)
@settings(max_examples=30, deadline=None)
@given(b=batches())
def test_permutation_invariant_and_translation_equivariant(name, b):
    X, f, g = b
    agg = AGGREGATORS[name]
    out = agg(X, f)
    perm = torch.randperm(X.shape[1], generator=g)
    assert torch.allclose(agg(X[:, perm], f), out, atol=ATOL)
    shift = torch.randn(X.shape[0], 1, X.shape[2], generator=g, dtype=X.dtype) * 100
    assert torch.allclose(agg(X + shift, f), out + shift[:, 0], atol=1e-7)
    assert out.dtype == X.dtype and out.shape == (X.shape[0], X.shape[2])


@pytest.mark.parametrize("name", CLASSIC)
@settings(max_examples=20, deadline=None)
@given(b=batches())
def test_exact_when_honest_inputs_coincide(name, b):
    X, f, _ = b
    X = X[:, :1].expand_as(X).clone()
    assert torch.allclose(AGGREGATORS[name](X, f), X[:, 0], atol=ATOL)


def test_no_global_random_state_is_touched():
    torch.manual_seed(0)
    before = torch.rand(3)
    torch.manual_seed(0)
    X = torch.randn(2, 9, 3, generator=torch.Generator().manual_seed(1), dtype=torch.float64)
    for name in CLASSIC:
        AGGREGATORS[name](X, 2)
    assert torch.equal(torch.rand(3), before)


def test_exact_values_on_a_small_input():
    X = torch.tensor([[[1.0], [2.0], [3.0], [4.0], [100.0]]], dtype=torch.float64)
    assert coordinate_median(X, 1).item() == 3.0
    assert trimmed_mean(X, 1).item() == 3.0  # mean of 2, 3, 4
    assert meamed(X, 1).item() == 2.5  # the 4 values closest to the median 3 are 1, 2, 3, 4
    Y = torch.tensor([[[1.0], [2.0], [3.0], [4.0]]], dtype=torch.float64)
    assert coordinate_median(Y, 0).item() == 2.5
    assert multi_krum(Y, 0, m=1).item() in (2.0, 3.0)


def test_robust_ones_ignore_far_outliers_the_mean_does_not():
    g = torch.Generator().manual_seed(3)
    honest = torch.randn(4, 20, 6, generator=g, dtype=torch.float64)
    X = torch.cat([honest, large_value(honest, 5, value=1e6)], dim=1)
    for name in ("cwmed", "cwtm", "multikrum", "gm", "meamed"):
        assert torch.linalg.vector_norm(AGGREGATORS[name](X, 5) - honest.mean(1), dim=-1).max() < 2.0, name
    assert torch.linalg.vector_norm(AGGREGATORS["mean"](X, 5), dim=-1).min() > 1e5


def test_geometric_median_minimises_the_sum_of_distances():
    g = torch.Generator().manual_seed(4)
    X = torch.randn(1, 15, 3, generator=g, dtype=torch.float64)
    z = geometric_median(X)
    cost = lambda p: torch.linalg.vector_norm(X[0] - p, dim=-1).sum()  # noqa: E731
    for _ in range(20):
        assert cost(z[0]) <= cost(z[0] + 1e-3 * torch.randn(3, generator=g, dtype=torch.float64)) + 1e-12


def test_bad_f_is_refused_naming_the_parameter():
    X = torch.zeros(1, 5, 2, dtype=torch.float64)
    with pytest.raises(InputError) as info:
        trimmed_mean(X, 3)
    assert info.value.param == "f"
    with pytest.raises(InputError):
        multi_krum(X, 2)


def test_attacks_follow_their_definitions():
    g = torch.Generator().manual_seed(5)
    H = torch.randn(2, 10, 4, generator=g, dtype=torch.float64)
    mu, s = H.mean(1), H.std(1)
    assert torch.allclose(alie(H, 3, tau=1.5), (mu + 1.5 * s)[:, None].expand(-1, 3, -1))
    assert torch.allclose(fall_of_empires(H, 2), (-2.0 * mu)[:, None].expand(-1, 2, -1))
    assert torch.allclose(sign_flip(H, 1)[:, 0], -mu)
    assert torch.all(large_value(H, 2) == 1e3)
    out = gaussian(H, 4, scale=0.0, generator=g)
    assert out.shape == (2, 4, 4) and torch.allclose(out, mu[:, None].expand(-1, 4, -1))
    with pytest.raises(InputError):
        gaussian(H, 2)
    assert set(ATTACKS) >= {"alie", "foe", "sf", "large", "gaussian"}
    # n = 50, f = 24: s = floor(26) - 24 = 2, z_max = Phi^{-1}(48/50) = sqrt(2) erfinv(2 * 0.96 - 1)
    assert alie_z_max(50, 24) == pytest.approx(float(np.sqrt(2) * special.erfinv(2 * 0.96 - 1)), rel=1e-12)


def _smoothed_weiszfeld(X, z, iters=200, eps=1e-12):
    """The smoothed iteration alone (every step w_i = 1 / max(||x_i - z||, eps))."""
    for _ in range(iters):
        w = 1.0 / torch.cdist(X, z[:, None], compute_mode="donot_use_mm_for_euclid_dist").clamp_min(eps).transpose(1, 2)
        z = torch.bmm(w, X)[:, 0] / w.sum(-1)
    return z


def test_geometric_median_leaves_an_input_it_starts_on():
    """Five points whose coordinate-wise median is the first point, which is not the geometric median (the sum of the
    unit vectors towards the others has norm 1.135 > 1). The smoothed step stalls there (0.32 away after 200 steps);
    Vardi and Zhang's step leaves it, and the result is the median to 1e-8 whatever the order or translation."""
    X = torch.tensor([[[-2.027863774739, -0.212675113573], [4.006621995721, -0.538885782418],
                       [-2.382415234300, -5.456635816492], [3.500982732496, 0.726897253148],
                       [-3.705964802395, 0.253425823027]]], dtype=torch.float64)
    assert torch.equal(coordinate_median(X, 0), X[:, 0])
    stalled = _smoothed_weiszfeld(X, X[:, 0].clone())
    median = _smoothed_weiszfeld(X, X.mean(1), iters=5000)  # from a point off the inputs: no stall
    assert float((stalled - median).norm()) > 0.3
    out = geometric_median(X, 0)
    assert float((out - median).norm()) < 1e-8
    unit = (X[0] - out[0]) / (X[0] - out[0]).norm(dim=1, keepdim=True)
    assert float(unit.sum(0).norm()) < 1e-8  # the first-order condition of the median
    shift = torch.tensor([[[47.2362, -50.3944]]], dtype=torch.float64)
    assert torch.allclose(geometric_median(X + shift, 0), out + shift[:, 0], atol=1e-9)
    assert torch.allclose(geometric_median(X[:, [3, 1, 4, 0, 2]], 0), out, atol=1e-9)


def test_geometric_median_stays_on_an_input_that_is_the_median_and_is_otherwise_the_smoothed_iteration():
    """An input that is the geometric median (one point in the middle of four around it) is returned exactly. Where
    z never sits on an input, every step is the smoothed one, bit for bit (R = 3 replicates, one of which starts on an
    input: the other two are unchanged, and it ends at the median); ``start="zero"`` is ByzFL's smoothed iteration itself."""
    X = torch.tensor([[[0.0, 0.0], [1.0, 0.1], [-1.0, -0.2], [0.2, 1.0], [-0.1, -1.0]]], dtype=torch.float64)
    assert torch.equal(coordinate_median(X, 0), X[:, 0])  # the start, and the median (|sum of unit vectors| 0.16)
    assert torch.equal(geometric_median(X, 0), X[:, 0])
    g = torch.Generator().manual_seed(5)
    Y = torch.randn(3, 8, 3, generator=g, dtype=torch.float64)
    Y[1, 2] = coordinate_median(Y[1:2, [0, 1, 3, 4, 5, 6, 7]], 0)[0]  # replicate 1's cwmed is its input 2
    assert bool((coordinate_median(Y, 0)[1] == Y[1, 2]).all())
    out, smooth = geometric_median(Y, 0), _smoothed_weiszfeld(Y, coordinate_median(Y, 0))
    assert torch.equal(out[[0, 2]], smooth[[0, 2]])
    assert torch.allclose(out[1], _smoothed_weiszfeld(Y[1:2], Y[1:2].mean(1), iters=5000)[0], atol=1e-8)
    assert torch.equal(geometric_median(Y, 0, iters=7, eps=0.1, start="zero"),
                       _smoothed_weiszfeld(Y, Y.new_zeros(3, 3), iters=7, eps=0.1))
