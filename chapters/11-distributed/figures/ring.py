"""The ring all-reduce on 4 ranks, chunk by chunk: what every rank holds after each
step of the reduce-scatter (top) and of the all-gather (bottom). The steps are
computed here by following the algorithm; a cell lists the ranks whose values its
chunk has summed."""
import matplotlib.patches as patches

import kindling_plot as kp

N = 4
NAMES = "ABCD"  # rank 0's values are A, rank 1's B, ...
# held[r][c]: the set of ranks whose chunk c rank r has added up so far
held = [[{r} for _ in range(N)] for r in range(N)]
states = [("start: each rank's own tensor", [row[:] for row in held], None)]
for step in range(N - 1):  # reduce-scatter: send chunk (r - step), add what arrives
    sent = [(r, (r - step) % N) for r in range(N)]
    incoming = {((r + 1) % N, c): held[r][c] for r, c in sent}
    for (r, c), values in incoming.items():
        held[r][c] = held[r][c] | values
    states.append((f"reduce-scatter, step {step + 1}", [row[:] for row in held], sent))
for step in range(N - 1):  # all-gather: send chunk (r + 1 - step), copy what arrives
    sent = [(r, (r + 1 - step) % N) for r in range(N)]
    incoming = {((r + 1) % N, c): held[r][c] for r, c in sent}
    for (r, c), values in incoming.items():
        held[r][c] = values
    states.append((f"all-gather, step {step + 1}", [row[:] for row in held], sent))
assert all(held[r][c] == set(range(N)) for r in range(N) for c in range(N))

fig, axes = kp.figure(2, 4, width=7.6, height=4.4)
axes[1][0].axis("off")
NOTE = ("Each step, rank r sends one\nchunk (outlined) to rank r + 1\n"
        "(rank 3 to rank 0).\n\n"
        "Reduce-scatter: the receiver\nadds it to its own chunk.\n"
        "All-gather: the receiver\nkeeps it as it is.")
axes[1][0].text(0.0, 0.55, NOTE, fontsize=8, va="center", ha="left")
panels = list(axes[0]) + list(axes[1][1:])
for ax, (title, grid, sent) in zip(panels, states):
    ax.set_xlim(0, N)
    ax.set_ylim(N, 0)
    ax.set_aspect("equal")
    ax.grid(False)
    for side in ("left", "bottom", "top", "right"):
        ax.spines[side].set_visible(False)
    ax.set_xticks([c + 0.5 for c in range(N)])
    ax.set_xticklabels([f"c{c}" for c in range(N)], fontsize=7)
    ax.set_yticks([r + 0.5 for r in range(N)])
    ax.set_yticklabels([f"rank {r}" for r in range(N)], fontsize=7)
    ax.tick_params(length=0)
    for r in range(N):
        for c in range(N):
            k = len(grid[r][c])
            shade = ["#ffffff", "#dde6f3", "#b7cbe8", "#8fb0dc", "#2b6cb0"][k]
            cell = patches.Rectangle((c + 0.04, r + 0.04), 0.92, 0.92,
                                     facecolor=shade, edgecolor="#a0aec0", lw=0.6)
            ax.add_patch(cell)
            text = "all" if k == N else "".join(NAMES[i] for i in sorted(grid[r][c]))
            ax.text(c + 0.5, r + 0.5, text, ha="center", va="center", fontsize=7,
                    color="white" if k == N else "black")
    for r, c in sent or []:
        ax.add_patch(patches.Rectangle((c + 0.04, r + 0.04), 0.92, 0.92, fill=False,
                                       edgecolor="#dd6b20", lw=1.6))
    ax.set_title(title.replace(": ", ":\n").replace(", step", ",\nstep"), fontsize=8)
kp.save(fig, "ch11_ring")
