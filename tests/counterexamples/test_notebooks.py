"""The teaching notebooks (notebooks/*.py, jupytext percent scripts) execute from top to bottom on a kernel.

The executed cells call run_demo at the defaults and build the ipywidgets sliders (manual, so nothing runs again
without a browser); a notebook that fails to run, or whose sliders do not match the demo's knobs, fails here.
"""
from __future__ import annotations

import os
import time
from pathlib import Path

import jupytext  # the test extra installs jupytext, nbclient, ipykernel, ipywidgets: the notebooks run in make test
import nbclient
import pytest

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.py"))


def test_one_notebook_per_demo():
    from counterexamples.demo import DEMO_TABLE

    assert {p.stem for p in NOTEBOOKS} == set(DEMO_TABLE)


@pytest.fixture(scope="module")
def kernel(tmp_path_factory):
    """One kernel for all notebooks (its start and the first torch import are most of a notebook's time), started
    in a scratch directory with this checkout first on the path."""
    from jupyter_client.manager import KernelManager

    work = tmp_path_factory.mktemp("notebooks")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
           "OMP_NUM_THREADS": os.environ.get("OMP_NUM_THREADS", "1"), "MPLBACKEND": "Agg"}
    km = KernelManager(kernel_name="python3")
    km.start_kernel(cwd=str(work), env=env)
    yield km, work
    km.shutdown_kernel(now=True)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_executes(path, kernel):
    km, tmp_path = kernel
    nb = jupytext.read(path)
    assert nb.metadata["kernelspec"]["name"] == "python3"
    t0 = time.perf_counter()
    client = nbclient.NotebookClient(nb, km=km, timeout=120, kernel_name="python3",
                                     resources={"metadata": {"path": str(tmp_path)}})
    client.execute()
    took = time.perf_counter() - t0
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])]
    text = "".join(o.get("text", "") for o in outputs if o.get("output_type") == "stream")
    assert "Figure:" in text  # the demo ran and wrote its figure
    assert any("image/svg+xml" in o.get("data", {}) for o in outputs)  # and showed it
    assert any("application/vnd.jupyter.widget-view+json" in o.get("data", {}) for o in outputs)  # the sliders
    assert (tmp_path / "demo_out" / f"demo_{path.stem}.svg").exists()
    assert took < 60, f"{path.name} took {took:.1f} s"
