#!/usr/bin/python3
"""Which allocator setting removes a peer's page faults and runs it fastest? Starts the peer four times
(glibc as installed, the glibc tunables, jemalloc and tcmalloc preloaded: the settings of
bench/bench_util.hpp's PeerSettings), runs them in turn, alternating the order, and prints each one's
median and minimum CPU time per repetition, page faults, user and system time (from /proc/<pid>/stat).
Run it on a quiet machine after building the peers (target bench_peers) to choose kTunedAlloc in
bench/bench_util.hpp:

  python3 bench/peers/pick_alloc.py build/bench/peers/bench_peer_p1_simplenet 300 150 15
  python3 bench/peers/pick_alloc.py /usr/bin/python3 bench/peers/p1_pytorch.py 300 150 11
  python3 bench/peers/pick_alloc.py build/bench/peers/bench_peer_p6_cnn 5 3 11

(the peer's command line, then the number of repetitions; the peer speaks bench/peer_process.hpp's
protocol and reports cpu=<seconds> first on each answer)."""
import os
import statistics
import subprocess
import sys

LIB = "/usr/lib/x86_64-linux-gnu/"
SETTINGS = {  # the same as bench/bench_util.hpp's peer_settings()
    "glibc": {},
    "tunables": {"GLIBC_TUNABLES": "glibc.malloc.mmap_threshold=67108864:glibc.malloc.trim_threshold=1073741824"},
    "jemalloc": {"LD_PRELOAD": LIB + "libjemalloc.so.2"},
    "tcmalloc": {"LD_PRELOAD": LIB + "libtcmalloc_minimal.so.4"},
}


def usage(pid):
    """(minor faults, user s, system s) of a process so far: /proc/<pid>/stat fields 10, 14, 15."""
    text = open(f"/proc/{pid}/stat").read()
    fields = text[text.rfind(")") + 2:].split()  # after the command name, which may hold spaces
    tick = os.sysconf("SC_CLK_TCK")
    return float(fields[7]), float(fields[11]) / tick, float(fields[12]) / tick


def main():
    command, reps = sys.argv[1:-1], int(sys.argv[-1])
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
    peers = {}
    for name, extra in SETTINGS.items():
        peers[name] = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                                       env=dict(env, **extra))
        print(name, peers[name].stdout.readline().strip(), flush=True)
    times = {name: [] for name in SETTINGS}
    totals = {name: [0.0, 0.0, 0.0] for name in SETTINGS}
    for r in range(reps + 1):  # the first round is a warm-up
        for name in (list(SETTINGS) if r % 2 == 0 else list(reversed(SETTINGS))):
            peer = peers[name]
            before = usage(peer.pid)
            peer.stdin.write("run\n")
            peer.stdin.flush()
            answer = peer.stdout.readline()
            after = usage(peer.pid)
            if r == 0:
                continue
            times[name].append(float(answer.split()[0].split("=")[1]))
            for i in range(3):
                totals[name][i] += after[i] - before[i]
    for name in SETTINGS:
        faults, user, system = (t / reps for t in totals[name])
        print(f"{name:9s} median {statistics.median(times[name]) * 1e3:8.2f} ms  min {min(times[name]) * 1e3:8.2f} ms"
              f"  faults {faults:9.1f}  user {user * 1e3:7.1f} ms  sys {system * 1e3:7.1f} ms  (per repetition)")
    for peer in peers.values():
        peer.stdin.write("quit\n")
        peer.stdin.flush()
        peer.wait()


if __name__ == "__main__":
    main()
