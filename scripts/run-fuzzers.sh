#!/usr/bin/env bash
# Runs the libFuzzer targets of tests/fuzz for a while each and prints one line per target:
#
#   FUZZ <target>: <execs> execs in <s> s (<execs/s>/s), corpus <n> inputs, no findings
#
#   bash scripts/run-fuzzers.sh BUILD SECONDS [TARGET...]     (BUILD configured with -DKINDLING_FUZZ=ON)
#
# Each target starts from its seed corpus (tests/fuzz/corpus/<t>) and its regression inputs
# (tests/fuzz/regressions/<t>); what it discovers goes to BUILD/fuzz/corpus-<t> (kept between runs,
# never into the repository), and a crashing input to BUILD/fuzz/artifacts-<t>/. A finding — crash,
# sanitizer report, a non-kindling exception, a hang over 10 s, one allocation over 2 GB — fails the
# script, after every target has had its turn.
set -euo pipefail
build=${1:?usage: run-fuzzers.sh BUILD SECONDS [TARGET...]}
seconds=${2:?usage: run-fuzzers.sh BUILD SECONDS [TARGET...]}
shift 2
targets=("$@")
[[ ${#targets[@]} -gt 0 ]] || targets=(npy safetensors idx csv image checkpoint onnx)
src="$(cd "$(dirname "$0")/.." && pwd)/tests/fuzz"
out="$build/fuzz"
mkdir -p "$out"

# One target: its summary line to $out/<t>.line (stdout) and its verdict to $out/<t>.status.
fuzz_one() {
  local t=$1 bin="$build/tests/fuzz/fuzz_$1" log="$out/$1.log" status=0 execs inputs verdict
  if [[ ! -x "$bin" ]]; then
    echo "FUZZ $t: $bin is missing (configure with clang and -DKINDLING_FUZZ=ON; make fuzz does)"
    return 1
  fi
  mkdir -p "$out/corpus-$t" "$out/artifacts-$t"
  ASAN_OPTIONS=detect_leaks=1:halt_on_error=1:allocator_may_return_null=1 \
  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    "$bin" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=3072 -malloc_limit_mb=2048 \
      -print_final_stats=1 -artifact_prefix="$out/artifacts-$t/" \
      "$out/corpus-$t" "$src/corpus/$t" "$src/regressions/$t" >"$log" 2>&1 || status=$?
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo 0)
  inputs=$(find "$out/corpus-$t" -type f | wc -l)
  if [[ $status -eq 0 ]]; then
    verdict="no findings"
  else
    verdict="FINDING (exit $status): see $log and $out/artifacts-$t/"
    grep -E 'ERROR|SUMMARY|fuzz: a non-kindling|Timeout|out-of-memory' "$log" | head -5 || true
  fi
  echo "FUZZ $t: $execs execs in $seconds s ($((execs / (seconds > 0 ? seconds : 1)))/s), corpus $inputs inputs, $verdict"
  return $((status != 0))
}

# The targets run FUZZ_JOBS at a time (default: one per core), each on one core: the same seconds
# of fuzzing each, in less time. Their lines are printed in the targets' order.
jobs=${FUZZ_JOBS:-$(nproc)}
pids=()
for t in "${targets[@]}"; do
  while [[ $(jobs -rp | wc -l) -ge $jobs ]]; do wait -n || true; done
  ( fuzz_one "$t" >"$out/$t.line" 2>&1; echo $? >"$out/$t.status" ) &
  pids+=($!)
done
wait
findings=0
for t in "${targets[@]}"; do
  cat "$out/$t.line"
  [[ "$(cat "$out/$t.status" 2>/dev/null)" == 0 ]] || findings=$((findings + 1))
done
exit $((findings > 0))
