"""The PDF report builds offline from whatever Results are stored, and shows what it must."""
from __future__ import annotations

import shutil
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from reports.pdf import build_report
from verify import cli
from verify.result import Assumption, Claim, Result, erratum
from verify.store import ResultStore

NASTY = r"""#set page(width: 1cm) $x$ *bold* _emph_ <label> @ref [a] ] \ `raw` // c /* d
= heading -- a ~ b 1. one + two - three https://x.y/z \u{41} #{1 + } "q" 'q' {} ()%^&|"""

DRAW_MODULE = textwrap.dedent(
    '''
    import numpy as np
    from matplotlib.figure import Figure

    def ok(result, path):
        fig = Figure(figsize=(4, 3))
        ax = fig.subplots()
        ax.plot(np.arange(5), np.arange(5) ** 2)
        fig.savefig(path, dpi=80)

    def boom(result, path):
        raise RuntimeError("exploded on purpose <#>")
    '''
)


def _band_panel(T, decay, reps=30, seed=0, title="error vs rounds", yscale="log"):
    rng = np.random.default_rng(seed)
    Y = (T[None, :] ** -decay) * np.exp(rng.normal(0, 0.2, (reps, T.size)))
    mean = Y.mean(0)
    lo, hi = np.quantile(Y, 0.025, 0), np.quantile(Y, 0.975, 0)
    return {
        "title": title, "xlabel": "rounds $T$", "ylabel": r"$\|x_T - x^\star\|^2$",
        "xscale": "log", "yscale": yscale,
        "series": [
            {"label": "observed", "x": T.tolist(), "y": mean.tolist(), "lo": lo.tolist(), "hi": hi.tolist(),
             "band_label": f"95% bootstrap CI over {reps} replicates", "role": "observed"},
            {"label": "bound", "x": T.tolist(), "y": (3 * T ** -decay).tolist(), "lo": None, "hi": None,
             "band_label": "", "role": "bound"},
            {"label": "slope -1", "x": T.tolist(), "y": (T ** -1.0).tolist(), "lo": None, "hi": None,
             "band_label": "", "role": "reference"},
        ],
    }


