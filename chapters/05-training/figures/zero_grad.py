"""SimpleNet's loss per step with and without zero_grad() (ch05_zero_grad.csv, this
build's run), for SGD and for Adam: raw losses faint, their 10-step moving average
solid."""
# book: inputs ch05_zero_grad.csv
import kindling_plot as kp

rows = kp.read_csv("ch05_zero_grad.csv")
optimizers = list(dict.fromkeys(r["optimizer"] for r in rows))
fig, axes = kp.figure(1, len(optimizers), width=7.5, height=3.0, sharey=True)
for ax, opt in zip(axes, optimizers):
    for variant, color in zip(("with zero_grad", "without zero_grad"), kp.COLORS):
        losses = [r["loss"] for r in rows
                  if r["optimizer"] == opt and r["variant"] == variant]
        steps = range(1, len(losses) + 1)
        smooth = [sum(losses[max(0, i - 9):i + 1]) / len(losses[max(0, i - 9):i + 1])
                  for i in range(len(losses))]
        ax.plot(steps, losses, color=color, alpha=0.25, linewidth=0.8)
        ax.plot(steps, smooth, color=color, label=variant)
    ax.set(xlabel="step (batches of 32)", title=opt)
    kp.integer_ticks(ax)
axes[0].set_ylabel("training loss")
axes[0].legend()
kp.save(fig, "ch05_zero_grad")
