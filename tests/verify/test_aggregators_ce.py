"""The comparative-elimination filter (dutta2023 Algorithm 1 lines 9-11) and the attacks A1-A3: hypothesis
properties (a)-(g) of spec C8, the aggregator invariances, and the attacks' definitions."""
from __future__ import annotations

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from analytic.errors import InputError
from verify.aggregators import AGGREGATORS
from verify.aggregators.ce import ce_keep, comparative_elimination
from verify.attacks import ATTACKS
from verify.attacks.dutta2023_attacks import ce_evasion, reference_random, reference_sign_flip

ATOL = 1e-9


@st.composite
def ce_inputs(draw):
    """(X [R, N, d], f, f_act, reference [R, d], generator): honest vectors around a cluster, the first f_act
    Byzantine (anywhere), f < N/2 and f_act <= f."""
    R, N, d = draw(st.integers(1, 3)), draw(st.integers(3, 20)), draw(st.integers(1, 6))
    f = draw(st.integers(0, (N - 1) // 2))
    f_act = draw(st.integers(0, f))
    g = torch.Generator().manual_seed(draw(st.integers(0, 2**31 - 1)))
    ref = torch.randn(R, d, generator=g, dtype=torch.float64) * draw(st.floats(0.0, 10.0))
    X = ref[:, None] + torch.randn(R, N, d, generator=g, dtype=torch.float64) * draw(st.floats(0.01, 5.0))
    X[:, :f_act] = ref[:, None] + torch.randn(R, f_act, d, generator=g, dtype=torch.float64) * draw(st.floats(0.0, 50.0))
    return X, f, f_act, ref, g


def _dist(X, ref):
    return torch.linalg.vector_norm(X - ref[:, None], dim=-1)


@settings(max_examples=60, deadline=None)
@given(b=ce_inputs())
def test_a_b_exactly_n_minus_f_kept_and_the_kept_are_the_closest(b):
    X, f, _, ref, _ = b
    keep = ce_keep(X, f, ref)
    dist = _dist(X, ref)
    assert torch.all(keep.sum(1) == X.shape[1] - f)
    if f > 0:
        assert torch.all(dist.masked_fill(~keep, -float("inf")).max(1).values <= dist.masked_fill(keep, float("inf")).min(1).values)
    assert torch.allclose(comparative_elimination(X, f, reference=ref), (X * keep[..., None]).sum(1) / (X.shape[1] - f),
                          atol=ATOL)


@settings(max_examples=40, deadline=None)
@given(b=ce_inputs())
def test_c_f_zero_is_the_mean(b):
    X, _, _, ref, _ = b
    assert torch.allclose(comparative_elimination(X, 0, reference=ref), X.mean(1), atol=ATOL)


@settings(max_examples=60, deadline=None)
@given(b=ce_inputs())
def test_d_e_a_vector_beyond_every_honest_one_is_removed_and_each_kept_byzantine_displaces_an_honest_one(b):
    X, f, f_act, ref, _ = b
    keep = ce_keep(X, f, ref)
    dist = _dist(X, ref)
    honest_max = dist[:, f_act:].max(1).values
    beyond = (dist > honest_max[:, None]) & (torch.arange(X.shape[1])[None] < f_act)
    assert not torch.any(beyond & keep)
    byz_kept = keep[:, :f_act].sum(1)
    honest_dropped = (~keep[:, f_act:]).sum(1)
    assert torch.all(honest_dropped >= byz_kept)
    if f_act == f:
        assert torch.all(honest_dropped == byz_kept)


@settings(max_examples=40, deadline=None)
@given(b=ce_inputs())
def test_f_permutation_invariant_and_translation_equivariant_with_its_reference(b):
    X, f, _, ref, g = b
    out = comparative_elimination(X, f, reference=ref)
    perm = torch.randperm(X.shape[1], generator=g)
    assert torch.allclose(comparative_elimination(X[:, perm], f, reference=ref), out, atol=ATOL)
    shift = torch.randn(X.shape[0], X.shape[2], generator=g, dtype=X.dtype) * 100
    assert torch.allclose(comparative_elimination(X + shift[:, None], f, reference=ref + shift), out + shift, atol=1e-7)
    assert out.dtype == X.dtype and out.shape == (X.shape[0], X.shape[2])


@settings(max_examples=30, deadline=None)
@given(b=ce_inputs())
def test_exact_when_the_inputs_coincide(b):
    X, f, _, ref, _ = b
    Y = X[:, :1].expand_as(X).clone()
    assert torch.allclose(comparative_elimination(Y, f, reference=ref), Y[:, 0], atol=ATOL)


def test_g_the_reference_is_the_server_model_not_the_mean():
    e1 = torch.tensor([1.0, 0.0, 0.0], dtype=torch.float64)
    honest = 20 * e1 + 0.1 * torch.tensor([[1.0, 0, 0], [-1, 0, 0], [0, 1, 0], [0, -1, 0], [0, 0, 1]], dtype=torch.float64)
    Y = torch.cat([(10 * e1)[None], honest])[None]
    ref = torch.zeros(1, 3, dtype=torch.float64)
    assert bool(ce_keep(Y, 1, ref)[0, 0])  # the Byzantine vector at x_k + 10 e_1 is kept
    assert not bool(ce_keep(Y, 1, "mean")[0, 0])  # a mean-referenced filter would drop it
    assert torch.allclose(comparative_elimination(Y, 1, reference=ref), Y[:, [0, 2, 3, 4, 5]].mean(1))


def test_ties_are_broken_by_agent_index():
    ref = torch.zeros(1, 1, dtype=torch.float64)
    X = torch.tensor([[[1.0], [-1.0], [1.0], [0.5]]], dtype=torch.float64)  # agents 0, 1, 2 at distance 1
    assert ce_keep(X, 1, ref).tolist() == [[True, True, False, True]]


def test_bad_input_names_the_parameter():
    X = torch.zeros(2, 4, 3, dtype=torch.float64)
    with pytest.raises(InputError) as info:
        comparative_elimination(X, 2, reference=torch.zeros(2, 3, dtype=torch.float64))
    assert info.value.param == "f"
    with pytest.raises(InputError) as info:
        comparative_elimination(X, 1)
    assert info.value.param == "reference"
    with pytest.raises(InputError):
        comparative_elimination(X, 1, reference=torch.zeros(3, 3, dtype=torch.float64))
    assert AGGREGATORS["ce"] is comparative_elimination


def test_no_global_random_state_is_touched():
    torch.manual_seed(0)
    before = torch.rand(3)
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(1)
    H = torch.randn(2, 9, 3, generator=g, dtype=torch.float64)
    ref = torch.zeros(2, 3, dtype=torch.float64)
    comparative_elimination(H, 2, reference=ref)
    for name in ("reference_random", "reference_sign_flip", "ce_evasion"):
        ATTACKS[name](H, 2, reference=ref, x_star=torch.ones(3, dtype=torch.float64), generator=g)
    assert torch.equal(torch.rand(3), before)


# -- the attacks of spec 2.5 ------------------------------------------------------------------------------------
def _honest(seed=5, R=3, h=12, d=4):
    g = torch.Generator().manual_seed(seed)
    ref = torch.randn(R, d, generator=g, dtype=torch.float64)
    return ref[:, None] + 0.3 * torch.randn(R, h, d, generator=g, dtype=torch.float64), ref, g


def test_a1_is_far_outside_the_honest_ball_and_ce_removes_it():
    H, ref, g = _honest()
    B = reference_random(H, 4, reference=ref, generator=g)
    assert B.shape == (3, 4, 4) and B.dtype == H.dtype
    assert torch.all(_dist(B, ref).min(1).values > 3 * _dist(H, ref).max(1).values)
    keep = ce_keep(torch.cat([B, H], 1), 4, ref)
    assert not keep[:, :4].any()
    with pytest.raises(InputError):
        reference_random(H, 2, reference=ref)


def test_a2_reverses_the_honest_mean_update():
    H, ref, _ = _honest()
    B = reference_sign_flip(H, 2, reference=ref, kappa=3.0)
    assert torch.allclose(B[:, 0], ref - 3.0 * (H.mean(1) - ref))
    assert torch.equal(B[:, 0], B[:, 1])


@pytest.mark.parametrize("q", [0.0, 0.5, 0.9, 1 - 1e-9, 1.0])
def test_a3_sits_at_the_honest_quantile_radius_away_from_the_optimum(q):
    H, ref, g = _honest()
    x_star = torch.zeros(4, dtype=torch.float64)
    B = ce_evasion(H, 3, reference=ref, x_star=x_star, q=q)
    dist = _dist(H, ref)
    assert torch.allclose(_dist(B, ref)[:, 0], torch.quantile(dist, q, dim=1), rtol=1e-12)
    u = (ref - x_star) / torch.linalg.vector_norm(ref - x_star, dim=-1, keepdim=True)
    cos = ((B[:, 0] - ref) * u).sum(-1) / _dist(B, ref)[:, 0]
    assert torch.allclose(cos, torch.ones_like(cos))
    # CE keeps as many copies as fit among the N - f closest: min(f, N - f - #honest strictly closer)
    closer = (dist < _dist(B, ref)[:, :1]).sum(1)
    N = H.shape[1] + 3
    kept = ce_keep(torch.cat([B, H], 1), 3, ref)[:, :3].sum(1)
    assert torch.equal(kept, torch.clamp(N - 3 - closer, max=3))


def test_a3_at_the_optimum_draws_a_random_direction():
    H, ref, g = _honest()
    B = ce_evasion(H, 2, reference=ref, x_star=ref, q=0.5, generator=g)
    assert torch.all(torch.isfinite(B))
    with pytest.raises(InputError):
        ce_evasion(H, 2, reference=ref, x_star=ref, q=0.5)
    with pytest.raises(InputError):
        ce_evasion(H, 2, reference=ref, x_star=None)
    assert {"reference_random", "reference_sign_flip", "ce_evasion"} <= set(ATTACKS)
