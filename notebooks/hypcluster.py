# ---
# jupyter:
#   jupytext:
#     formats: py:percent
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # HypCluster's pooled steps do not move the shared model (werner2023, Example 2)
#
# `fedverify demo hypcluster` as a notebook. The first cell runs the demo at its defaults (the paper's settings) and
# shows the story and the figure; the second gives sliders for the knobs this demo can vary:
# HypCluster's step gamma; FC's radius tau; theta_2's start.
# The knobs batch, clients do not apply to this demo (run_demo says so if given).
#
# Every knob reaches the check (or toy) as a keyword override: see `counterexamples.demo.DEMO_TABLE["hypcluster"]`.

# %%
from pathlib import Path

from IPython.display import SVG, display

from counterexamples.demo import DEMO_TABLE, run_demo

OUT = Path("demo_out")
out = run_demo("hypcluster", OUT, rounds=3, format="svg")
print("\n".join(out.lines))
display(SVG(filename=str(out.figure)))

# %% [markdown]
# ## Vary the knobs
#
# Move a slider and press "Run Interact": the demo runs again with the new value (the check's own numbers,
# not a redrawn picture). Knobs of this demo: eta, tau, start.

# %%
import ipywidgets as widgets


def show(**knobs):
    """Run the demo with the sliders' values and show the narration's last lines and the figure."""
    res = run_demo("hypcluster", OUT, rounds=2, format="svg", **knobs)
    print("\n".join(res.lines[-6:]))
    display(SVG(filename=str(res.figure)))


assert set(DEMO_TABLE["hypcluster"].knobs) == {'eta', 'start', 'tau'}
panel = widgets.interactive(
    show,
    {"manual": True, "manual_name": "Run Interact"},
    eta=widgets.FloatSlider(value=0.1, min=0.01, max=0.45, step=0.01, description="eta"),
    tau=widgets.FloatSlider(value=1.0, min=0.1, max=3.0, step=0.1, description="tau"),
    start=widgets.FloatSlider(value=0.0, min=-1.0, max=1.0, step=0.1, description="start"),
)
display(panel)
