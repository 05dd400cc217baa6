"""Learning curves of the three runs on classes 5-9, with 100 and with 20 training
images per class (ch09_finetune.csv, this build's run): accuracy on 500 held-out test
images every 10 steps, and the training loss averaged over those 10 steps."""
# book: inputs ch09_finetune.csv
import kindling_plot as kp

rows = kp.read_csv("ch09_finetune.csv")
sizes = list(dict.fromkeys(r["per_class"] for r in rows))
runs = list(dict.fromkeys(r["run"] for r in rows))
fig, axes = kp.figure(2, len(sizes), width=7.5, height=5.2)
for col, size in enumerate(sizes):
    acc_ax, loss_ax = axes[0][col], axes[1][col]
    for run, color in zip(runs, kp.COLORS):
        mine = [r for r in rows if r["run"] == run and r["per_class"] == size]
        steps = [r["step"] for r in mine]
        acc_ax.plot(steps, [r["test_accuracy"] for r in mine], marker="o", ms=3,
                    color=color, label=run)
        loss_ax.plot(steps, [r["train_loss"] for r in mine], marker="o", ms=3,
                     color=color, label=run)
    acc_ax.set(ylabel="test accuracy (%)", ylim=(0, 100),
               title=f"{int(size)} images per class ({5 * int(size)} in all)")
    loss_ax.set(xlabel="step (batches of 50)", ylabel="training loss")
    loss_ax.set_ylim(bottom=0)
axes[0][0].legend(loc="lower right")
kp.save(fig, "ch09_finetune")
