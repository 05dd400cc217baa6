#!/usr/bin/env bash
# Runs every benchmark program in bench order and prints their BENCH lines (`make bench`).
#
#   bash scripts/run-bench.sh [BUILD] [--quick] [--only bench_NAME]...
#
#   --quick   a few iterations per benchmark (a smoke run; the ratios are noisy)
#   --only    run only these programs (e.g. --only bench_amp_train), in bench order
#
# The output starts with a header that says what was measured where: `# key: value` lines (the form
# book/ext/kindling_book.py reads from a capture) with the date, the CPU (model, family and model
# numbers, cores, the instruction sets the GEMMs care about), the commit (and whether the tree had
# uncommitted changes), the peers' settings (tuned, as installed), the load average before the run, and
# the SHA-256 of every benchmark source. So a capture is just the output:
#   make bench > book/captured/bench.txt
# (the load average at the end is the last line). The programs are listed in $BUILD/bench/benches.txt
# (written by bench/CMakeLists.txt). Each prints lines
#   BENCH <id> <what>: ratio=<number> (<kindling figure> vs <peer figure>) spread=[<lo>..<hi>] ...
# with ratio = peer time / Kindling time (bigger is better for Kindling), then per side user and system
# CPU time, page faults and GEMM libraries, the training step's floor, the CPU, and peer=tuned,
# peer=as-installed or peer=in-process (bench/bench_util.hpp says what each field means). Everything
# runs on one thread (OPENBLAS_NUM_THREADS=1, torch.set_num_threads(1)); other output of the programs
# goes to stderr. Exit status 1 if a benchmark fails (a crash, or Kindling and its peer computing
# different results).
set -uo pipefail
HERE=$(cd "$(dirname "$0")/.." && pwd)
BUILD=build
ARGS=()
ONLY=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --quick) ARGS+=(--quick) ;;
    --only) [[ $# -ge 2 ]] || { echo "run-bench: --only needs a program name" >&2; exit 2; }; ONLY+=("$2"); shift ;;
    -h|--help) sed -n '2,27p' "$0"; exit 0 ;;
    -*) echo "run-bench: unknown option $1" >&2; exit 2 ;;
    *) BUILD="$1" ;;
  esac
  shift
done
[[ "$BUILD" = /* ]] || BUILD="$HERE/$BUILD"
MANIFEST="$BUILD/bench/benches.txt"
[[ -f "$MANIFEST" ]] || { echo "run-bench: $MANIFEST is missing (configure and build first: make build)" >&2; exit 1; }
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 KINDLING_NUM_THREADS=1

# LibTorch peers are not part of `all` (each takes ~25 s to compile): build them now. A benchmark
# whose peer is missing says so and fails (outside --quick).
if ! cmake --build "$BUILD" --target bench_peers >&2; then
  echo "run-bench: building the LibTorch peers (target bench_peers) failed; their benchmarks will fail" >&2
fi

for program in "${ONLY[@]}"; do
  grep -qx "$program" "$MANIFEST" || { echo "run-bench: --only $program: no such benchmark (see $MANIFEST)" >&2; exit 2; }
done

# The header (stdout, before any BENCH line).
cpuinfo_field() { awk -F': *' -v key="$1" '$1 ~ "^"key"[ \t]*$" { print $2; exit }' /proc/cpuinfo; }
isa=()
flags=" $(cpuinfo_field flags) "
for f in avx2 fma avx512f avx512bw avx512vl avx512_vnni avx512_bf16 amx_tile amx_bf16; do
  [[ "$flags" == *" $f "* ]] && isa+=("$f")
done
isa_list=$(IFS=,; echo "${isa[*]:-none}")
cpu="$(cpuinfo_field 'model name') (family $(cpuinfo_field 'cpu family') model $(cpuinfo_field model))"
commit=$(git -C "$HERE" rev-parse --short HEAD 2>/dev/null || echo unknown)
if [[ -n "$(git -C "$HERE" status --porcelain --untracked-files=no 2>/dev/null)" ]]; then
  commit="$commit + uncommitted changes"
fi
command="make bench"
if [[ ${#ARGS[@]} -gt 0 || ${#ONLY[@]} -gt 0 ]]; then
  command="bash scripts/run-bench.sh"
  [[ ${#ARGS[@]} -gt 0 ]] && command+=" ${ARGS[*]}"
  for program in "${ONLY[@]}"; do command+=" --only $program"; done
fi
first=$(head -n1 "$MANIFEST")
peers=$("$BUILD/bench/$first" --describe-peers 2>/dev/null || echo unknown)
mem=$(awk '/^MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo)
echo "# captured: $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "# machine: $cpu, $(getconf _NPROCESSORS_ONLN) cores, $mem, Linux $(uname -r); load average $(cut -d' ' -f1-3 /proc/loadavg) before the run"
echo "# cpu: $cpu"
echo "# instruction-sets: $isa_list"
echo "# command: $command"
echo "# commit: $commit"
echo "# peers: $peers"
echo "# load-average: $(cut -d' ' -f1-3 /proc/loadavg) (1, 5, 15 min) before the run"
# Every source in bench/ but the build file and the Markdown; with --only, not the other programs'
# main files (bench/<name>.cpp), so that a capture of one program goes stale only when it could change.
(cd "$HERE" && git ls-files bench | LC_ALL=C sort | while read -r f; do
  [[ "$f" == *CMakeLists.txt || "$f" == *.md ]] && continue
  if [[ ${#ONLY[@]} -gt 0 && "$f" =~ ^bench/([a-z0-9_]+)\.cpp$ && " ${ONLY[*]} " != *" bench_${BASH_REMATCH[1]} "* ]]; then
    continue
  fi
  echo "# source-sha256: $f=$(sha256sum "$f" | cut -d' ' -f1)"
done)
echo "# recapture: $command > out.txt (the header is part of the output; see book/README.md)"
start=$(date +%s)

failed=()
visited=()
while read -r program; do
  [[ -z "$program" ]] && continue
  if [[ ${#ONLY[@]} -gt 0 && " ${ONLY[*]} " != *" $program "* ]]; then
    continue
  fi
  visited+=("$program")
  binary="$BUILD/bench/$program"
  if [[ ! -x "$binary" ]]; then
    echo "run-bench: $binary is not built (run: cmake --build $BUILD --target $program)" >&2
    failed+=("$program")
    continue
  fi
  echo "# $program" >&2
  # stdin from /dev/null: the loop reads the list on stdin, and a program that reads its own stdin
  # (mpirun forwards it to rank 0) would swallow the rest of the list -- bench_ddp_overlap did, and
  # every program after it silently never ran.
  "$binary" "${ARGS[@]}" </dev/null || failed+=("$program")
done <"$MANIFEST"

echo "# load average at the end: $(cut -d' ' -f1-3 /proc/loadavg); $(( $(date +%s) - start )) seconds"
# Every program the list names (or --only asks for) must have run: a capture missing lines is not one.
expected=$(grep -c . "$MANIFEST")
[[ ${#ONLY[@]} -gt 0 ]] && expected=${#ONLY[@]}
if [[ ${#visited[@]} -lt $expected ]]; then
  echo "run-bench: only ${#visited[@]} of the $expected benchmarks ran (${visited[*]})" >&2
  exit 1
fi
if [[ ${#failed[@]} -gt 0 ]]; then
  echo "run-bench: ${#failed[@]} benchmark(s) failed: ${failed[*]}" >&2
  exit 1
fi
