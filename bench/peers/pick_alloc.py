#!/usr/bin/python3
"""Which allocator setting removes a peer's page faults and runs it fastest? Starts the peer four times
(glibc as installed, the glibc tunables, jemalloc and tcmalloc preloaded: bench/bench_util.hpp's
PeerSettings), runs them in turn, alternating the order, and prints each one's median and minimum CPU
time per repetition, page faults, user and system time (from /proc/<pid>/stat). Run it on a quiet
machine after building the peers (target bench_peers) to choose kTunedAlloc in bench/bench_util.hpp:

  python3 bench/peers/pick_alloc.py build/bench/peers/bench_peer_p1_simplenet 300 150 15
  python3 bench/peers/pick_alloc.py /usr/bin/python3 bench/peers/p1_pytorch.py 300 150 11
  python3 bench/peers/pick_alloc.py build/bench/peers/bench_peer_p6_cnn 5 3 11

(the peer's command line, then the number of repetitions)."""
import os
import statistics
import subprocess
import sys

L="/usr/lib/x86_64-linux-gnu/"
T="glibc.malloc.mmap_threshold=67108864:glibc.malloc.trim_threshold=1073741824"
modes={"glibc":{}, "tunables":{"GLIBC_TUNABLES":T}, "jemalloc":{"LD_PRELOAD":L+"libjemalloc.so.2"}, "tcmalloc":{"LD_PRELOAD":L+"libtcmalloc_minimal.so.4"}}
argv=sys.argv[1:-1]; reps=int(sys.argv[-1])
procs = {}
base=dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
for m,e in modes.items():
    p=subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=dict(base,**e))
    print(m, p.stdout.readline().strip()[:120], flush=True)
    procs[m]=p
def stat(pid):
    f=open(f"/proc/{pid}/stat").read(); f=f[f.rfind(')')+2:].split()
    return float(f[7]), float(f[11])/100, float(f[12])/100
res={m:[] for m in modes}; use={m:[0,0,0] for m in modes}
for r in range(reps+1):
    order=list(modes) if r%2==0 else list(reversed(modes))
    for m in order:
        p=procs[m]; a=stat(p.pid)
        p.stdin.write("run\n"); p.stdin.flush(); line=p.stdout.readline()
        b=stat(p.pid)
        if r==0: continue
        cpu=float(line.split()[0].split("=")[1]); res[m].append(cpu)
        for i in range(3): use[m][i]+=b[i]-a[i]
for m in modes:
    print(f"{m:9s} median {statistics.median(res[m])*1e3:8.2f} ms  min {min(res[m])*1e3:8.2f}  faults/rep {use[m][0]/reps:8.1f} user {use[m][1]/reps*1e3:7.1f} ms sys {use[m][2]/reps*1e3:7.1f} ms")
for p in procs.values(): p.stdin.write("quit\n"); p.stdin.flush()
