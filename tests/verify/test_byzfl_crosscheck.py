"""Test-only cross-check of our CAF and attacks against ByzFL 0.0.11 (PyPI ``byzfl``, LPD-EPFL, the authors'
lab), on the same inputs.

ByzFL's top-level ``byzfl/__init__.py`` imports its benchmark, which needs torchvision (absent here); the
helper registers a bare ``byzfl`` package (the installed folder as ``__path__``) so that only
``byzfl.aggregators`` and ``byzfl.attacks`` are imported. Nothing is downloaded.

Differences found (each pinned by a test below):

* ByzFL's CAF runs ONE power step from an unseeded Gaussian start (``np.random.randn`` / ``torch.randn`` on
  the global generators) and takes ||Sigma v_0|| as the eigenvalue; ours runs ``power_iters`` steps from an
  explicit generator and takes the Rayleigh quotient of the final vector (a larger lower bound on
  lambda_max), or exact eigenpairs by default.
* ByzFL takes tau_max over all points (the literal Algorithm 2) and has no iteration cap: on the spec's
  stalling example and on identical honest inputs with far outliers its loop runs past any cap we give it.
* ByzFL keeps an iterate only if its eigenvalue is strictly smaller (``<``); the paper (and we) use ``<=``.
* On identical inputs ByzFL's power step divides 0 by 0 and CAF returns ``None``; ours returns the point.
* ByzFL casts torch inputs to float32; ours keeps the dtype.
* ALIE (tau s with the ddof = 1 standard deviation), FOE (-tau mu), SF (-mu) and LF (the mean of the honest
  flipped-label gradients, labels y -> K-1-y) agree with ours to rounding.
"""
from __future__ import annotations

import importlib
import importlib.util
import sys
import types

import numpy as np
import pytest
import torch

from verify.aggregators.caf import caf, caf_filter
from verify.attacks.allouah2025_attacks import label_flipping
from verify.attacks.classic import alie, fall_of_empires, sign_flip
from verify.problems.allouah2025_classification import flipped, softmax_workers


class _TooManyIterations(Exception):
    pass


@pytest.fixture(scope="module")
def byzfl():
    """ByzFL's aggregators and attacks modules, imported without running byzfl/__init__.py."""
    spec = importlib.util.find_spec("byzfl")
    if spec is None or not spec.submodule_search_locations:
        pytest.skip("byzfl 0.0.11 is not installed (make setup installs it with --no-deps)")
    saved = {k: v for k, v in sys.modules.items() if k == "byzfl" or k.startswith("byzfl.")}
    for k in saved:
        del sys.modules[k]
    pkg = types.ModuleType("byzfl")
    pkg.__path__ = list(spec.submodule_search_locations)
    sys.modules["byzfl"] = pkg
    try:
        agg = importlib.import_module("byzfl.aggregators.aggregators")
        att = importlib.import_module("byzfl.attacks.attacks")
        yield types.SimpleNamespace(aggregators=agg, attacks=att)
    finally:
        for k in [k for k in sys.modules if k == "byzfl" or k.startswith("byzfl.")]:
            del sys.modules[k]
        sys.modules.update(saved)
    assert "torchvision" not in sys.modules


class SeededStarts:
    """Stand-in for ``np.random.randn`` inside ByzFL's CAF: the start vectors our power-method CAF draws from
    ``torch.Generator(seed)`` (one [1, d] draw per iteration), counted, with a cap on the number of calls."""

    def __init__(self, seed: int, cap: int) -> None:
        self.gen = torch.Generator().manual_seed(seed)
        self.calls, self.cap = 0, cap

    def __call__(self, d: int) -> np.ndarray:
        self.calls += 1
        if self.calls > self.cap:
            raise _TooManyIterations
        return torch.randn(1, d, generator=self.gen, dtype=torch.float64)[0].numpy()


def _byzfl_caf(byzfl, monkeypatch, x: np.ndarray, f: int, seed: int, cap: int = 200):
    starts = SeededStarts(seed, cap)
    monkeypatch.setattr(np.random, "randn", starts)
    try:
        out = byzfl.aggregators.CAF(f)(x)
    except _TooManyIterations:
        out = "stalled"
    finally:
        monkeypatch.undo()
    return out, starts.calls


