"""The plugin's own tests: fedverify's check contract, inherited."""
from mine2025.checks import c01_gd_contraction
from mine2025.theory import L, THEOREM_1, k, mu

from verify.api import Bound, CheckContract


class TestTheorem1(CheckContract):
    check = c01_gd_contraction
    # a rate gradient descent does not reach: (1 - 2 mu/L)^(2k)
    planted = {"theory": Bound("planted: twice the contraction", (1 - 2 * mu / L) ** (2 * k), THEOREM_1.kind)}
