"""The report's verdict stability (reports/stability.py): the front table's column and the page listing
every check below 100 % with its off-expected seeds, from sweep points in the results directory."""
from __future__ import annotations

from reports.pdf import build_report
from reports.stability import load_stability, stability_cell
from reports.typst_markup import escape
from verify.result import Claim, Result, Verdict
from verify.store import ResultStore


def make(cid, verdict="holds", seed=0, overrides=None, success=None):
    observed = {"x": 1.0} if success is None else {"sweep_success": success}
    return Result(id=cid, paper=cid.split(".")[0], title="a title", claim=Claim("c", "x", "Thm 1", "x"), kind="bound",
                  verdict=Verdict(verdict), expected=Verdict.HOLDS, observed=observed,
                  env={"seed": seed, **({"overrides": overrides} if overrides else {})})


def test_stability_column_and_page(tmp_path):
    st = ResultStore(tmp_path)
    for s in range(4):  # one check off expected at seed 2; another always at expected; one not swept
        st.save(make("zz2020.c01", "violated" if s == 2 else "holds", s), {"seed": s}, seed=s)
        st.save(make("zz2020.c02", seed=s), {"seed": s}, seed=s)
        for m in (10, 40):  # a grid with a success criterion of its own: the figure's curve
            st.save(make("zz2020.c02", seed=s, success=(m == 40 or s == 0)), {"seed": s, "m": m}, seed=s, grid={"m": m})
    st.save(make("zz2020.c03"), {"seed": 0})
    rows, points = load_stability(tmp_path)
    assert sorted(rows) == ["zz2020.c01", "zz2020.c02"] and "zz2020.c03" not in rows
    (r1,) = rows["zz2020.c01"]
    assert (r1["runs"], r1["at_expected"], [o["seed"] for o in r1["off"]]) == (4, 3, [2])
    assert 0 < r1["ci"][0] < 0.75 < r1["ci"][1] < 1
    assert stability_cell(rows["zz2020.c02"]) == escape("12/12 (3 pts)") and escape("3/4") in stability_cell(rows["zz2020.c01"])
    assert stability_cell(None) == "—"
    src = tmp_path / "r.typ"
    build_report(tmp_path, out=tmp_path / "r.pdf", typst_source=src)
    text = src.read_text()
    assert "[*stability*]" in text and "= Verdict stability" in text
    page = text[text.index("= Verdict stability"):]
    assert "zz2020\\.c01" in page and escape("seed 2: violated") in page and "zz2020\\.c02" not in page.split("#figure")[0]
    assert "#figure(image(" in page and "success probability" in page  # the m-curve of zz2020.c02


def test_no_sweep_no_stability(tmp_path):
    ResultStore(tmp_path).save(make("zz2020.c03"), {"seed": 0})
    src = tmp_path / "r.typ"
    build_report(tmp_path, out=tmp_path / "r.pdf", typst_source=src)
    text = src.read_text()
    assert "[*stability*]" not in text and "Verdict stability" not in text


def test_a_directory_only_a_sweep_wrote_is_reported(tmp_path):
    """The README's recipe sweeps into a fresh directory (grid points only, no top-level Result) and then reports
    it: each swept check gets its section from its first point, and the stability page with the success curve."""
    st = ResultStore(tmp_path)
    for s in range(2):
        for m in (10, 40):
            st.save(make("zz2020.c02", seed=s, success=(m == 40)), {"seed": s, "m": m}, seed=s, grid={"m": m})
    assert not ResultStore(tmp_path).load_all()[0]  # nothing at the top level
    src = tmp_path / "r.typ"
    build_report(tmp_path, out=tmp_path / "r.pdf", typst_source=src)
    text = src.read_text()
    assert "zz2020\\.c02" in text and "= Verdict stability" in text and "success probability" in text
