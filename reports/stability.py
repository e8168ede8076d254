"""Verdict stability in the report, from the sweep points stored beside the Results
(``fedverify sweep``; verify/store.py keeps them under ``results/sweep/<id>/``).

* :func:`load_stability`: per check id, its stability rows (one per grid point: runs, runs at the
  expected verdict, the Clopper-Pearson interval, the seeds off expected) as
  :func:`verify.sweep.stability` computes them; empty when nothing was swept.
* :func:`stability_cell`: the front table's "stability" column (``10/10``; over grid points the sum,
  with the number of points).
* :func:`stability_page`: a page listing every check and grid point below 100 % with its off-expected
  seeds and their verdicts, then one figure per swept check whose grid has a numeric keyword: the
  share of runs at the expected verdict, or a success share the check reports
  (``observed["sweep_success"]``), against that keyword, one line per value of the other keywords.
"""
from __future__ import annotations

from pathlib import Path

from reports.typst_markup import escape, one_line, table

__all__ = ["load_stability", "stability_cell", "stability_page"]


def load_stability(results_dir, paper: str | None = None) -> tuple[dict[str, list[dict]], dict[str, list]]:
    """``({check id: stability rows}, {check id: [(seed, grid, Result), ...]})`` for the swept checks."""
    from verify.store import ResultStore
    from verify.sweep import stability

    store = ResultStore(results_dir)
    rows, points = {}, {}
    for cid in store.swept_ids():
        if paper is not None and cid.split(".")[0] != paper:
            continue
        pts, _ = store.load_points(cid)
        if pts:
            points[cid] = pts
            rows[cid] = stability((cid, s, g, r) for s, g, r in pts)
    return rows, points


def _grid_text(grid: dict) -> str:
    return ", ".join(f"{k}={v!r}" for k, v in grid.items()) or "defaults"


def stability_cell(rows: list[dict] | None) -> str:
    """``at expected / runs`` over all the check's grid points ("—" when it was not swept)."""
    if not rows:
        return "—"
    k, n = sum(r["at_expected"] for r in rows), sum(r["runs"] for r in rows)
    text = f"{k}/{n}" + (f" ({len(rows)} pts)" if len(rows) > 1 else "")
    return escape(text) if k == n else f"#text(fill: rgb(\"#b00020\"))[{escape(text)}]"


def stability_page(rows: dict[str, list[dict]], points: dict[str, list], build: Path, labels: dict[str, str]) -> str:
    """The "Verdict stability" page (typst markup); figures are drawn into ``build``."""
    out = ["= Verdict stability",
           "#note[From `fedverify sweep`: each check run at several root seeds (and keyword grid points). A row "
           "counts the runs at the check's expected verdict, with its 95 % Clopper-Pearson interval.]"]
    below = [(cid, r) for cid, rs in rows.items() for r in rs if r["at_expected"] < r["runs"]]
    total = sum(len(rs) for rs in rows.values())
    out.append(escape(f"{len(rows)} checks swept over {total} (check, grid point) pairs; "
                      f"{len(below)} below 100 % at the expected verdict."))
    if below:
        body = []
        for cid, r in below:
            off = "; ".join(f"seed {o['seed']}: {o['verdict']}" for o in r["off"])
            name = f"#link(<{labels[cid]}>)[{escape(cid)}]" if cid in labels else escape(cid)
            body.append([name, escape(one_line(_grid_text(r["grid"]), 80)),
                         escape(f"{r['at_expected']}/{r['runs']}"),
                         escape(f"{r['ci'][0]:.2f}–{r['ci'][1]:.2f}"),
                         escape(f"expected {r['off'][0]['expected'] if r['off'] else '?'}; {off}")])
        out.append(table(["check", "grid point", "at expected", "95% CI", "off-expected seeds"], body,
                         columns=["auto", "auto", "auto", "auto", "1fr"], size="8.5pt"))
    for i, (cid, pts) in enumerate(points.items()):
        fig = _sweep_figure(cid, pts, build / f"sweep-{i}.png")
        if fig is not None:
            what, path = fig
            out.append(f"#figure(image({_quote(path.name)}, width: 13cm), caption: [{escape(cid)}: {escape(what)} "
                       f"over the sweep's grid (stored sweep results; 95 % Clopper-Pearson bands)])")
    return "\n\n".join(out)


def _quote(s: str) -> str:
    from reports.typst_markup import string_literal

    return string_literal(s)


def _sweep_figure(cid: str, pts: list, path: Path):
    """A success curve: x = the first numeric grid keyword with more than one value; lines = the other
    keywords' values. y = the check's own success share ``observed["sweep_success"]`` over its
    ``observed["sweep_trials"]`` trials (e.g. IFCA's min-dist threshold over data seeds), pooled over the
    sweep's seeds, else the share of runs at the expected verdict."""
    import numpy as np

    from verify.fit import proportion_ci

    gridded = [(s, g, r) for s, g, r in pts if g]
    if not gridded:
        return None
    names = list(gridded[0][1])
    xname = next((n for n in names if len({g.get(n) for _, g, _ in gridded}) > 1
                  and all(isinstance(g.get(n), (int, float)) and not isinstance(g.get(n), bool) for _, g, _ in gridded)),
                 None)
    if xname is None:
        return None
    own = all("sweep_success" in r.observed for _, _, r in gridded)
    what = "success probability (the check's criterion)" if own else "share of runs at the expected verdict"
    lines: dict[tuple, dict] = {}
    for _, g, r in gridded:
        key = tuple((k, v) for k, v in g.items() if k != xname)
        k_n = lines.setdefault(key, {}).setdefault(g[xname], [0, 0])
        if own:  # a share over the check's own trials (its replicates), or one success/failure
            trials = int(r.observed.get("sweep_trials", 1))
            k_n[0] += int(round(float(r.observed["sweep_success"]) * trials))
            k_n[1] += trials
        else:
            k_n[0] += int(r.as_expected)
            k_n[1] += 1
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.2, 3.4), dpi=150)
    for key, by_x in sorted(lines.items(), key=lambda kv: [(k, (0, v) if isinstance(v, (int, float)) else (1, str(v)))
                                                           for k, v in kv[0]]):
        xs = sorted(by_x)
        est = [proportion_ci(*by_x[x]) for x in xs]
        label = ", ".join(f"{k}={v}" for k, v in key) or "all"
        ax.plot(xs, [e[0] for e in est], marker="o", label=label + f" ({by_x[xs[0]][1]} trials)")
        ax.fill_between(xs, [e[1] for e in est], [e[2] for e in est], alpha=0.15)
    ax.set_xlabel(xname)
    ax.set_ylabel("success" if own else "at expected")
    ax.set_ylim(-0.03, 1.03)
    if min(k for by_x in lines.values() for k in by_x) > 0 and np.ptp(list({x for b in lines.values() for x in b})) > 0:
        ax.set_xscale("log")
    ax.legend(fontsize=7)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return what, path
