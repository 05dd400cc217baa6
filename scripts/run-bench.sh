#!/usr/bin/env bash
# Runs every benchmark program in bench order and prints their BENCH lines (`make bench`).
#
#   bash scripts/run-bench.sh [BUILD] [--quick]
#
#   --quick   a few iterations per benchmark (a smoke run; the ratios are noisy)
#
# The programs are listed in $BUILD/bench/benches.txt (written by bench/CMakeLists.txt). Each prints lines
#   BENCH <id> <what>: ratio=<number> (<kindling figure> vs <peer figure>)
# with ratio = peer time / Kindling time (bigger is better for Kindling). Everything runs on one thread
# (OPENBLAS_NUM_THREADS=1, torch.set_num_threads(1)); other output of the programs goes to stderr.
# Exit status 1 if a benchmark fails (a crash, or Kindling and its peer computing different results).
set -uo pipefail
HERE=$(cd "$(dirname "$0")/.." && pwd)
BUILD=build
ARGS=()
for arg in "$@"; do
  case "$arg" in
    --quick) ARGS+=(--quick) ;;
    -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
    -*) echo "run-bench: unknown option $arg" >&2; exit 2 ;;
    *) BUILD="$arg" ;;
  esac
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

failed=()
while read -r program; do
  [[ -z "$program" ]] && continue
  binary="$BUILD/bench/$program"
  if [[ ! -x "$binary" ]]; then
    echo "run-bench: $binary is not built (run: cmake --build $BUILD --target $program)" >&2
    failed+=("$program")
    continue
  fi
  echo "# $program" >&2
  "$binary" "${ARGS[@]}" || failed+=("$program")
done <"$MANIFEST"

if [[ ${#failed[@]} -gt 0 ]]; then
  echo "run-bench: ${#failed[@]} benchmark(s) failed: ${failed[*]}" >&2
  exit 1
fi
