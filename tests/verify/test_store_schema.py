"""Stored files are not trusted: every malformed file is UnreadableResult naming it, never another check's
Result and never a crash of `show`, `list`, `results` or the report's loading, which go on for the others."""
import copy
import json

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reports.stability import load_stability
from verify import cli
from verify.cli_results import result_rows
from verify.result import Assumption, Claim, Result, Verdict, remark
from verify.result_schema import READABLE_FORMATS
from verify.store import ResultStore, UnreadableResult

A, B = "werner2023.c09", "werner2023.c10"  # A is damaged, B must survive it


def make_result(cid, tag=1.0):
    return Result(id=cid, paper="werner2023", title="t", claim=Claim("c", "x", "Thm 1", "x"), kind="rate",
                  verdict=Verdict.HOLDS, expected=Verdict.HOLDS, observed={"tag": tag, "curve": [1.0, float("nan")]},
                  assumptions=[Assumption("a", True, 1.0)], env={"seed": 0, "wall_time_s": 0.5},
                  margin={"text": "m"}, power={"text": "p"}, finding=remark("r"), arrays={"trace": np.zeros(3)})


def fresh(root):
    st_ = ResultStore(root)
    st_.save(make_result(A), {"seed": 0})
    st_.save(make_result(B), {"seed": 0})
    st_.save(make_result(A, 2.0), {"seed": 4}, seed=4)  # a sweep point of A, for the report's stability page
    return st_


def readers_survive(root, capsys, path) -> bool:
    """Every reader on a directory where ``path`` may be damaged: True when the damaged file was refused."""
    store = ResultStore(root)
    try:
        r = store.load(A) if path.parent == root else store.load(A, seed=4)
        refused = False
        assert r.id == A  # if it is read at all, it is A's Result
        json.dumps(r.to_dict(), allow_nan=True)
    except UnreadableResult as exc:
        refused = True
        assert exc.param == str(path) and "rerun with --force" in exc.message
    results, bad = store.load_all()
    assert B in [x.id for x in results] and all(x.id in (A, B) for x in results)
    assert (A in [x.id for x in results]) != (A in [b[0] for b in bad]) or path.parent != root
    rows, unreadable = result_rows(root)
    assert B in [r["id"] for r in rows] and len(rows) + len(unreadable) == 3
    load_stability(root, None)
    capsys.readouterr()
    seed = [] if path.parent == root else ["--seed", "4"]
    code = cli.main(["show", A, "--results", str(root), *seed])
    err = capsys.readouterr().err
    assert code == (2 if refused else 0) and (not refused or (err.count("\n") == 1 and str(path) in err))
    assert cli.main(["show", B, "--results", str(root)]) == 0
    assert cli.main(["list", "--paper", "werner2023", "--results", str(root)]) == 0
    assert cli.main(["results", "--results", str(root)]) == 0
    capsys.readouterr()
    return refused


def _set(doc, path, value):
    d = doc
    for k in path[:-1]:
        d = d[k]
    if value is _DELETE:
        d.pop(path[-1], None) if isinstance(d, dict) else None
    else:
        d[path[-1]] = value


_DELETE = object()
CASES = {
    "observed a string": (("result", "observed"), "12.5"),
    "env a list": (("result", "env"), [1, 2]),
    "margin a list": (("result", "margin"), [0.1, 0.2]),
    "format 99": (("format",), 99),
    "format as text": (("format",), "2"),
    "format true": (("format",), True),
    "no format": (("format",), _DELETE),
    "arrays outside the directory": (("arrays",), "../../etc/passwd"),
    "held as text": (("result", "assumptions", 0, "held"), "yes"),
    "a finding of no kind": (("result", "finding", "kind"), "bogus"),
    "a verdict of no kind": (("result", "verdict"), "maybe"),
    "a seed as text": (("result", "env", "seed"), "0"),
    "margin text a number": (("result", "margin", "text"), 3),
    "claim a string": (("result", "claim"), "c"),
    "an unknown field": (("result", "extra"), 1),
    "the point of another seed": (("point", "seed"), 3),
    "no result": (("result",), _DELETE),
    "observed nested 200 deep": (("result", "observed"), json.loads("{\"a\": " + "[" * 200 + "]" * 200 + "}")),
}


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("where", ["top", "sweep"])
def test_named_malformed_files_are_refused(tmp_path, capsys, case, where):
    store = fresh(tmp_path)
    path = store.json_path(A) if where == "top" else store.json_path(A, 4)
    doc = json.loads(path.read_text())
    _set(doc, *CASES[case])
    path.write_text(json.dumps(doc, allow_nan=True))
    assert readers_survive(tmp_path, capsys, path)


@pytest.mark.parametrize("text", [
    "[" * 100_000 + "]" * 100_000,  # 100,000-deep nesting: the parser's recursion, not a crash
    '{"format": 2, "result": {"observed": ' + "[" * 100_000 + "]" * 100_000 + "}}",
    "{not json", "", "\xff\xfe", "null", "[]", '"text"', "1e999999"])
def test_unparseable_files_are_refused(tmp_path, capsys, text):
    store = fresh(tmp_path)
    path = store.json_path(A)
    path.write_text(text, errors="surrogateescape")
    assert readers_survive(tmp_path, capsys, path)


def test_another_checks_json_under_this_id_is_refused(tmp_path, capsys):
    store = fresh(tmp_path)
    store.json_path(A).write_bytes(store.json_path(B).read_bytes())
    with pytest.raises(UnreadableResult, match="another check's Result"):
        store.load(A)
    assert readers_survive(tmp_path, capsys, store.json_path(A))


