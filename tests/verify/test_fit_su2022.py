"""verify.fit.held_out_constant_verdict: one constant fitted on calibration points, held fixed on the rest."""
import numpy as np
import pytest

from verify.fit import held_out_constant_verdict
from verify.result import Verdict


def test_a_shape_that_follows_the_data_holds():
    g = np.array([1.0, 2.0, 4.0, 8.0])
    q = 3.0 * g
    v, info = held_out_constant_verdict(q[:1], q[:1], g[:1], q[1:] * 0.99, q[1:] * 1.01, g[1:], margin=1.1)
    assert v == Verdict.HOLDS and info["constant"] == pytest.approx(3.3)


def test_a_shape_that_grows_too_slowly_is_violated():
    """q grows like g^2 but the claimed shape is g: the constant fitted at g = 1 fails at g = 8."""
    g = np.array([1.0, 2.0, 4.0, 8.0])
    q = g**2
    v, info = held_out_constant_verdict(q[:1], q[:1], g[:1], q[1:], q[1:], g[1:], margin=2.0)
    assert v == Verdict.VIOLATED and info["worst_test_ratio_to_constant"] == pytest.approx(4.0)


def test_overlapping_interval_is_inconclusive():
    v, _ = held_out_constant_verdict([1.0], [1.0], [1.0], [0.5], [1.5], [1.0])
    assert v == Verdict.INCONCLUSIVE


def test_lower_side_mirrors():
    g = np.array([1.0, 10.0])
    v, _ = held_out_constant_verdict([2.0], [2.0], [1.0], [5.0], [5.0], [10.0], side="lower")  # 5 < 2 * 10
    assert v == Verdict.VIOLATED
    v, info = held_out_constant_verdict([2.0], [2.0], [1.0], [25.0], [30.0], [10.0], side="lower", margin=1.5)
    assert v == Verdict.HOLDS and info["constant"] == pytest.approx(2.0 / 1.5)


def test_unusable_calibration_is_inconclusive_and_bad_shapes_are_rejected():
    v, _ = held_out_constant_verdict([-1.0], [-1.0], [1.0], [1.0], [1.0], [1.0], side="lower")
    assert v == Verdict.INCONCLUSIVE
    with pytest.raises(ValueError):
        held_out_constant_verdict([1.0], [1.0], [0.0], [1.0], [1.0], [1.0])
    with pytest.raises(ValueError):
        held_out_constant_verdict([1.0], [1.0], [1.0], [1.0], [1.0], [1.0], margin=0.5)
    with pytest.raises(ValueError):
        held_out_constant_verdict([1.0], [1.0], [1.0], [1.0], [1.0], [1.0], side="sideways")
