"""GradScaler's scale per step of a float16 run (ch06_loss_scale.csv, this build's
run of ch06_loss_scale): it doubles after 25 clean steps, and each overflow skips the
step (marked) and halves it. Below, the loss of every step."""
# book: inputs ch06_loss_scale.csv
import math

import kindling_plot as kp

rows = kp.read_csv("ch06_loss_scale.csv")
steps = [r["step"] for r in rows]
fig, (scale_ax, loss_ax) = kp.figure(2, 1, width=7.5, height=4.2, sharex=True)
scale_ax.step(steps, [math.log2(r["scale"]) for r in rows], where="post",
              color=kp.COLORS[0], label="scale used")
bad = [r for r in rows if r["skipped"]]
scale_ax.plot([r["step"] for r in bad], [math.log2(r["scale"]) for r in bad], "x",
              color=kp.COLORS[1], ms=6, label=f"step skipped ({len(bad)})")
scale_ax.set(ylabel="log2(scale)", title="GradScaler's scale, float16 autocast")
levels = [math.log2(r["scale"]) for r in rows]
scale_ax.set_ylim(min(levels) - 0.5, max(levels) + 1.5)  # room for the legend above
scale_ax.legend(loc="upper left", ncol=2)
kp.integer_ticks(scale_ax, "y")
loss_ax.plot(steps, [r["loss"] for r in rows], color=kp.COLORS[0], alpha=0.35, lw=0.8)
window = 20
avg = [sum(r["loss"] for r in rows[max(0, i - window + 1):i + 1]) / min(i + 1, window)
       for i in range(len(rows))]
loss_ax.plot(steps, avg, color=kp.COLORS[0], label=f"{window}-step average")
loss_ax.set(xlabel="step (batches of 64)", ylabel="training loss")
loss_ax.legend(loc="upper right")
for ax in (scale_ax, loss_ax):
    kp.integer_ticks(ax)
kp.save(fig, "ch06_loss_scale")
