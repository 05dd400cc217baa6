"""Memory layouts drawn from what the chapter's programs measured: each view's storage
as a strip of cells on the left, the view as a grid on the right, every element
coloured like the storage cell it reads. - ch01_memory_layout.svg: x =
arange(6).view(2, 3) and four views (ch01_strides.jsonl); -
ch01_broadcast_layout.svg: broadcasting as a stride-0 view (ch01_broadcasting.jsonl)."""
# book: inputs ch01_strides.jsonl ch01_broadcasting.jsonl
import kindling_plot as kp
from matplotlib.patches import Rectangle

COLORS = ["#90cdf4", "#fbd38d", "#9ae6b4", "#feb2b2", "#d6bcfa", "#faf089"]
W, H = 0.7, 0.55  # one cell
EDGE = "#4a5568"


def cell(ax, x, y, face, text, size=10):
    ax.add_patch(Rectangle((x, y), W, H, facecolor=face, edgecolor=EDGE))
    ax.text(x + W / 2, y + H / 2, text, ha="center", va="center", fontsize=size)


def draw(views, name, cells):
    rows_of = [v["shape"][0] if len(v["shape"]) == 2 else 1 for v in views]
    height = 0.75 + 0.42 * sum(max(r, 2) for r in rows_of)
    fig, axes = kp.figure(len(views), 1, width=7.0, height=height)
    for n, (ax, view, rows) in enumerate(zip(axes, views, rows_of)):
        ax.set_axis_off()
        ax.set_xlim(0, 13.5)
        ax.set_ylim(-max(rows, 2) * H - 0.6, 0.55)
        read = set(view["positions"])
        # The storage strip, each cell's position under it; unread cells are grey.
        for i, value in enumerate(view["storage"]):
            face = COLORS[i % len(COLORS)] if i in read else "#edf2f7"
            cell(ax, i * W, -H, face, str(value))
            ax.text(i * W + W / 2, -H - 0.22, str(i), ha="center", va="center",
                    fontsize=7, color="#718096")
        note = "   (small numbers: positions)" if n == 0 else ""
        ax.text(0, 0.2, "storage" + note, fontsize=8, color=EDGE)
        # The view: element k of row-major order reads storage cell positions[k].
        cols = view["shape"][-1]
        x0 = cells * W + 1.3
        ax.annotate("", xy=(x0 - 0.15, -H / 2), xytext=(cells * W + 0.15, -H / 2),
                    arrowprops=dict(arrowstyle="->", color="#a0aec0"))
        for k, (pos, value) in enumerate(zip(view["positions"], view["values"])):
            r, c = divmod(k, cols)
            cell(ax, x0 + c * W, -(r + 1) * H, COLORS[pos % len(COLORS)], str(value))
        ax.text(x0 + cols * W + 0.5, -H / 2,
                f"{view['name']}\nshape {view['shape']}, strides {view['strides']}\n"
                f"offset {view['offset']}", va="top", fontsize=9, family="monospace")
    kp.save(fig, name)


views = kp.read_jsonl("ch01_strides.jsonl")
draw(views, "ch01_memory_layout", len(views[0]["storage"]))
views = kp.read_jsonl("ch01_broadcasting.jsonl")
draw(views, "ch01_broadcast_layout", max(len(v["storage"]) for v in views))
