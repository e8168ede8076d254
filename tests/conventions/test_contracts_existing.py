"""The check contract (verify.testing.CheckContract) for the checks that predate it: serialisation,
claim and source, expected verdict, same seed same numbers. Their planted-wrong-theory tests live
beside their acceptance numbers (tests/verify/test_werner2023_checks.py, test_allouah2025_checks.py,
tests/counterexamples/test_examples.py), so ``planted`` is None here."""
from __future__ import annotations

import pytest

from verify.registry import load_all
from verify.testing import CheckContract

EXISTING = [f"werner2023.c{i:02d}" for i in range(1, 17)] + ["werner2023.x01"] + \
           [f"allouah2025.c{i:02d}" for i in range(1, 11)]
CHECKS = load_all()


def _contract(check_id: str) -> type:
    return type(f"Test_{check_id.replace('.', '_')}", (CheckContract,), {"check": CHECKS[check_id], "planted": None})


for _cid in EXISTING:
    globals()[f"Test_{_cid.replace('.', '_')}"] = _contract(_cid)


def test_every_existing_check_is_covered():
    assert set(EXISTING) <= set(CHECKS)
    missing = [c for c in EXISTING if f"Test_{c.replace('.', '_')}" not in globals()]
    assert not missing, missing


@pytest.mark.parametrize("check_id", EXISTING)
def test_registered_paper_metadata(check_id):
    from verify.testing import run_quick

    info = run_quick(check_id).paper_info
    assert info["key"] == check_id.split(".")[0] and info["title"] and info["authors"]
