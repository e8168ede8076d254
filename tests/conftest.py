"""One test session shares each check's quick Result between its processes (pytest-xdist workers, ``make test``
runs ``-n auto``): the controlling process makes a folder for verify.testing's shared cache before the workers
start, and removes it at the end.

With several workers, each runs its numerical libraries on one thread (set here, before the workers start, so
that they inherit it): two torch/OpenMP threads per worker on a machine with as many cores as workers made the
small-tensor checks 5x slower (an OpenMP rendezvous in every small op; measured on 2 cores: the dutta2023 checks of
tests/test_all_checks.py took 160 s with two threads per worker, 30 s with one). A value the user already set wins.
"""
import os
import shutil
import tempfile

import pytest

from verify.testing import SHARED_CACHE_ENV

ONE_THREAD = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS")


def pytest_configure(config):
    if hasattr(config, "workerinput") or os.environ.get(SHARED_CACHE_ENV):
        return  # a worker inherits the controller's folder; an outer session's folder is kept
    if getattr(config.option, "numprocesses", None):
        for name in ONE_THREAD:
            os.environ.setdefault(name, "1")
    folder = tempfile.mkdtemp(prefix="fedverify-test-cache-")
    os.environ[SHARED_CACHE_ENV] = folder
    config._fedverify_cache = folder


def pytest_unconfigure(config):
    folder = getattr(config, "_fedverify_cache", None)
    if folder:
        shutil.rmtree(folder, ignore_errors=True)
        os.environ.pop(SHARED_CACHE_ENV, None)


#: Tests that run long for what they add beyond the default run, marked ``slow`` here in one place (``make test-slow``
#: runs them). Wall seconds on the 2-core machine under load, 2026-11-28: each repeats a property a faster test of the
#: default run already shows (the other sign of a planted exponent, determinism twice over, a second sweep path).
SLOW_TESTS = {
    # 28 s:
    "tests/conventions/test_results_never_stale.py::test_a_one_line_edit_reruns_exactly_the_results_that_can_reach_it",
    "tests/verify/test_su2022_checks.py::test_c29_nu_is_loose_so_small_nu_plants_stay_true_bounds",  # 18 s
    "tests/conventions/test_plugins.py::test_installed_plugin_is_listed_run_shown_and_reported",  # 12 s
    "tests/verify/test_su2022_checks.py::test_c10_planted_m_exponent_errors_are_violated[-0.25]",  # 12 s
    "tests/verify/test_su2022_checks.py::test_c11_planted_ell_exponent_errors_are_violated[-0.25]",  # 9 s
    "tests/verify/test_su2022_checks.py::test_c26_planted_exponent_errors_are_violated[upper-N_j--0.25]",  # 7 s
    "tests/verify/test_su2022_checks.py::test_c26_planted_exponent_errors_are_violated[upper-N_j-0.25]",  # 5 s
    "tests/verify/test_su2022_checks.py::test_c26_planted_exponent_errors_are_violated[lower-N_j--0.25]",  # 4 s
    "tests/verify/test_su2022_checks.py::test_c26_planted_exponent_errors_are_violated[lower-N_j-0.25]",  # 3 s
    "tests/verify/test_sweep.py::test_this_process_and_a_worker_share_one_queue",  # 10 s (the local cluster test stays)
    "tests/conventions/test_plugins.py::test_plugin_tests_pass_with_the_inherited_contract",  # 8 s
}
#: CheckContract's same-seed-same-numbers runs a check twice; for these older checks (each 5-7 s) determinism is
#: shown by test_check_convention's direct-call-equals-run test and by the store's bitwise rerun tests.
SLOW_TESTS |= {f"tests/conventions/test_contracts_existing.py::Test_{c}::test_same_seed_same_numbers" for c in (
    "werner2023_x01", "werner2023_c03", "allouah2025_c07", "werner2023_c02", "werner2023_c08", "werner2023_c01",
    "allouah2025_c02", "werner2023_c07")}


#: The planted-at-power run of the five costliest quick checks (7-20 s each; werner2023.x20 in test_all_checks, the
#: other four in their CheckContract classes); the other rate and bound checks keep theirs in the default run, and
#: these five keep their own planted-wrong-theory tests.
SLOW_TESTS |= {"tests/test_all_checks.py::test_power_claimed_is_power_shown[werner2023.x20]"} | {
    "tests/verify/test_su2022_checks.py::TestC28::test_power_claimed_is_power_shown",  # 20 s
    "tests/verify/test_allouah2025_utility_checks.py::TestC21::test_power_claimed_is_power_shown",  # 13 s
    "tests/verify/test_dutta2023_checks.py::TestC11::test_power_claimed_is_power_shown",  # 9 s
    "tests/verify/test_werner2023_full_checks.py::TestC22::test_power_claimed_is_power_shown",  # 7 s
}


#: Measured 2026-11-28 evening (the default run was 7 min 40 s on 2 cores): a second planted run of a check whose
#: acceptance test already plants the same dependence, and a second seed of a check the sweep shows at 10 of 10 seeds.
SLOW_TESTS |= {
    "tests/verify/test_su2022_checks.py::TestC15::test_planted_wrong_theory",  # 6 s (the p_min and eps plants stay)
    "tests/verify/test_su2022_checks.py::test_c10_planted_m_exponent_errors_are_violated[0.25]",  # 6 s (p plant stays)
    "tests/verify/test_su2022_checks.py::test_c26_planted_exponent_errors_are_violated[upper-N--0.25]",  # 4 s
    "tests/verify/test_su2022_checks.py::test_c26_planted_exponent_errors_are_violated[lower-N--0.25]",  # 4 s
    "tests/verify/test_allouah2025_realdata.py::test_x20_at_expected_at_seeds_0_and_1[1]",  # 4 s
    "tests/verify/test_allouah2025_utility_checks.py::test_c21_tells_t_minus_1_from_t_minus_1_25",  # 9 s
}


ALL_CHECKS_POWER = "tests/test_all_checks.py::test_power_claimed_is_power_shown["


def _contract_power_checks(items) -> set[str]:
    """The check ids whose own CheckContract class (at quick fidelity) is collected with its power test: the same
    assert_power_shown on the same quick Result as test_all_checks' power test of that check."""
    from verify.testing import CheckContract, _spec

    out = set()
    for item in items:
        cls = getattr(item, "cls", None)
        if (cls is not None and issubclass(cls, CheckContract) and cls.check is not None and cls.fidelity == "quick"
                and item.name == "test_power_claimed_is_power_shown"):
            out.add(_spec(cls.check).id)
    return out


@pytest.hookimpl(tryfirst=True)  # before the -m selection of pytest's mark plugin
def pytest_collection_modifyitems(config, items):
    """Marks SLOW_TESTS slow; and test_all_checks' power test of a check whose CheckContract class is collected in the
    same session (it plants the same theory in the same Result again: a whole planted run of the check, twice)."""
    duplicated = _contract_power_checks(items)
    for item in items:
        if item.nodeid in SLOW_TESTS or (item.nodeid.startswith(ALL_CHECKS_POWER)
                                         and item.nodeid[len(ALL_CHECKS_POWER):-1] in duplicated):
            item.add_marker(pytest.mark.slow)
