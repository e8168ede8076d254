"""What answers at once: every ``--help``, a ``run`` whose Results are all stored; and the thread count of a run."""
import json
import subprocess
import sys

import pytest

from verify import cli, cli_stored
from verify.codehash import closure_hash, module_closure

FAST = "werner2023.c15"
PROBE = ("import sys\nfrom verify.cli import main\ntry:\n    code = main(%r)\nexcept SystemExit as e:\n    code = e.code\n"
         "print('RC', code, 'torch' in sys.modules, 'sympy' in sys.modules)")


def _probe(argv):
    out = subprocess.run([sys.executable, "-c", PROBE % argv], capture_output=True, text=True, timeout=300).stdout
    return out.strip().splitlines()[-1].split()[1:]


@pytest.mark.parametrize("command", ["run", "show", "list", "report", "demo", "privacy", "constants", "search",
                                     "sweep", "results"])
def test_every_help_imports_neither_torch_nor_sympy(command):
    if command not in {*cli.COMMANDS, *cli.command_modules()}:
        pytest.skip(f"no {command} subcommand on this branch")
    assert _probe([command, "--help"]) == ["0", "False", "False"]


def test_constants_problem_help_builds_only_that_problem():
    from verify.cli_constants import declared_problems, load_problems

    declared = declared_problems()
    assert declared is not None and set(declared) == set(load_problems())
    assert all(declared[k][0] == p.help for k, p in load_problems().items())
    out = subprocess.run([sys.executable, "-m", "verify.cli", "constants", "least-squares", "--help"],
                         capture_output=True, text=True, timeout=300).stdout
    assert "--n-total" in out and "--json" in out


def test_stored_run_answers_without_torch(tmp_path):
    res = tmp_path / "res"
    assert cli.main(["run", FAST, "--results", str(res), "--quiet"]) == 0
    if not cli_stored._no_gpu_possible():
        pytest.skip("a GPU may be present: the shortcut leaves 'auto' to torch")
    assert _probe(["run", FAST, "--results", str(res), "--quiet"]) == ["0", "False", "False"]
    # what the shortcut computes is what the full path computes
    from verify.engine import Context
    from verify.registry import get

    spec = get(FAST)
    args = cli.build_parser().parse_args(["run", FAST])
    assert cli_stored.light_key(args, spec.module, cli_stored.library_versions()) == spec.rerun_key(Context())
    # a different setting is not answered from the store
    args = cli.build_parser().parse_args(["run", FAST, "--replicates", "12", "--results", str(res)])
    from verify.store import ResultStore

    assert cli_stored.answer(args, ResultStore(res), print) is None


def test_code_hash_reads_source_only():
    closure = module_closure("verify.checks.werner2023.threshold_clustering")
    assert "analytic.papers.werner2023" in closure and "verify.registry" in closure
    assert len(closure_hash("verify.checks.werner2023.threshold_clustering")) == 16


@pytest.mark.parametrize("threads", [None, 2])
def test_run_uses_one_thread_unless_told(tmp_path, threads, capsys):
    import torch

    before = torch.get_num_threads()
    argv = ["run", FAST, "--results", str(tmp_path), "--quiet", "--json", "-", "--force"]
    try:
        assert cli.main(argv + ([] if threads is None else ["--threads", str(threads)])) == 0
    finally:
        torch.set_num_threads(before)
    env = json.loads(capsys.readouterr().out)[0]["env"]
    assert env["torch_threads"] == (threads or 1)


def test_threads_is_checked(capsys):
    with pytest.raises(SystemExit) as exc:
        cli.main(["run", FAST, "--threads", "0"])
    assert exc.value.code == 2 and "--threads" in capsys.readouterr().err
