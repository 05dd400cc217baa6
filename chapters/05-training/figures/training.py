"""SimpleNet's full training run (captured/ch05_train_history.jsonl): the training and
test loss per epoch, and the test accuracy with the learning rate StepLR set (drawn
as steps)."""
# book: inputs chapters/05-training/captured/ch05_train_history.jsonl
import os

import kindling_plot as kp

log = kp.read_jsonl(os.path.join(os.environ["KINDLING_CHAPTER"], "captured",
                                 "ch05_train_history.jsonl"))
epochs = [r["epoch"] for r in log]
fig, (loss, acc) = kp.figure(1, 2, width=7.5, height=3.0)
loss.plot(epochs, [r["train_loss"] for r in log], marker="o", ms=3, label="train")
loss.plot(epochs, [r["val_loss"] for r in log], marker="o", ms=3, label="test")
loss.set(xlabel="epoch", ylabel="cross-entropy loss", title="Loss")
loss.legend()
kp.integer_ticks(loss)
acc.plot(epochs, [100 * r["val_accuracy"] for r in log], marker="o", ms=3,
         color=kp.COLORS[2], label="test accuracy")
acc.axhline(88, color="#a0aec0", linestyle="--", linewidth=1)
acc.text(epochs[-1], 88.1, "target 88 %", ha="right", va="bottom", fontsize=8,
         color="#718096")
acc.set(xlabel="epoch", ylabel="test accuracy (%)", title="Accuracy and learning rate")
kp.integer_ticks(acc)
lr = acc.twinx()
lr.step(epochs, [r["lr"] for r in log], where="post", color=kp.COLORS[1], linewidth=1.2,
        label="learning rate")
lr.set_yscale("log")
lr.set_ylabel("learning rate (log scale)")
lr.grid(False)
lr.spines["right"].set_visible(True)
lines = acc.get_lines()[:1] + lr.get_lines()
acc.legend(lines, [l.get_label() for l in lines], loc="lower right")
kp.save(fig, "ch05_training")
