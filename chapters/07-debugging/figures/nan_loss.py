"""The loss and the total gradient norm of SimpleNet per SGD step at learning rate 20
(it explodes, then turns NaN) and at 0.1 (ch07_nan_loss.csv, this build's run), both on
log scales."""
# book: inputs ch07_nan_loss.csv
import math

import kindling_plot as kp

rows = kp.read_csv("ch07_nan_loss.csv")


def is_finite(value):
    return isinstance(value, float) and math.isfinite(value)


runs = list(dict.fromkeys(r["run"] for r in rows))
fig, (loss_ax, norm_ax) = kp.figure(1, 2, width=7.5, height=3.0)
for run, color in zip(runs, kp.COLORS):
    mine = [r for r in rows if r["run"] == run]
    for ax, key in ((loss_ax, "loss"), (norm_ax, "grad_norm")):
        finite = [r for r in mine if is_finite(r[key])]
        ax.plot([r["step"] for r in finite], [r[key] for r in finite], marker="o",
                ms=3, color=color, label=run)
        bad = [r for r in mine if not is_finite(r[key])]
        if bad:  # the step whose value is NaN or inf: marked at the top of the axis
            ax.axvline(bad[0]["step"], color=color, linestyle=":", linewidth=1)
            ax.text(bad[0]["step"], 0.97, " NaN", transform=ax.get_xaxis_transform(),
                    color=color, fontsize=8, va="top")
for ax, title, label in ((loss_ax, "Loss", "cross-entropy loss"),
                         (norm_ax, "Total gradient norm", "gradient norm")):
    ax.set_yscale("log")
    ax.set(xlabel="SGD step (batches of 64)", ylabel=label + " (log scale)",
           title=title)
    kp.integer_ticks(ax)
loss_ax.legend(loc="center right")
kp.save(fig, "ch07_nan_loss")