def test_damaged_arrays_are_refused(tmp_path, capsys):
    store = fresh(tmp_path)
    doc = json.loads(store.json_path(A).read_text())
    (tmp_path / doc["arrays"]).write_bytes(b"PK\x03\x04 not a zip")
    with pytest.raises(UnreadableResult):
        store.load(A)
    assert readers_survive(tmp_path, capsys, tmp_path / doc["arrays"]) is not None


def test_every_format_this_version_reads_round_trips(tmp_path):
    store = fresh(tmp_path)
    doc = json.loads(store.json_path(A).read_text())
    assert doc["format"] == max(READABLE_FORMATS)
    assert store.load(A).observed["tag"] == 1.0 and store.load(A, seed=4).observed["tag"] == 2.0


def test_to_dict_is_asdict_without_the_arrays_and_copies_none():
    """Result.to_dict converts the fields but the arrays itself (dataclasses.asdict deep-copied the arrays only to
    drop them): the same document as asdict's, nested dataclasses, numpy and torch values included."""
    from dataclasses import asdict

    import torch

    from verify.result import _jsonable

    res = Result(id="x.c01", paper="x", title="t", claim=Claim("a <= b", "Theorem 1"), kind="bound",
                 verdict=Verdict.HOLDS, expected=Verdict.HOLDS, observed={"v": np.float64(2.5), "t": torch.ones(2)},
                 assumptions=[Assumption("L", True, np.int64(3))], explanation="e",
                 arrays={"big": np.zeros((400, 400))})
    old = asdict(res)
    old.pop("arrays")
    old.update(verdict="holds", expected="holds", array_names=["big"])
    assert json.dumps(res.to_dict()) == json.dumps(_jsonable(old))


def test_numeric_arrays_convert_in_one_step_to_what_the_element_walk_gave():
    """_jsonable takes a bool, int or float array's tolist() as it is (it holds plain Python values already): the same
    JSON as walking the elements, for every such kind, 0-d to 3-d, with NaN and infinities; object arrays still walk."""
    from verify.result import _jsonable

    def walked(x):
        if isinstance(x, np.ndarray):
            return walked(x.tolist())
        if isinstance(x, list):
            return [walked(v) for v in x]
        return _jsonable(x)

    rng = np.random.default_rng(7)
    floats = rng.standard_normal((3, 4, 2))
    floats[0, 0, 0], floats[1, 2, 1], floats[2, 3, 0] = np.nan, np.inf, -np.inf
    arrays = [floats, floats.astype(np.float32), floats[0, 0], np.float64(2.5) * np.ones(()), rng.integers(-9, 9, (2, 5)),
              rng.integers(0, 9, 4).astype(np.uint16), rng.random((2, 3)) < 0.5, np.zeros((0, 3)),
              np.array([np.float64(1.5), None, {"k": np.int64(2)}], dtype=object)]
    for a in arrays:
        got, ref = _jsonable(a), walked(a)
        assert json.dumps(got, allow_nan=True) == json.dumps(ref, allow_nan=True), a.dtype
        assert [type(v) for v in np.ravel(got)] == [type(v) for v in np.ravel(ref)]


# -- fuzzed: any field replaced by any JSON value, or removed --------------------------------------------
FIELDS = [("format",), ("run_config",), ("point",), ("point", "grid"), ("arrays",), ("result",),
          *[("result", k) for k in ("id", "paper", "title", "claim", "kind", "verdict", "expected", "observed",
                                    "predicted", "fit", "explanation", "assumptions", "env", "figure", "finding",
                                    "paper_info", "control", "margin", "power", "tightness", "array_names")],
          ("result", "claim", "text"), ("result", "claim", "source"), ("result", "assumptions", 0),
          ("result", "assumptions", 0, "value"), ("result", "assumptions", 0, "held"), ("result", "finding", "kind"),
          ("result", "env", "seed"), ("result", "env", "wall_time_s"), ("result", "margin", "text"),
          ("result", "observed", "tag")]
JSON = st.recursive(st.none() | st.booleans() | st.integers(-10**20, 10**20) | st.floats(allow_nan=True)
                    | st.text(max_size=8),
                    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
                    max_leaves=8)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(field=st.sampled_from(FIELDS), value=st.one_of(JSON, st.just(_DELETE)), top=st.booleans())
def test_fuzzed_stored_files_never_crash_a_reader(tmp_path_factory, capsys, field, value, top):
    root = tmp_path_factory.mktemp("fuzz")
    store = fresh(root)
    path = store.json_path(A) if top else store.json_path(A, 4)
    doc = json.loads(path.read_text())
    _set(doc, field, value if value is _DELETE else copy.deepcopy(value))
    path.write_text(json.dumps(doc, allow_nan=True))
    readers_survive(root, capsys, path)


def test_a_field_added_to_result_is_typed_by_its_default():
    from dataclasses import dataclass, field

    from verify.result_schema import DICT_FIELDS, other_fields

    @dataclass
    class Grown(Result):
        undecided: list = field(default_factory=list)
        count: int = 0
        exact: bool = False

    assert other_fields(Result) == {}  # every field of today's Result has its own rule
    assert other_fields(Grown) == {"undecided": list, "count": int, "exact": bool}
    assert "observed" in DICT_FIELDS and "margin" in DICT_FIELDS