def synthetic_results(n_extra: int = 0) -> list[Result]:
    """A panelled rate check, a draw that works, a draw that raises, no figure, a finding, an
    erratum, nasty text everywhere, a LaTeX-only claim and a bad typst formula; plus n_extra
    ordinary rate checks."""
    T = np.unique(np.logspace(0, 3, 12).astype(int)).astype(float)
    env = {"python": "3.11.2", "torch": "2.13.0", "numpy": "2.1", "device": "cpu", "dtype": "float64",
           "fidelity": "quick", "replicates": None, "seed": 0, "wall_time_s": 1.25}
    asm = [Assumption("L-smooth", True, 2.0, "exact", "largest Hessian eigenvalue"),
           Assumption("A² heterogeneity", False, 3.2e-5, "upper bound", "QP bound on cluster gaps")]
    out = [
        Result(
            id="synth2099.c01", paper="synth2099", title="FedAvg rate O(1/T)",
            claim=Claim("The error after T rounds is at most C/T.", latex=r"\|x_T-x^\star\|^2 \le C/T",
                        source="Theorem 3.1, eq. (14)", typst="norm(x_T - x^star)^2 <= C / T"),
            kind="rate", verdict="holds", expected="holds",
            observed={"T": T.tolist(), "err_mean": (1 / T).tolist(), "slope": -0.98, "n_clients": 20,
                      "per_replicate": np.random.default_rng(1).random((30, 12)).tolist(),
                      "ci": {"lo": 0.1, "hi": 0.3}},
            predicted={"exponent": -1.0, "C": 3.0, "bound": (3 / T).tolist()},
            fit={"slope": -0.9852, "slope_ci": [-1.02, -0.95], "predicted_exponent": -1.0, "tolerance": 0.1,
                 "tight": True, "constant": 2.71828},
            explanation="The fitted slope is within tolerance of -1 and observed/g shows no upward trend.",
            assumptions=asm, env=env, tightness="vacuous",
            margin={"atom": "bound", "measure": "ratio", "value": 2.5e-4, "ci": [2e-4, 3e-4],
                    "text": "worst observed/bound 0.00025 (CI 0.0002 to 0.0003)"},
            power={"value": 2e-4, "text": "a bound 0.0002x as large would be violated", "plant": {"scale": 1.8e-4}},
            control={"what": "plain mean in place of the filter", "verdict": "violated", "detail": "diverges"},
            figure={"panels": [_band_panel(T, 1.0), _band_panel(T, 0.5, title="second panel"),
                               _band_panel(T, 1.0, yscale="linear", title="linear")]},
        ),
        Result(
            id="synth2099.c02", paper="synth2099", title="custom drawing",
            claim=Claim("Custom figure drawn by a callable.", typst="sum_(i=1)^n x_i"),
            kind="bound", verdict="violated", expected="holds", env={**env, "wall_time_s": 75.0},
            figure={"draw": "fv_test_draws:ok"}, explanation="The bound fails at T = 10.",
        ),
        Result(
            id="synth2099.c03", paper="synth2099", title="drawing that raises",
            claim=Claim("A claim whose figure cannot be drawn."), kind="identity",
            verdict="inconclusive", expected="inconclusive", env=env,
            figure={"draw": "fv_test_draws:boom"},
        ),
        Result(
            id="synth2099.c04", paper="synth2099", title="no figure, with finding",
            claim=Claim("The paper's Lemma 2 constant is off by a factor 2.", source="Lemma 2"),
            kind="erratum", verdict="violated", expected="violated", env=env,
            finding=erratum("Lemma 2 holds only with constant 4, not 2 (confirmed at every grid point).",
                            paper_says="Lemma 2: ||g|| <= 2 L (line 120)", correction="||g|| <= 4 L",
                            witness="the quadratic x^2/2 at x = 3: ratio 3.97",
                            second_argument="exact: the Hessian bound gives 4 L by eq. (7)",
                            reproduce="fedverify run synth2099.c04 --seed 0"),
            explanation="Observed ratio 3.97 exceeds 2.",
        ),
        Result(
            id="synth2099.c05", paper="synth2099", title=NASTY,
            claim=Claim(NASTY, latex="", source=NASTY, typst=""), kind="counterexample",
            verdict="not_reproduced", expected="reproduced",
            observed={NASTY: NASTY, "x#y": [1, 2, 3]}, predicted={"$": "]["}, fit={"weird_key#": NASTY},
            explanation=NASTY, finding=NASTY, env={**env, "device": NASTY},
            assumptions=[Assumption(NASTY, True, float("nan"), NASTY, NASTY)],
            figure={"panels": [{"title": NASTY, "xlabel": "$\\frac{", "ylabel": NASTY, "xscale": "log",
                                "yscale": "log", "series": [
                                    {"label": "_hidden?", "x": [0, 1, 2, 3], "y": [-1, 0, 1, 2],
                                     "lo": [-2, -1, 0.5, 1.5], "hi": [0, 1, 2, 3], "band_label": NASTY,
                                     "role": "observed"}]}]},
        ),
        Result(
            id="synth2099.c06", paper="synth2099", title="LaTeX-only formula",
            claim=Claim("Rendered through mathtext.", latex=r"$\sum_{i=1}^{n} \frac{\sigma^2}{\mu T}$"),
            kind="privacy", verdict="reproduced", expected="reproduced", env=env,
        ),
        Result(
            id="synth2099.c07", paper="synth2099", title="broken typst formula",
            claim=Claim("The formula is not valid typst math.", typst="x^( ] #nonexistent_fn()",
                        latex=r"\notacommand{"),
            kind="assumption", verdict="holds", expected="holds", env=env,
        ),
        Result(
            id="other2098.c01", paper="other2098", title="second paper",
            claim=Claim("Another paper's claim.", latex=r"\notacommand{"), kind="bound",
            verdict="holds", expected="holds", env={**env, "device": "cuda (H100)"},
            figure={"panels": [_band_panel(T, 1.0)]},
        ),
    ]
    for k in range(n_extra):
        out.append(Result(
            id=f"bulk2097.c{k + 1:02d}", paper="bulk2097", title=f"bulk rate check {k + 1}",
            claim=Claim("Error decays like 1/sqrt(T).", source=f"Theorem {k + 1}",
                        typst="EE[f(x_T)] - f^* <= C / sqrt(T)"),
            kind="rate", verdict="holds", expected="holds",
            observed={"T": T.tolist(), "slope": -0.51}, predicted={"exponent": -0.5},
            fit={"slope": -0.51, "slope_ci": [-0.55, -0.47], "predicted_exponent": -0.5, "tolerance": 0.05},
            explanation="Slope within tolerance.", assumptions=asm, env=env,
            figure={"panels": [_band_panel(T, 0.5, seed=k), _band_panel(T, 0.5, seed=k + 100)]},
        ))
    return out


