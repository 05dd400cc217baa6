"""Memory of WideNet's training step against the batch size (this build's run of
ch06_memory, its first table and its weights line): what the graph keeps after the
forward pass, the peak during backward, and under NoGradGuard, next to the weights and
gradients every step holds whatever the batch."""
# book: inputs ch06_memory.txt
import re

import kindling_plot as kp

text = open("ch06_memory.txt").read()
rows = [tuple(float(v) for v in m.groups()) for m in re.finditer(
    r"^ *(\d+) +([\d.]+) MiB +([\d.]+) MiB +([\d.]+) MiB$", text, re.M)]
weights = float(re.search(r"^weights ([\d.]+) MiB", text, re.M).group(1))
batch = [r[0] for r in rows]
fig, ax = kp.figure(1, 1, width=6.0, height=3.4)
ax.plot(batch, [r[3] for r in rows], marker="o", ms=4, color=kp.COLORS[1],
        label="peak during backward (above the step's start)")
ax.plot(batch, [r[1] for r in rows], marker="o", ms=4, color=kp.COLORS[0],
        label="activations the graph keeps after forward")
ax.plot(batch, [r[2] for r in rows], marker="o", ms=4, color=kp.COLORS[2],
        label="NoGradGuard: the logits only")
ax.axhline(2 * weights, color="#a0aec0", linestyle="--", linewidth=1)
ax.text(batch[0], 2 * weights,
        f"weights + gradients ({2 * weights:.1f} MiB, any batch)",
        fontsize=8, color="#718096", va="bottom")
ax.set_xscale("log", base=2)
ax.set_xticks(batch, [str(int(b)) for b in batch])
ax.set(xlabel="batch size", ylabel="MiB",
       title="Activation memory grows with the batch")
top = max(max(r[3] for r in rows), 2 * weights)
ax.set_ylim(0, 1.4 * top)  # room for the legend above the curves
ax.legend(loc="upper left", fontsize=8)
kp.save(fig, "ch06_memory")
