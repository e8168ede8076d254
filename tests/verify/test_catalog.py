"""The catalogue (verify/catalog.py) answers `fedverify list` and `show` from the check modules' source: it
must agree with the registry exactly, notice a changed file, and keep torch out of the quick commands."""
import json
import subprocess
import sys

import pytest

from verify import catalog
from verify.registry import load_all


def test_the_catalogue_agrees_with_the_registry():
    rows = catalog.entries()
    installed = tuple(ep.value for ep in catalog.entry_points(group=catalog.ENTRY_POINT_GROUP))
    # other tests register checks of their own: compare with the installed modules' checks only
    reg = {k: s for k, s in load_all().items() if s.module.startswith(installed)}
    assert rows is not None and [e.id for e in rows] == list(reg)
    for e in rows:
        s = reg[e.id]
        assert (e.title, e.kind, e.expected) == (s.title, s.kind, s.expected.value), e.id
        assert e.searchable == (getattr(s, "space", None) is not None), e.id


def test_a_changed_file_is_read_again_and_a_non_literal_decorator_falls_back(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    mod = tmp_path / "fvcat_mod.py"
    mod.write_text('T = "first"\n@check("zz2099.c01", T, "bound", "holds", statements=("Theorem 1",))\ndef c01(ctx):\n    pass\n')
    assert [e.title for e in catalog._checks_in(mod)] == ["first"]
    mod.write_text('@check("zz2099.c01", "second " + name, "bound", "holds", statements=("Theorem 1",))\ndef c01(ctx):\n    pass\n')
    with pytest.raises(catalog._NotLiteral):
        catalog._checks_in(mod)
    first = catalog.entries()
    assert (tmp_path / "cache" / "fedverify" / "catalog.json").exists()
    assert catalog.entries() == first  # from the cache
    monkeypatch.setenv("FEDVERIFY_CHECKS", "some_module")
    assert catalog.entries() is None  # only an import can tell


@pytest.mark.parametrize("argv", [["--help"], ["list"], ["list", "--json"], ["--version"]])
def test_quick_commands_do_not_import_torch(argv, tmp_path):
    code = ("import sys\nfrom verify.cli import main\ntry:\n    main(%r)\nexcept SystemExit:\n    pass\n"
            "print('TORCH', 'torch' in sys.modules, 'sympy' in sys.modules)" % argv)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120).stdout
    assert out.strip().splitlines()[-1] == "TORCH False False", out[-500:]


def test_list_json_marks_searchable_checks():
    out = subprocess.run([sys.executable, "-m", "verify.cli", "list", "--json"], capture_output=True, text=True,
                         timeout=120).stdout
    rows = json.loads(out)
    reg = load_all()
    assert {r["id"] for r in rows} <= set(reg) and len(rows) >= 130
    assert all(r.get("searchable", False) == (getattr(reg[r["id"]], "space", None) is not None) for r in rows)
    assert sum(r.get("searchable", False) for r in rows) >= 10


def test_running_named_checks_imports_only_their_modules():
    """`fedverify run ID` pays for its own checks: select() with explicit ids imports the modules that define them
    (read from the source by the catalogue), not every paper's."""
    import subprocess
    import sys

    code = ("import sys; from verify.registry import select; s = select(['dutta2023.c08']); "
            "print(s[0].id, sorted({m.split('.')[2] for m in sys.modules if m.startswith('verify.checks.')}))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split()[0] == "dutta2023.c08" and "'dutta2023'" in out.stdout
    assert "werner2023" not in out.stdout and "su2022" not in out.stdout
