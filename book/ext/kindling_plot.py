"""The book's figure style, for the scripts in chapters/NN-name/figures/ (run by scripts/book-python.py).

    import kindling_plot as kp
    fig, ax = kp.figure()              # one panel; kp.figure(1, 2) for two side by side
    ax.plot(...)
    kp.save(fig, "ch05_train_curves")  # -> ch05_train_curves.svg in the outputs folder

SVGs are written reproducibly (no date, fixed ids), so an unchanged log gives a byte-identical picture.
Text stays text (svg.fonttype none) and the picture scales with the page.
"""
import csv
import json

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.ticker import MaxNLocator  # noqa: E402

COLORS = ["#2b6cb0", "#dd6b20", "#2f855a", "#9b2c2c", "#6b46c1", "#718096"]

plt.rcParams.update({
    "figure.dpi": 100,
    "font.size": 10,
    "axes.titlesize": 11,
    "axes.labelsize": 10,
    "legend.fontsize": 9,
    "legend.frameon": False,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": True,
    "grid.alpha": 0.25,
    "axes.prop_cycle": matplotlib.cycler(color=COLORS),
    "svg.fonttype": "none",
    "svg.hashsalt": "kindling",
    "lines.linewidth": 1.8,
})


def figure(rows=1, cols=1, width=7.0, height=None, **kw):
    """A figure sized for the book's column (7 in wide reads well at 1280 px and scales down)."""
    height = height or (3.2 if rows == 1 else 2.8 * rows)
    fig, axes = plt.subplots(rows, cols, figsize=(width, height), constrained_layout=True, **kw)
    return fig, axes


def integer_ticks(ax, axis="x"):
    """Epochs and steps are whole numbers: no 2.5 on the axis."""
    (ax.xaxis if axis == "x" else ax.yaxis).set_major_locator(MaxNLocator(integer=True))


def save(fig, name):
    fig.savefig(f"{name}.svg", format="svg", metadata={"Date": None, "Creator": "kindling book"})
    plt.close(fig)
    print(f"wrote {name}.svg")


def read_csv(path):
    """Rows of a CSV log as dicts of floats (text stays text)."""
    rows = []
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            rows.append({k: _num(v) for k, v in row.items()})
    return rows


def read_jsonl(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def _num(value):
    try:
        return float(value)
    except (TypeError, ValueError):
        return value
