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
# # CafCor's correlated noise cancels in the average (allouah2025)
#
# `fedverify demo cafcor` as a notebook. The first cell runs the demo at its defaults (the paper's settings) and
# shows the story and the figure; the second gives sliders for the knobs this demo can vary:
# the step of the noisy gradient descent; the number n of workers; the start x_0.
# The knobs tau, batch do not apply to this demo (run_demo says so if given).
#
# Every knob reaches the check (or toy) as a keyword override: see `counterexamples.demo.DEMO_TABLE["cafcor"]`.

# %%
from pathlib import Path

from IPython.display import SVG, display

from counterexamples.demo import DEMO_TABLE, run_demo

OUT = Path("demo_out")
out = run_demo("cafcor", OUT, rounds=3, format="svg")
print("\n".join(out.lines))
display(SVG(filename=str(out.figure)))

# %% [markdown]
# ## Vary the knobs
#
# Move a slider and press "Run Interact": the demo runs again with the new value (the check's own numbers,
# not a redrawn picture). Knobs of this demo: eta, clients, start.

# %%
import ipywidgets as widgets


def show(**knobs):
    """Run the demo with the sliders' values and show the narration's last lines and the figure."""
    res = run_demo("cafcor", OUT, rounds=2, format="svg", **knobs)
    print("\n".join(res.lines[-6:]))
    display(SVG(filename=str(res.figure)))


assert set(DEMO_TABLE["cafcor"].knobs) == {'eta', 'start', 'clients'}
panel = widgets.interactive(
    show,
    {"manual": True, "manual_name": "Run Interact"},
    eta=widgets.FloatSlider(value=0.2, min=0.05, max=1.0, step=0.05, description="eta"),
    clients=widgets.IntSlider(value=10, min=2, max=50, step=1, description="clients"),
    start=widgets.FloatSlider(value=3.0, min=-5.0, max=5.0, step=0.5, description="start"),
)
display(panel)
