"""The time of kd::distributed::all_reduce against the tensor's size, on 2 and on 4
ranks (ch11_allreduce_np2.csv and ch11_allreduce_np4.csv, this build's runs): the
median of the slowest rank's times with the quartiles as error bars, and the ring
model fitted to each world size, on log-log scales."""
# book: inputs ch11_allreduce_np2.csv ch11_allreduce_np4.csv
import kindling_plot as kp

fig, ax = kp.figure(1, 1, width=6.4, height=3.8)
for world, color in zip((2, 4), kp.COLORS):
    rows = kp.read_csv(f"ch11_allreduce_np{world}.csv")
    sizes = [r["bytes"] for r in rows]
    med = [1e6 * r["median_s"] for r in rows]
    err = [[1e6 * (r["median_s"] - r["p25_s"]) for r in rows],
           [1e6 * (r["p75_s"] - r["median_s"]) for r in rows]]
    ax.errorbar(sizes, med, yerr=err, fmt="o", ms=4, capsize=2, color=color,
                label=f"{world} ranks, measured")
    ax.plot(sizes, [1e6 * r["model_s"] for r in rows], color=color, linestyle="--",
            linewidth=1.2, label=f"{world} ranks, ring model fitted")
ax.set_xscale("log", base=2)
ax.set_yscale("log")
ticks = [4, 64, 1024, 16384, 262144, 4194304, 67108864]
ax.set_xticks(ticks)
ax.set_xticklabels(["4 B", "64 B", "1 KiB", "16 KiB", "256 KiB", "4 MiB", "64 MiB"])
ax.set(xlabel="tensor size (float32)", ylabel="time of one all_reduce (µs)",
       title="all_reduce on this machine: measured and the ring model")
ax.legend(loc="upper left")
kp.save(fig, "ch11_allreduce_cost")