def test_caf_same_start_vectors_same_weights_candidates(byzfl, monkeypatch):
    """With the same start vectors ByzFL's one power step and ours give the same weights at every iteration
    (same loop count); ByzFL's output is one of our iterates' weighted means (only the eigenvalue estimate used
    to pick the best iterate differs: ||Sigma v_0|| vs the Rayleigh quotient of v_1)."""
    rng = np.random.default_rng(0)
    compared = 0
    for trial in range(30):
        n = int(rng.integers(5, 16))
        f = int(rng.integers(1, (n - 1) // 2 + 1))
        d = int(rng.integers(2, 8))
        x = rng.normal(size=(n, d)) * rng.uniform(0.5, 3.0, size=d)
        ours, trace = caf_filter(torch.from_numpy(x)[None], f, eigen="power", power_iters=1, max_over="all",
                                 max_iter=200, generator=torch.Generator().manual_seed(trial), record_means=True)
        theirs, calls = _byzfl_caf(byzfl, monkeypatch, x, f, trial)
        if isinstance(theirs, str):
            assert int(trace.iterations[0]) == 200  # both stall
            continue
        compared += 1
        assert calls == int(trace.iterations[0])
        candidates = trace.means[0].numpy()
        assert np.min(np.abs(candidates - theirs).max(-1)) < 1e-10 * (1 + np.abs(x).max())
    assert compared >= 20


def test_caf_exact_in_one_dimension(byzfl, monkeypatch):
    """In d = 1 one power step is exact, so ByzFL's CAF and our literal variant (max over all points) agree,
    and our default (positive weights, exact eigen) agrees with both whenever no weight has reached 0 early."""
    rng = np.random.default_rng(1)
    for trial in range(20):
        n = int(rng.integers(5, 16))
        f = int(rng.integers(1, (n - 1) // 2 + 1))
        x = rng.normal(size=(n, 1))
        theirs, _ = _byzfl_caf(byzfl, monkeypatch, x, f, trial)
        if isinstance(theirs, str):
            continue
        ours = caf(torch.from_numpy(x)[None], f, max_over="all", max_iter=200)[0].numpy()
        assert np.allclose(ours, theirs, atol=1e-12)


def test_byzfl_literal_loop_stalls_where_ours_stops_within_2f(byzfl, monkeypatch):
    """The spec's example (n = 10, f = 3, d = 3, outliers at scale 100): ByzFL's loop runs past 500 iterations
    (no cap), ours stops within 2f = 6."""
    rng = np.random.default_rng(2)
    stalled = 0
    for trial in range(5):
        x = np.vstack([rng.normal(size=(7, 3)), 100 * rng.normal(size=(3, 3))])
        theirs, calls = _byzfl_caf(byzfl, monkeypatch, x, 3, trial, cap=500)
        stalled += isinstance(theirs, str)
        _, trace = caf_filter(torch.from_numpy(x)[None], 3)
        assert int(trace.iterations[0]) <= 6
    assert stalled >= 3


def test_byzfl_fails_on_identical_inputs_ours_is_exact(byzfl, monkeypatch):
    x = np.full((9, 4), 3.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        theirs, _ = _byzfl_caf(byzfl, monkeypatch, x, 2, 0)
    assert theirs is None  # 0/0 in the power step: no iterate is ever kept
    assert np.array_equal(caf(torch.from_numpy(x)[None], 2)[0].numpy(), x[0])
    rng = np.random.default_rng(3)
    honest_equal = np.vstack([np.tile(rng.normal(size=(1, 4)), (7, 1)), 100 * rng.normal(size=(2, 4))])
    with np.errstate(invalid="ignore", divide="ignore"):
        theirs, _ = _byzfl_caf(byzfl, monkeypatch, honest_equal, 2, 1, cap=300)
    assert isinstance(theirs, str) or np.abs(theirs - honest_equal[0]).max() > 1e-6
    ours = caf(torch.from_numpy(honest_equal)[None], 2)[0].numpy()
    assert np.abs(ours - honest_equal[0]).max() < 1e-12 * 100


def test_byzfl_casts_torch_inputs_to_float32(byzfl):
    x = torch.randn(10, 1, generator=torch.Generator().manual_seed(4), dtype=torch.float64)
    with torch.random.fork_rng():  # ByzFL draws its start vector from the global torch generator
        theirs = byzfl.aggregators.CAF(2)(x)
    assert theirs.dtype == torch.float32 and caf(x[None], 2).dtype == torch.float64
    assert torch.allclose(theirs.double(), caf(x[None], 2, max_over="all", max_iter=200)[0], atol=1e-5)


def test_attacks_match_byzfl(byzfl):
    rng = np.random.default_rng(5)
    H = rng.normal(size=(12, 7)) * 2.0 + 1.0
    t = torch.from_numpy(H)[None]
    A = byzfl.attacks
    for tau in (0.5, 1.5, 3.0):
        assert np.allclose(alie(t, 3, tau=tau)[0].numpy(), A.ALittleIsEnough(tau=tau)(H)[None], atol=1e-12)
    for tau in (1.0, 2.0):
        assert np.allclose(fall_of_empires(t, 2, tau=tau)[0].numpy(), A.InnerProductManipulation(tau=tau)(H)[None],
                           atol=1e-12)
    assert np.allclose(sign_flip(t, 2)[0].numpy(), A.SignFlipping()(H)[None], atol=1e-12)


def test_label_flipping_matches_byzfl(byzfl):
    prob = softmax_workers(1, 6, 20, 4, 10, skew=1.0, generator=torch.Generator().manual_seed(6))
    labels = prob.labels
    assert torch.equal(flipped(labels, 10), labels.sub(10 - 1).mul(-1))  # ByzFL client: targets.sub(K-1).mul(-1)
    theta = 0.1 * torch.randn(1, prob.dim, generator=torch.Generator().manual_seed(7), dtype=torch.float64)
    flipped_grads = prob.full_grad(theta, flip_labels=True)
    ours = label_flipping(prob.full_grad(theta), 3, flipped_gradients=flipped_grads)
    theirs = byzfl.attacks.LabelFlipping()(list(flipped_grads[0].numpy()))
    assert ours.shape == (1, 3, prob.dim)
    assert np.allclose(ours[0].numpy(), theirs[None], atol=1e-12)
