"""su2022.x13 (Theorem 1 (5) at eps in [alpha/8, 1/4)) and the unit-free part of x09: contract, planted repair,
witnesses."""
from __future__ import annotations

from fractions import Fraction

import pytest

from analytic.papers import su2022 as S
from verify.checks.su2022 import grouping as G
from verify.checks.su2022 import theorems as TH
from verify.engine import Context
from verify.testing import CheckContract


class TestX13(CheckContract):
    check = G.x13_grouping_threshold
    # eps = 0.1 keeps the clusters' anchors about 0.6 Delta apart: k groups, and the proof's radius
    # 2 eps Delta/alpha holds
    planted = {"eps": 0.1, "theory": S.THM_1_PROOF, "threshold": 0.6, "T": 24}
    planted_verdict = "holds"
    determinism_replicates = 2


@pytest.mark.parametrize("seed", [0, 1])
def test_x13_is_violated_with_an_erratum_at_seeds_0_and_1(seed):
    r = G.x13_grouping_threshold(Context(seed=seed))
    assert r.verdict.value == "violated"
    assert r.finding.kind == "erratum" and not r.finding.missing()
    assert r.observed["one_group_share"] == 1.0


def test_merged_anchors_witness_is_exact():
    w = G.merged_anchors_witness()
    assert w["factor"] == Fraction(17, 18) and w["t_stop"] == 4
    assert w["error"] == Fraction(17, 18) ** 4 / 2
    assert w["anchor_gap"] == 1 - Fraction(17, 18) ** 4 and w["merged"]
    assert w["eps_prime"] == Fraction(4, 5)
    below = G.merged_anchors_witness(eps=Fraction(1, 20))  # eps < alpha/8 = 1/16: separated
    assert not below["merged"]


def test_x09_unit_free_rounds_grow_while_the_printed_count_stays():
    r = TH.x09_rounds_units(Context(), scales=(1.0,), sigma_ratios=(1e-1, 1e-3), rounds=60, sigma_rounds=160)
    need = r.observed["rounds_needed_sigma_mean"]
    printed = r.predicted["printed_T_prime_sigma_mean"]
    assert need[1] > need[0] + 40  # two decades of Delta/sigma: about 34 rounds each
    assert printed[1] == pytest.approx(printed[0])
    assert r.verdict.value == "violated" and "Unit-free" in r.finding.witness
