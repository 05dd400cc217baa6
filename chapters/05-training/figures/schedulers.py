"""StepLR and ReduceLROnPlateau side by side (ch05_schedulers.csv, this build's run):
the learning rate each epoch trained with (as steps, log scale) and the validation
loss."""
# book: inputs ch05_schedulers.csv
import kindling_plot as kp

rows = kp.read_csv("ch05_schedulers.csv")
fig, (lr_ax, loss_ax) = kp.figure(1, 2, width=7.5, height=3.0)
for schedule in dict.fromkeys(r["schedule"] for r in rows):
    mine = [r for r in rows if r["schedule"] == schedule]
    epochs = [r["epoch"] for r in mine]
    lr_ax.step(epochs, [r["lr"] for r in mine], where="post", label=schedule)
    loss_ax.plot(epochs, [r["val_loss"] for r in mine], marker="o", ms=3,
                 label=schedule)
lr_ax.set(xlabel="epoch", ylabel="learning rate", yscale="log", title="Learning rate")
loss_ax.set(xlabel="epoch", ylabel="validation loss", title="Validation loss")
for ax in (lr_ax, loss_ax):
    kp.integer_ticks(ax)
loss_ax.legend()
kp.save(fig, "ch05_schedulers")
