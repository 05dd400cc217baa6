"""Global-memory reads of the three matmul versions for n x n matrices
(ch08_traffic.csv, counted by the kernel emulator in this build's run), on log scales,
with the n^3 and n^3 / 16 lines they follow."""
# book: inputs ch08_traffic.csv
import kindling_plot as kp

rows = kp.read_csv("ch08_traffic.csv")
names = {"v1": "v1 naive", "v2": "v2 shared-memory tiles", "v3": "v3 register blocking"}
fig, ax = kp.figure(1, 1, width=6.0, height=3.6)
sizes = sorted({r["n"] for r in rows})
for (version, label), color in zip(names.items(), kp.COLORS):
    reads = [next(r["global_reads"] for r in rows
                  if r["n"] == n and r["version"] == version) for n in sizes]
    ax.plot(sizes, reads, marker="o", ms=4, color=color, label=label)
guides = ((2, "2 n³: both operands per multiply-add"), (2 / 16, "2 n³ / 16"))
for (scale, text), style in zip(guides, ("--", ":")):
    ax.plot(sizes, [scale * n ** 3 for n in sizes], color="#a0aec0", linestyle=style,
            linewidth=1, label=text)
ax.set_xscale("log", base=2)
ax.set_yscale("log")
ax.set_xticks(sizes, [str(int(n)) for n in sizes])
ax.set(xlabel="n (c = a @ b, all n x n)", ylabel="floats read from global memory",
       title="What tiling saves: global-memory reads")
ax.legend(loc="upper left", fontsize=8)
kp.save(fig, "ch08_traffic")
