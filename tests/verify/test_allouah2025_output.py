"""allouah2025.x12: Corollary 4.1 for the returned theta_hat, with the corollary's noise growing with T."""
import numpy as np
import pytest

from verify.checks.allouah2025.returned_output import noise_response, x12_output_under_growing_noise
from verify.engine import Context
from verify.fit import power_law
from verify.testing import run_quick


def test_x12_is_an_erratum_at_two_seeds():
    r = run_quick(x12_output_under_growing_noise)
    assert r.verdict.value == "violated" and r.finding.kind == "erratum" and not r.finding.missing()
    assert r.observed["monte_carlo_matches_exact"] == "holds"
    r1 = x12_output_under_growing_noise(Context(seed=1))
    assert r1.verdict.value == "violated"


def test_x12_a_claim_that_allows_the_growth_holds():
    """The verdict follows the theory: a rho allowed to grow like T^0.8 is not contradicted by the run."""
    r = x12_output_under_growing_noise(Context(), theory=power_law("T", 0.8, "upper"))
    assert r.verdict.value == "holds"


def test_the_noise_response_is_a_divergent_partial_sum_and_the_last_iterate_settles():
    u = noise_response(100_001)
    out = 0.5 * np.cumsum(u[:-1])
    per_decade = [out[10**k] - out[10**(k - 1)] for k in (4, 5)]
    assert all(d > 4.0 for d in per_decade)  # about 5.6-6.0 per decade: it does not settle
    last = 0.5 * np.array([10**k * u[10**k] for k in (3, 4, 5)])
    assert last[-1] == pytest.approx(last[-2], rel=0.05)  # (1/2) T u_T settles near 2.6
    # u_t from the recursion equals a direct simulation of the same linear system (independent computation)
    rng = np.random.default_rng(0)
    from verify.algorithms.cafcor import strongly_convex_schedule
    gamma, beta = strongly_convex_schedule(1.0, 1.0)
    R, T = 20000, 300
    e, m = np.zeros(R), np.zeros(R)
    for t in range(1, T):
        b = beta(t - 1)
        m = b * m + (1 - b) * (e + rng.standard_normal(R))
        e = e - gamma(t) * m
    assert np.mean(e**2) == pytest.approx(u[T], rel=0.05)