@pytest.fixture
def draws(tmp_path, monkeypatch):
    mod_dir = tmp_path / "mods"
    mod_dir.mkdir()
    (mod_dir / "fv_test_draws.py").write_text(DRAW_MODULE)
    monkeypatch.syspath_prepend(str(mod_dir))
    sys.modules.pop("fv_test_draws", None)
    yield
    sys.modules.pop("fv_test_draws", None)


def _store(tmp_path, results):
    d = tmp_path / "results"
    store = ResultStore(d)
    for r in results:
        store.save(r, {"fidelity": "quick"})
    return d


def _pdftext(path) -> str | None:
    """The PDF's text: poppler's pdftotext where installed, else pypdf (a test dependency), so the
    text assertions run on every machine instead of skipping."""
    exe = shutil.which("pdftotext")
    if exe is not None:
        return subprocess.run([exe, "-layout", str(path), "-"], capture_output=True, text=True, check=True).stdout
    import pypdf

    return "\n".join(page.extract_text() or "" for page in pypdf.PdfReader(str(path)).pages)


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """One report built for the module (the costly part), reused by several assertions."""
    tmp_path = tmp_path_factory.mktemp("report")
    mod_dir = tmp_path / "mods"
    mod_dir.mkdir()
    (mod_dir / "fv_test_draws.py").write_text(DRAW_MODULE)
    sys.path.insert(0, str(mod_dir))
    try:
        results = synthetic_results()
        d = _store(tmp_path, results)
        out = build_report(d, tmp_path / "out" / "report.pdf")
    finally:
        sys.path.remove(str(mod_dir))
        sys.modules.pop("fv_test_draws", None)
    return out, results


def test_report_is_a_pdf(built):
    out, _ = built
    assert out.exists()
    assert out.read_bytes()[:4] == b"%PDF"
    assert not list(out.parent.glob(".*.tmp")), "temporary file left beside the report"


def test_report_text_has_ids_verdicts_and_notes(built):
    out, results = built
    text = _pdftext(out)
    if text is None:
        pytest.skip("pdftotext not installed")
    flat = " ".join(text.split())
    for r in results:
        assert r.id in flat
    for word in ("holds", "violated", "inconclusive", "reproduced", "not_reproduced"):
        assert word in flat
    assert "How to read this report" in flat
    assert "What the checks found" in flat and "Environment" in flat and "Contents" in flat
    assert "figure failed: RuntimeError: exploded on purpose <#>" in flat
    assert "Lemma 2 holds only with constant 4" in flat
    # the ledger: the erratum with its five fields, the violated planted bound as a discrepancy
    assert "errata confirmed (1)" in flat.lower() and "remarks and discrepancies: not errata (1)" in flat.lower()
    for words in ("paper says: Lemma 2", "correction:", "witness: the quadratic",
                  "second argument: exact", "reproduce: fedverify run synth2099.c04"):
        assert words in flat, words
    assert "Remark (not an erratum)" in flat
    assert "-0.9852" in flat and "3.2e-05" in flat  # compact number formatting
    assert "could not be typeset" in flat  # the broken typst formula degrades, the report builds
    assert "LaTeX shown as source" in flat  # a LaTeX string mathtext cannot parse
    # nasty text is shown literally, not interpreted
    assert "#set page(width: 1cm)" in flat and "<label> @ref [a] ]" in flat
    assert "varies" in flat  # environment summarises differing devices
    # how hard each holds was tested: the per-paper count, the ledger's sentence, the check's rows
    assert "tight / loose / vacuous" in flat and "holds, but loose or vacuous (1)" in flat.lower()
    assert "the bound exceeds the observed value by a factor 4e+03" in flat
    assert "a bound 0.0002x as large would be violated" in flat and "plain mean in place of the filter" in flat


def test_paper_filter_and_atomic_overwrite(tmp_path, draws):
    d = _store(tmp_path, synthetic_results())
    out = tmp_path / "r.pdf"
    out.write_bytes(b"old")
    assert build_report(d, out, paper="other2098") == out
    assert out.read_bytes()[:4] == b"%PDF"
    text = _pdftext(out)
    if text is not None:
        assert "other2098.c01" in text and "synth2099.c01" not in text


def test_no_results_is_a_clear_error(tmp_path):
    empty = tmp_path / "nothing"
    with pytest.raises(ValueError, match=r"no results in .*nothing; run 'fedverify run' first"):
        build_report(empty, tmp_path / "r.pdf")
    assert not (tmp_path / "r.pdf").exists()
    d = _store(tmp_path, synthetic_results()[:1])
    with pytest.raises(ValueError, match="no results in"):
        build_report(d, tmp_path / "r.pdf", paper="nosuchpaper")


