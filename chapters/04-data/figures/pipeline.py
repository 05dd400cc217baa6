"""The DataLoader at work, drawn from what ch04_pipeline measured (ch04_pipeline.csv):
one row per worker thread with the batches it loaded, and a row for the loop with the
batches it received, each batch in its own colour and labelled with its number."""
# book: inputs ch04_pipeline.csv
import kindling_plot as kp

events = kp.read_csv("ch04_pipeline.csv")
loads = [e for e in events if e["what"] == "load"]
steps = [e for e in events if e["what"] == "step"]
workers = sorted({int(e["worker"]) for e in loads})
batches = sorted({int(e["batch"]) for e in events})
palette = ["#90cdf4", "#fbd38d", "#9ae6b4", "#feb2b2", "#d6bcfa", "#faf089", "#81e6d9",
           "#fbb6ce", "#c6f6d5", "#e9d8fd", "#feebc8", "#bee3f8"]

fig, ax = kp.figure(width=7.0, height=0.55 * (len(workers) + 1) + 1.0)
rows = [f"worker {w}" for w in workers] + ["training loop"]
for k in batches:  # batch k's bar: from its first sample's start to its last's end
    mine = [e for e in loads if int(e["batch"]) == k]
    w = int(mine[0]["worker"])
    start, end = min(e["start_ms"] for e in mine), max(e["end_ms"] for e in mine)
    row = workers.index(w)
    color = palette[k % len(palette)]
    ax.barh(row, end - start, left=start, height=0.6, color=color, edgecolor="#2d3748",
            linewidth=0.5)
    ax.text((start + end) / 2, row, str(k), ha="center", va="center", fontsize=8)
for e in steps:
    k = int(e["batch"])
    ax.barh(len(workers), e["end_ms"] - e["start_ms"], left=e["start_ms"], height=0.6,
            color=palette[k % len(palette)], edgecolor="#2d3748", linewidth=0.5)
    ax.text((e["start_ms"] + e["end_ms"]) / 2, len(workers), str(k), ha="center",
            va="center", fontsize=8)
ax.set_yticks(range(len(rows)), rows)
ax.invert_yaxis()
ax.set_xlabel("time since the loop started (ms)")
ax.grid(axis="y", visible=False)
ax.set_xlim(0, max(e["end_ms"] for e in events) * 1.02)
kp.save(fig, "ch04_pipeline")
