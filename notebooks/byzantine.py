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
# # A Byzantine attack breaks the plain mean, not comparative elimination (dutta2023)
#
# `fedverify demo byzantine` as a notebook. The first cell runs the demo at its defaults (the paper's settings) and
# shows the story and the figure; the second gives sliders for the knobs this demo can vary:
# the step alpha L; local steps T; the number f of Byzantine agents of 50; the start x_0.
# The knobs batch do not apply to this demo (run_demo says so if given).
#
# Every knob reaches the check (or toy) as a keyword override: see `counterexamples.demo.DEMO_TABLE["byzantine"]`.

# %%
from pathlib import Path

from IPython.display import SVG, display

from counterexamples.demo import DEMO_TABLE, run_demo

OUT = Path("demo_out")
out = run_demo("byzantine", OUT, rounds=3, format="svg")
print("\n".join(out.lines))
display(SVG(filename=str(out.figure)))

# %% [markdown]
# ## Vary the knobs
#
# Move a slider and press "Run Interact": the demo runs again with the new value (the check's own numbers,
# not a redrawn picture). Knobs of this demo: eta, tau, byzantine, start.

# %%
import ipywidgets as widgets


def show(**knobs):
    """Run the demo with the sliders' values and show the narration's last lines and the figure."""
    res = run_demo("byzantine", OUT, rounds=2, format="svg", **knobs)
    print("\n".join(res.lines[-6:]))
    display(SVG(filename=str(res.figure)))


assert set(DEMO_TABLE["byzantine"].knobs) == {'eta', 'start', 'byzantine', 'tau'}
panel = widgets.interactive(
    show,
    {"manual": True, "manual_name": "Run Interact"},
    eta=widgets.FloatSlider(value=0.1, min=0.01, max=0.5, step=0.01, description="eta"),
    tau=widgets.IntSlider(value=3, min=1, max=10, step=1, description="tau"),
    byzantine=widgets.IntSlider(value=5, min=1, max=24, step=1, description="byzantine"),
    start=widgets.FloatSlider(value=0.0, min=-5.0, max=5.0, step=0.5, description="start"),
)
display(panel)
