#!/usr/bin/env bash
# CTest "grading: handout ..." (label slow): make a handout, configure it on its own, build what grading
# needs and grade the untouched stubs: every chapter must score 0 with valid results.
#   test_handout.sh WORKDIR     (WORKDIR/tree: the handout, WORKDIR/build: its build; kept for speed)
# KINDLING_HANDOUT_FULL=1 also builds everything and runs the chapters' programs (`make run` minus the book).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
work="$1"
mkdir -p "$work"
start=$SECONDS

bash "$root/scripts/handout.sh" "$work/tree"
fail() { echo "FAIL: $*" >&2; exit 1; }
[ ! -e "$work/tree/solutions" ] || fail "solutions/ shipped"
[ ! -e "$work/tree/tests/grading/hidden" ] || fail "hidden tests shipped"
[ -d "$work/tree/exercises" ] || fail "exercises/ missing"

# Paths inside the copy are relativised so ccache hits from one run to the next.
export CCACHE_BASEDIR="$work"
cmake -S "$work/tree" -B "$work/build" -G Ninja >/dev/null
ctest --test-dir "$work/build" -N -L grading | grep -q "solutions/ score 100%" && fail "handout registers solution tests"

/usr/bin/python3 "$work/tree/scripts/grade.py" --build "$work/build" --out "$work/build/grade" \
  --jobs 2 --expect zero --quiet
[ -s "$work/build/grade/results.json" ] && [ -s "$work/build/grade/junit.xml" ] || fail "results not written"

if [ "${KINDLING_HANDOUT_FULL:-0}" = 1 ]; then
  cmake --build "$work/build" -j 2
  if [ -f "$work/tree/scripts/run-chapters.sh" ]; then (cd "$work/tree" && bash scripts/run-chapters.sh "$work/build"); fi
fi
echo "handout OK in $((SECONDS - start)) s"
