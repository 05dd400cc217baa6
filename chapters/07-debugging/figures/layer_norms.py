"""Each parameter's gradient norm per SGD step of SimpleNet at learning rate 20 and
at 0.1 (ch07_layer_norms.csv, this build's run of ch07_nan_loss), on a log scale."""
# book: inputs ch07_layer_norms.csv
import math

import kindling_plot as kp

rows = [r for r in kp.read_csv("ch07_layer_norms.csv")
        if isinstance(r["grad_norm"], float) and math.isfinite(r["grad_norm"])]
runs = list(dict.fromkeys(r["run"] for r in rows))
params = list(dict.fromkeys(r["parameter"] for r in rows))
fig, axes = kp.figure(1, len(runs), width=7.5, height=3.0, sharey=True)
for ax, run in zip(axes, runs):
    for param, color in zip(params, kp.COLORS):
        mine = [r for r in rows if r["run"] == run and r["parameter"] == param]
        ax.plot([r["step"] for r in mine], [r["grad_norm"] for r in mine], marker="o",
                ms=3, color=color, label=param)
    ax.set_yscale("log")
    ax.set(xlabel="SGD step (batches of 64)", title=f"SGD, {run}")
    kp.integer_ticks(ax)
axes[0].set(ylabel="gradient norm (log scale)")
axes[0].legend(loc="upper left", fontsize=8)
kp.save(fig, "ch07_layer_norms")
