"""The gradient norm of each block's first convolution after one backward, for 20
BasicBlocks run with and without their shortcuts (ch09_grad_norms.csv, this build's
run), on a log scale."""
# book: inputs ch09_grad_norms.csv
import kindling_plot as kp

rows = kp.read_csv("ch09_grad_norms.csv")
stacks = list(dict.fromkeys(r["stack"] for r in rows))
fig, ax = kp.figure(1, 1, width=6.0, height=3.0)
for stack, color in zip(stacks, kp.COLORS):
    mine = [r for r in rows if r["stack"] == stack]
    ax.plot([r["layer"] for r in mine], [r["grad_norm"] for r in mine], marker="o",
            ms=3, color=color, label=stack)
ax.set_yscale("log")
ax.set(xlabel="block (1 = nearest the input)",
       ylabel="gradient norm of conv1 (log scale)",
       title="Gradient norm per block, one backward")
kp.integer_ticks(ax)
ax.legend()
kp.save(fig, "ch09_grad_norms")
