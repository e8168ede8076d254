"""dutta2023 x02-x06 (issue 18): the check contract with planted wrong theories, and unit tests of the exact
computations the errata rest on (the order-statistic quadrature, the sympy certificates, the mirror attack)."""
from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from analytic.papers import dutta2023 as D
from verify.aggregators.ce import ce_keep
from verify.checks.dutta2023 import pl as X
from verify.engine import Context
from verify.result import Verdict
from verify.testing import CheckContract, run_quick


class TestX02(CheckContract):
    check = X.x02_lemma13
    # (13b) at a tenth of its printed size: the drift near the start exceeds it
    planted = {"bound_b": D.LEMMA_13B.scaled(0.1, name="(13b) x 0.1")}
    determinism_overrides = {"radii": (0.0, 1.5), "Ts": (1,)}


class TestX03(CheckContract):
    check = X.x03_vx_bound
    # three times the printed bound is above the exact 2.149: the check must then say holds (it reads the theory)
    planted = {"theory": D.VX_BOUND.scaled(3.0, name="bound x 3")}
    planted_verdict = "holds"
    determinism_overrides = {"rounds": 2}


class TestX04(CheckContract):
    check = X.x04_uniqueness
    planted = None  # no theory to plant: the claim is the uniqueness of a minimiser (spread 0); see the unit tests below
    determinism_overrides = {"rounds": 20, "kappas": (1.0,)}


class TestX05(CheckContract):
    check = X.x05_problem12_metric
    planted = None  # no theory to plant: the claim is an ordering of two runs by the paper's metric
    determinism_overrides = {"attacks": ("A3",), "rounds": 10}


class TestX06(CheckContract):
    check = X.x06_baseline
    # the Byzantine term shrunk 10^5 times: CE's excess under the CE-evasion attack at f = 10 exceeds it
    planted = {"theory": D.BYZANTINE_TERM.scaled(1e-5, name="term x 1e-5")}
    determinism_overrides = {"fs": (2,), "attacks": ("A3",), "rounds": 10}


def test_max_chi2_mean_closed_forms():
    """E max of n squared standard normals: 1 for n = 1 and 1 + 2/pi for n = 2 (E max(Z1^2, Z2^2) = E[Z1^2 + Z2^2] -
    E min, with E min(Z1^2, Z2^2) = 1 - 2/pi); the value 6.4457 used by x03 against a Monte Carlo estimate."""
    assert float(D.max_chi2_mean(1)) == pytest.approx(1.0, rel=1e-12)
    assert float(D.max_chi2_mean(2)) == pytest.approx(1 + 2 / math.pi, rel=1e-12)
    z = np.random.default_rng(3).standard_normal((200_000, 49))
    assert float(D.max_chi2_mean(49)) == pytest.approx(float((z**2).max(1).mean()), rel=0.01)


def test_vx_certificate_exceeds_the_printed_bound_and_meets_the_repaired_one():
    c = D.vx_witness_certificate(49, 0.0)
    assert float(c["ratio"]) == pytest.approx(4 * float(c["E_max_Z2"]) / 12)
    assert float(c["ratio"]) > 2.1 and float(c["repaired_ratio"]) < 0.05


def test_uniqueness_certificate_is_exact():
    c = D.uniqueness_certificate()
    assert c["g_second_minus_4cos2"] == 0 and c["g_at_0"] == 0 and c["g_prime_at_0"] == 0
    assert c["grad_sq_minus_2_gprime_sq"] == 0 and c["q_on_line"] == 0


def test_mirror_attack_is_kept_and_drops_the_farthest_honest():
    gen = torch.Generator().manual_seed(0)
    honest = torch.randn(64, 9, 3, generator=gen, dtype=torch.float64)
    ref = torch.zeros(64, 3, dtype=torch.float64)
    byz = X.mirror_farthest(honest, 1, reference=ref)
    keep = ce_keep(torch.cat([byz, honest], 1), 1, ref)
    far = torch.linalg.vector_norm(honest, dim=-1).argmax(1)
    assert bool(keep[:, 0].all())
    assert not bool(keep[torch.arange(64), 1 + far].any())


def test_honest_mean_ignores_the_byzantine_rows():
    Y = torch.arange(24, dtype=torch.float64).reshape(2, 4, 3)
    assert torch.equal(X.honest_mean(Y, 1), Y[:, 1:].mean(1))


def test_erratum_findings_are_signed():
    for check in (X.x03_vx_bound, X.x04_uniqueness, X.x05_problem12_metric):
        r = run_quick(check)
        assert r.verdict == Verdict.VIOLATED and r.finding.kind == "erratum" and not r.finding.missing()
