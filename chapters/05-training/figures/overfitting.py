"""Overfitting, the full 30-epoch run (captured/ch05_overfitting.csv): the baseline's
training loss falls towards zero while its validation loss turns back up; weight decay
and Dropout change the validation curve."""
# book: inputs chapters/05-training/captured/ch05_overfitting.csv
import os

import kindling_plot as kp

rows = kp.read_csv(os.path.join(os.environ["KINDLING_CHAPTER"], "captured",
                                "ch05_overfitting.csv"))
fig, ax = kp.figure(width=7.0, height=3.4)
variants = list(dict.fromkeys(r["variant"] for r in rows))
base = [r for r in rows if r["variant"] == variants[0]]
ax.plot([r["epoch"] for r in base], [r["train_loss"] for r in base], color="#a0aec0",
        linestyle="--", label=f"{variants[0]}: training loss")
for variant, color in zip(variants, kp.COLORS):
    mine = [r for r in rows if r["variant"] == variant]
    ax.plot([r["epoch"] for r in mine], [r["val_loss"] for r in mine], color=color,
            label=f"{variant}: validation loss")
    best = min(mine, key=lambda r: r["val_loss"])
    ax.plot([best["epoch"]], [best["val_loss"]], marker="o", color=color, ms=5)
ax.set(xlabel="epoch", ylabel="cross-entropy loss",
       title="1,000 training images, a wide MLP (dots: the best epoch)")
kp.integer_ticks(ax)
ax.legend(fontsize=8)
kp.save(fig, "ch05_overfitting")
