"""The two training runs of chapter 12 (this build's runs): the adder's loss at every
step (ch12_adder_loss.csv, log scale), and the character-level GPT's training and
validation losses every 100 steps on the fortunes corpus (ch12_text_loss.csv)."""
# book: inputs ch12_adder_loss.csv ch12_text_loss.csv
import kindling_plot as kp

fig, axes = kp.figure(1, 2, width=7.5, height=3.2)
adder, text = axes
rows = kp.read_csv("ch12_adder_loss.csv")
adder.plot([r["step"] for r in rows], [max(r["loss"], 1e-6) for r in rows],
           color=kp.COLORS[0], linewidth=0.8)
adder.set_yscale("log")
adder.set(xlabel="step (64 sums)", ylabel="cross-entropy (sum's digits)",
          title="the adder")
rows = kp.read_csv("ch12_text_loss.csv")
for key, label, color in (("train_loss", "training", kp.COLORS[0]),
                          ("val_loss", "validation", kp.COLORS[1])):
    text.plot([r["step"] for r in rows], [r[key] for r in rows], marker="o", ms=3,
              color=color, label=label)
text.set(xlabel="step (12 x 64 characters)", ylabel="cross-entropy per character",
         title="a character GPT on fortunes")
text.legend(loc="upper right")
kp.save(fig, "ch12_losses")
