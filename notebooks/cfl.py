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
# # CFL splits clients 2 and 3 half of the time (werner2023, Example 3)
#
# `fedverify demo cfl` as a notebook. The first cell runs the demo at its defaults (the paper's settings) and
# shows the story and the figure; the second gives sliders for the knobs this demo can vary:
# the step of CFL's FedAvg phase and of FC; FC's radius tau and batch size |B| (single draws fail, check c08); the start.
# The knobs clients do not apply to this demo (run_demo says so if given).
#
# Every knob reaches the check (or toy) as a keyword override: see `counterexamples.demo.DEMO_TABLE["cfl"]`.

# %%
from pathlib import Path

from IPython.display import SVG, display

from counterexamples.demo import DEMO_TABLE, run_demo

OUT = Path("demo_out")
out = run_demo("cfl", OUT, rounds=3, format="svg")
print("\n".join(out.lines))
display(SVG(filename=str(out.figure)))

# %% [markdown]
# ## Vary the knobs
#
# Move a slider and press "Run Interact": the demo runs again with the new value (the check's own numbers,
# not a redrawn picture). Knobs of this demo: eta, tau, batch, start.

# %%
import ipywidgets as widgets


def show(**knobs):
    """Run the demo with the sliders' values and show the narration's last lines and the figure."""
    res = run_demo("cfl", OUT, rounds=2, format="svg", **knobs)
    print("\n".join(res.lines[-6:]))
    display(SVG(filename=str(res.figure)))


assert set(DEMO_TABLE["cfl"].knobs) == {'eta', 'batch', 'start', 'tau'}
panel = widgets.interactive(
    show,
    {"manual": True, "manual_name": "Run Interact"},
    eta=widgets.FloatSlider(value=0.2, min=0.05, max=0.5, step=0.05, description="eta"),
    tau=widgets.FloatSlider(value=0.25, min=0.05, max=1.0, step=0.05, description="tau"),
    batch=widgets.IntSlider(value=64, min=1, max=256, step=1, description="batch"),
    start=widgets.FloatSlider(value=0.0, min=-1.0, max=1.0, step=0.1, description="start"),
)
display(panel)
