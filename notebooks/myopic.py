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
# # Myopic-Clustering traps a client at a saddle (werner2023, Example 1)
#
# `fedverify demo myopic` as a notebook. The first cell runs the demo at its defaults (the paper's settings) and
# shows the story and the figure; the second gives sliders for the knobs this demo can vary:
# Myopic's learning rate eta (0.5 in Fig. 1(a)); FC's radius tau; every client's start x_0.
# The knobs batch, clients do not apply to this demo (run_demo says so if given).
#
# Every knob reaches the check (or toy) as a keyword override: see `counterexamples.demo.DEMO_TABLE["myopic"]`.

# %%
from pathlib import Path

from IPython.display import SVG, display

from counterexamples.demo import DEMO_TABLE, run_demo

OUT = Path("demo_out")
out = run_demo("myopic", OUT, rounds=3, format="svg")
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
    res = run_demo("myopic", OUT, rounds=2, format="svg", **knobs)
    print("\n".join(res.lines[-6:]))
    display(SVG(filename=str(res.figure)))


assert set(DEMO_TABLE["myopic"].knobs) == {'eta', 'start', 'tau'}
panel = widgets.interactive(
    show,
    {"manual": True, "manual_name": "Run Interact"},
    eta=widgets.FloatSlider(value=0.5, min=0.05, max=0.5, step=0.05, description="eta"),
    tau=widgets.FloatSlider(value=5.0, min=0.5, max=10.0, step=0.5, description="tau"),
    start=widgets.FloatSlider(value=1.5, min=0.5, max=2.5, step=0.1, description="start"),
)
display(panel)
