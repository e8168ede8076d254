"""A rewrite never loses the stored Result: kills, a full disk, concurrent readers, read-only directories,
ids that are paths, the umask."""
import errno
import multiprocessing as mp
import os
import signal
import sys
import time
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pytest

import verify.store as store_mod
from analytic.errors import InputError
from verify.result import Claim, Result, Verdict
from verify.store import NotStored, ResultStore, UnreadableResult
from verify.store_files import atomic_write

CID = "werner2023.c09"


def make_result(tag=0.0, n=20_000, cid=CID):
    return Result(id=cid, paper=cid.split(".")[0], title="t", claim=Claim("c", "x", "Thm 1", "x"), kind="rate",
                  verdict=Verdict.HOLDS, expected=Verdict.HOLDS, observed={"tag": float(tag)},
                  env={"seed": 0, "wall_time_s": 0.1}, arrays={"trace": np.full(n, float(tag))})


def whole(r: Result) -> bool:
    """The JSON and the arrays of one save (never one save's JSON with another's arrays)."""
    return bool(np.all(r.arrays["trace"] == r.observed["tag"]))


def leftovers(root: Path) -> list[str]:
    """Temporaries, and arrays files that no JSON names."""
    named = set()
    for jp in root.rglob("*.json"):
        name = ResultStore(root)._current_arrays(jp) if jp.parent == root else None
        named.add(name)
    return sorted(p.name for p in root.rglob("*") if p.name.endswith(".tmp")
                  or (p.suffix == ".npz" and p.parent == root and p.name not in named))


