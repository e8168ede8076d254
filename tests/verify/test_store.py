import numpy as np
import pytest

from verify.result import Assumption, Claim, Result, Verdict
from verify.store import ResultStore


def make_result(cid="werner2023.c09", **kw):
    return Result(id=cid, paper=cid.split(".")[0], title="t", claim=Claim("c", "x", "Thm 1", "x"), kind="rate",
                  verdict=Verdict.HOLDS, expected=Verdict.HOLDS, observed={"y": np.array([1.0, np.inf])},
                  assumptions=[Assumption("a", True, 1.0)], **kw)


def test_roundtrip_with_arrays(tmp_path):
    st = ResultStore(tmp_path)
    r = make_result(arrays={"trace": np.arange(6.0).reshape(2, 3)})
    st.save(r, {"seed": 0})
    back = st.load(r.id)
    assert back.verdict == Verdict.HOLDS and back.observed["y"][1] == float("inf")
    np.testing.assert_array_equal(back.arrays["trace"], r.arrays["trace"])
    assert st.ids() == [r.id] and st.is_done(r.id, {"seed": 0}) and not st.is_done(r.id, {"seed": 1})


def test_cut_off_save_keeps_the_old_result_whole(tmp_path, monkeypatch):
    st = ResultStore(tmp_path)
    st.save(make_result(arrays={"trace": np.zeros(3)}), {"seed": 0})

    def boom(*a, **k):
        raise KeyboardInterrupt

    with monkeypatch.context() as m:
        m.setattr(np, "savez_compressed", lambda fh, **arrays: (fh.write(b"PK partial"), boom()))  # cut off mid-arrays
        with pytest.raises(KeyboardInterrupt):
            st.save(make_result(arrays={"trace": np.ones(3)}), {"seed": 1})
    back = st.load("werner2023.c09")  # the old Result, with its own arrays
    assert st.is_done("werner2023.c09", {"seed": 0}) and np.all(back.arrays["trace"] == 0)
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]
    st.save(make_result(arrays={"trace": np.ones(3)}), {"seed": 1})
    assert np.all(st.load("werner2023.c09").arrays["trace"] == 1)
    assert len(list(tmp_path.glob("*.npz"))) == 1  # the old arrays went with the switch


def test_corrupt_json_counts_as_not_done(tmp_path):
    st = ResultStore(tmp_path)
    st.json_path("werner2023.c09").parent.mkdir(parents=True, exist_ok=True)
    st.json_path("werner2023.c09").write_text("{not json")
    assert not st.is_done("werner2023.c09", {})


def test_load_all_sorted_by_claim_number(tmp_path):
    st = ResultStore(tmp_path)
    for cid in ("werner2023.c10", "werner2023.x01", "werner2023.c09", "allouah2025.c01"):
        st.save(make_result(cid))
    assert [r.id for r in st.load_all()[0]] == ["allouah2025.c01", "werner2023.c09", "werner2023.c10", "werner2023.x01"]
    assert [r.id for r in st.load_all(paper="allouah2025")[0]] == ["allouah2025.c01"]
