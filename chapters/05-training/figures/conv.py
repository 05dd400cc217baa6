"""Convolution and max pooling on the numbers of ch05_conv (ch05_conv.json): the image
with the 3x3 window that makes out[1][2], the kernel, the output; then 2x2 max
pooling, each window in its own colour."""
# book: inputs ch05_conv.json
import json

import kindling_plot as kp
from matplotlib.patches import Rectangle

data = json.load(open("ch05_conv.json"))
WIN = ["#feb2b2", "#9ae6b4", "#90cdf4", "#fbd38d"]


def grid(ax, values, x0, y0, title, color=lambda r, c: "white", fmt="{:g}"):
    rows, cols = len(values), len(values[0])
    for r in range(rows):
        for c in range(cols):
            ax.add_patch(Rectangle((x0 + c, y0 - r - 1), 1, 1, facecolor=color(r, c),
                                   edgecolor="#4a5568", linewidth=0.8))
            ax.text(x0 + c + 0.5, y0 - r - 0.5, fmt.format(values[r][c]), ha="center",
                    va="center", fontsize=9)
    ax.text(x0 + cols / 2, y0 + 0.35, title, ha="center", fontsize=9)


fig, (top, bottom) = kp.figure(2, 1, width=7.2, height=5.2)
for ax in (top, bottom):
    ax.set_axis_off()
    ax.set_aspect("equal")
# The padded image (a ring of zeros) and the window of out[1][2]: padded rows 1..3,
# columns 2..4.
image = data["image"]
padded = [[0] * (len(image[0]) + 2)] + [[0] + row + [0] for row in image] + \
         [[0] * (len(image[0]) + 2)]
in_window = lambda r, c: 1 <= r <= 3 and 2 <= c <= 4
grid(top, padded, 0, 7, "image, padded by 1 (grey)",
     lambda r, c: "#feb2b2" if in_window(r, c) else
     ("#edf2f7" if r in (0, 6) or c in (0, 6) else "white"))
top.text(7.6, 3.5, "×", fontsize=16, ha="center", va="center")
grid(top, data["kernel"], 8.2, 5, "kernel", lambda r, c: "#feb2b2")
top.text(11.8, 3.5, "→", fontsize=16, ha="center", va="center")
grid(top, data["out"], 12.6, 6, "output",
     lambda r, c: "#feb2b2" if (r, c) == (1, 2) else "white")
top.set_xlim(-0.2, 17.8)
top.set_ylim(-0.3, 7.6)
# Pooling: each 2x2 window of the features becomes one number, its maximum.
color = lambda r, c: WIN[(r // 2) * 2 + c // 2]
grid(bottom, data["features"], 2, 4.5, "features [4, 4]", color)
bottom.text(9.2, 2.5, "max of each\n2×2 window →", fontsize=9, ha="center", va="center")
grid(bottom, data["pooled"], 11, 3.5, "max_pool2d(2)", lambda r, c: WIN[r * 2 + c])
bottom.set_xlim(-0.2, 17.8)
bottom.set_ylim(-0.3, 5.2)
kp.save(fig, "ch05_conv")