# -- a kill mid-rewrite -----------------------------------------------------------------------------
def _rewrite_and_hang(root, stage, ready):
    """Rewrite CID with tag 2; the write of the ``stage`` file ('.npz' or '.json') writes half, says so, hangs."""
    real = store_mod.atomic_write

    def slow(path, write):
        if Path(path).suffix != stage:
            return real(path, write)

        def half(fh):
            import io

            buf = io.BytesIO()
            write(buf)
            fh.write(buf.getvalue()[: len(buf.getvalue()) // 2])
            fh.flush()
            ready.set()
            time.sleep(60)

        return real(path, half)

    store_mod.atomic_write = slow
    ResultStore(root).save(make_result(tag=2), {"seed": 0, "k": 2})


@pytest.mark.parametrize("stage", [".npz", ".json"])
def test_sigkill_mid_rewrite_keeps_the_old_result(tmp_path, stage):
    st = ResultStore(tmp_path)
    st.save(make_result(tag=1), {"seed": 0, "k": 1})
    ctx = mp.get_context("fork")
    ready = ctx.Event()
    child = ctx.Process(target=_rewrite_and_hang, args=(tmp_path, stage, ready))
    child.start()
    assert ready.wait(30), "the child never reached the write"
    assert [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]  # killed with a half file on disk
    os.kill(child.pid, signal.SIGKILL)
    child.join(10)
    old = st.load(CID)
    assert old.observed["tag"] == 1.0 and whole(old) and st.is_done(CID, {"seed": 0, "k": 1}) and st.ids() == [CID]
    st.save(make_result(tag=3), {"seed": 0, "k": 3})  # the next write removes what the kill left
    assert leftovers(tmp_path) == [] and st.load(CID).observed["tag"] == 3.0
    assert len(list(tmp_path.glob("*.npz"))) == 1


# -- a full disk ------------------------------------------------------------------------------------
@pytest.mark.parametrize("stage", [".npz", ".json"])
def test_enospc_mid_rewrite_is_one_error_naming_the_directory(tmp_path, monkeypatch, stage):
    st = ResultStore(tmp_path)
    st.save(make_result(tag=1), {"seed": 0})
    real = store_mod.atomic_write

    def full(path, write):
        if Path(path).suffix != stage:
            return real(path, write)

        def fail(fh):
            fh.write(b"some bytes")
            raise OSError(errno.ENOSPC, "No space left on device")

        return real(path, fail)

    monkeypatch.setattr(store_mod, "atomic_write", full)
    with pytest.raises(OSError) as info:
        st.save(make_result(tag=2), {"seed": 0})
    assert info.value.errno == errno.ENOSPC and info.value.filename == str(tmp_path)
    assert "intact" in info.value.strerror
    assert st.load(CID).observed["tag"] == 1.0 and whole(st.load(CID))
    assert leftovers(tmp_path) == []  # nothing left behind, even before the next write
    monkeypatch.setattr(store_mod, "atomic_write", real)
    st.save(make_result(tag=2), {"seed": 0})
    assert st.load(CID).observed["tag"] == 2.0 and leftovers(tmp_path) == []


def test_too_long_a_directory_name_is_bad_input(tmp_path):
    with pytest.raises(InputError) as info:
        ResultStore(tmp_path / ("x" * 300)).save(make_result(), {})
    assert info.value.param == "results" and "too long" in info.value.message


# -- readers during rewrites ------------------------------------------------------------------------
def _rewriter(root, rounds):
    st = ResultStore(root)
    for k in range(rounds):
        st.save(make_result(tag=k, n=50_000), {"seed": 0})


def test_a_polling_reader_never_misses_the_result(tmp_path):
    st = ResultStore(tmp_path)
    st.save(make_result(tag=-1, n=50_000), {"seed": 0})
    ctx = mp.get_context("fork")
    writer = ctx.Process(target=_rewriter, args=(tmp_path, 40))
    writer.start()
    reads, missed, torn = 0, [], 0
    while writer.is_alive() or reads < 20:
        try:
            r = st.load(CID)
            torn += not whole(r)
            assert st.is_done(CID, {"seed": 0}) and st.ids() == [CID]
            assert [x.id for x in st.load_all()[0]] == [CID]
        except (InputError, AssertionError) as exc:  # NotStored, UnreadableResult or a missing id: a miss
            missed.append(repr(exc))
        reads += 1
    writer.join(30)
    assert writer.exitcode == 0 and reads >= 20
    assert missed == [] and torn == 0
    assert st.load(CID).observed["tag"] == 39.0 and leftovers(tmp_path) == []


# -- a read-only directory --------------------------------------------------------------------------
@contextmanager
def no_writes_under(root: Path):
    """Any open for writing, mkdir, rename or remove under ``root`` fails (root ignores file modes, so the
    directory's mode alone would not show a read that writes)."""
    root = str(root.resolve())
    state = {"on": True}

    def hook(event, args):
        if not state["on"]:
            return
        if not args or not isinstance(args[0], (str, bytes, os.PathLike)):  # descriptors: opened before
            return
        if event == "open":
            path, mode, flags = os.path.abspath(os.fsdecode(args[0])), args[1], args[2]
            writing = (mode and any(c in mode for c in "wax+")) or (flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT))
            if writing and path.startswith(root):
                raise PermissionError(errno.EACCES, "read-only results directory (test)", path)
        elif event in ("os.mkdir", "os.rename", "os.remove", "os.rmdir", "os.chmod"):
            if os.path.abspath(os.fsdecode(args[0])).startswith(root):
                raise PermissionError(errno.EACCES, "read-only results directory (test)", args[0])

    os.chmod(root, 0o555)
    sys.addaudithook(hook)  # audit hooks cannot be removed; the flag turns this one off
    try:
        yield
    finally:
        state["on"] = False
        os.chmod(root, 0o755)


def test_read_only_directory_serves_show_list_results_and_report_loading(tmp_path, capsys):
    from reports.stability import load_stability
    from verify import cli
    from verify.cli_results import result_rows

    st = ResultStore(tmp_path)
    st.save(make_result(tag=1), {"seed": 0})
    st.save(make_result(tag=2), {"seed": 2}, seed=2)
    for p in tmp_path.glob(".*.lock"):  # a directory copied without the writers' lock files
        p.unlink()
    with no_writes_under(tmp_path):
        assert st.load(CID).observed["tag"] == 1.0 and st.load(CID, seed=2).observed["tag"] == 2.0
        results, bad = st.load_all()
        assert [r.id for r in results] == [CID] and not bad
        load_stability(tmp_path, None)  # the report's other reading path: sweep points
        assert [r["seed"] for r in result_rows(tmp_path)[0]] == [0, 2]
        assert cli.main(["show", CID, "--results", str(tmp_path)]) == 0
        assert cli.main(["show", CID, "--seed", "2", "--results", str(tmp_path), "--json"]) == 0
        assert cli.main(["list", "--paper", "werner2023", "--results", str(tmp_path)]) == 0
        assert cli.main(["results", "--results", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "1 with stored Results" in out and "2 stored Results" in out
    with no_writes_under(tmp_path), pytest.raises(PermissionError):  # the guard itself works
        st.save(make_result(tag=3), {"seed": 0})


# -- ids are not paths ------------------------------------------------------------------------------
@pytest.mark.parametrize("bad", ["../../evil", "werner2023/../../x", "a.b/c", ".hidden.c01", "nodot", "a..b",
                                 "p." + "x" * 65, "werner2023.c09\x00"])
def test_an_unsafe_id_is_refused_before_any_path(tmp_path, bad):
    root = tmp_path / "results"
    r = make_result()
    r.id = bad
    with pytest.raises(InputError) as info:
        ResultStore(root).save(r, {})
    assert info.value.param == "id"
    assert not root.exists() and sorted(p.name for p in tmp_path.rglob("*")) == []
    with pytest.raises(InputError):
        ResultStore(root).load(bad)


def test_a_stored_file_claiming_another_id_is_unreadable(tmp_path):
    st = ResultStore(tmp_path)
    st.save(make_result(), {})
    text = st.json_path(CID).read_text().replace(f'"id": "{CID}"', '"id": "../../evil"')
    st.json_path(CID).write_text(text)
    with pytest.raises(UnreadableResult, match="another check's Result"):
        st.load(CID)
    with pytest.raises(NotStored):
        st.load(CID, seed=4)


# -- the umask ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("umask", [0o002, 0o022, 0o077])
def test_files_honour_the_umask(tmp_path, umask):
    old = os.umask(umask)
    try:
        st = ResultStore(tmp_path)
        st.save(make_result(), {})
        atomic_write(tmp_path / "report.pdf", lambda fh: fh.write(b"%PDF"))  # the PDF is written through here
    finally:
        os.umask(old)
    files = [st.json_path(CID), *tmp_path.glob("*.npz"), tmp_path / "report.pdf"]
    assert len(files) == 3
    assert {oct(p.stat().st_mode & 0o777) for p in files} == {oct(0o666 & ~umask)}


@pytest.mark.parametrize("seed", [-1, True, 1.5, "3"])
def test_a_seed_that_is_not_a_whole_number_is_refused(tmp_path, seed):
    with pytest.raises(InputError) as info:
        ResultStore(tmp_path / "results").save(make_result(), {}, seed=seed)
    assert info.value.param == "seed" and not (tmp_path / "results").exists()
    with pytest.raises(InputError):
        ResultStore(tmp_path / "results").load(CID, seed=seed)