def test_unreadable_result_file_is_reported_not_fatal(tmp_path, draws):
    d = _store(tmp_path, synthetic_results()[3:4])
    (d / "broken2000.c01.json").write_text("{not json")
    out = build_report(d, tmp_path / "r.pdf")
    text = _pdftext(out)
    if text is not None:
        assert "broken2000.c01" in text and "could not be read" in text


def test_report_subcommand_without_results_is_bad_input(tmp_path, capsys):
    assert cli.main(["report", "--results", str(tmp_path / "none"), "--out", str(tmp_path / "r.pdf")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("fedverify report: error: --results:") and "no results in" in err


def test_figures_drawn_per_result_with_failures_as_notes(tmp_path, draws):
    results = [r for r in synthetic_results() if r.id in ("synth2099.c01", "synth2099.c02", "synth2099.c03")]
    from reports.pdf import _make_all_assets

    build = tmp_path / "build"
    build.mkdir()
    assets = _make_all_assets(results, build)
    assert [a.figure for a in assets] == ["fig-0.png", "fig-1.png", None]
    assert "exploded on purpose" in assets[2].figure_error
    assert (build / "fig-1.png").read_bytes()[:4] == b"\x89PNG"


def test_reproducible_with_source_date_epoch(tmp_path, draws, monkeypatch):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    d = _store(tmp_path, synthetic_results()[3:4] + synthetic_results()[5:6])
    a = build_report(d, tmp_path / "a.pdf").read_bytes()
    b = build_report(d, tmp_path / "b.pdf").read_bytes()
    assert a == b


def test_paper_chapters_and_the_papers_table(tmp_path):
    """Registered papers open their chapter with title, authors and summary, and the front page has a row
    per paper; an unregistered paper keeps a plain heading."""
    rs = synthetic_results()[:2]
    info = {"key": "zed2024", "title": "A Registered Paper", "authors": "Z. Author", "venue": "V", "year": 2024,
            "url": "", "summary": "What the toolkit checked."}
    other = Result(id="zed2024.c01", paper="zed2024", title="one more", claim=Claim("c", source="Thm 1"), kind="bound",
                   verdict="holds", expected="holds", explanation="e.", paper_info=info)
    src = tmp_path / "r.typ"
    build_report(_store(tmp_path, [*rs, other]), tmp_path / "r.pdf", typst_source=src)
    plain = src.read_text().replace("\\", "")
    assert "= A Registered Paper" in plain and "Z. Author" in plain and "What the toolkit checked." in plain
    assert "= Checks: synth2099" in plain
    front = plain[: plain.index("= A Registered Paper")]
    assert "as expected" in front and "zed2024" in front and "synth2099" in front


def test_figures_are_reused_when_their_result_did_not_change(tmp_path, monkeypatch):
    """A rebuild over unchanged Results draws no figure (they come from DIR/.figure-cache); a changed Result is
    drawn again; progress is reported per figure. (Figures that fail to draw are never cached.)"""
    import reports.figures as F

    results = [r for r in synthetic_results() if (r.figure or {}).get("panels")][:2]
    d = _store(tmp_path, results)
    calls, seen = [], []
    real = F.render_figure
    monkeypatch.setattr(F, "render_figure", lambda r, p: (calls.append(r.id), real(r, p))[1])
    build_report(d, tmp_path / "a.pdf", progress=lambda done, total, what: seen.append((done, total, what)))
    assert len(calls) == 2 and (d / ".figure-cache").is_dir() and seen[-1] == (2, 2, "typesetting")
    build_report(d, tmp_path / "b.pdf")
    assert len(calls) == 2  # nothing redrawn
    results[0].observed["changed"] = 1.0
    _store(tmp_path, results)
    build_report(d, tmp_path / "c.pdf")
    assert calls[2:] == [results[0].id]
    build_report(d, tmp_path / "d.pdf", figure_cache=False)
    assert len(calls) == 5


def test_a_papers_unchecked_statements_are_listed_with_why():
    from analytic.papers import Paper
    from reports.pdf import _paper_intro

    info = Paper("abc2020", "A title", "A. Author", not_checked=(("Theorem 2 (eq. 7)", "needs the paper's dataset"),))

    class R:
        paper = "abc2020"
        paper_info = info.as_dict()

    text = _paper_intro(R())
    assert "Not checked, and why" in text and "needs the paper" in text and "Theorem 2" in text
    with pytest.raises(ValueError, match="not_checked"):
        Paper("abc2020", "t", "a", not_checked=(("Theorem 2", ""),))
