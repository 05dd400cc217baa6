#!/usr/bin/env bash
# CTest "grading: handout ..." (label slow): what a class gets from `make handout`, tried as a learner would.
#   test_handout.sh WORKDIR     (WORKDIR/tree: the handout, WORKDIR/tree/build: its build, kept for speed;
#   inside the tree, as a learner's `make build` puts it, so that the compiler cache's relative paths
#   equal the main build's and the handout's library, chapters and tests are cache hits)
#  1. the handout ships no solutions/, hidden tests, planted bugs or benchmarks; exercises/ are the stubs
#  2. it configures, builds and `make grade` scores every chapter 0, results written
#  3. `make run` stops at the first piece not written yet, with NotImplemented's message
#  4. a submission whose pieces call "the library's version" earns nothing (it calls itself, or the
#     answer-file rules refuse the call)
#  5. the red-team suite (tests/grading/redteam/) earns nothing and leaks nothing in the handout
#  6. (KINDLING_HANDOUT_FULL=1, CI) a handout with the reference of every graded chapter runs every
#     chapter program
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
work="$1"
mkdir -p "$work"
start=$SECONDS
fail() { echo "FAIL: $*" >&2; exit 1; }
lap() { echo "handout: $1 ($((SECONDS - start)) s)"; }  # where the time goes

bash "$root/scripts/handout.sh" "$work/tree"
for gone in solutions tests/grading/hidden tests/tools/planted tests/tools/cheats tests/grading/redteam bench tests/tensor tests/parity/ch01_tensor.py; do
  [ ! -e "$work/tree/$gone" ] || fail "$gone shipped"
done
[ -d "$work/tree/exercises" ] && [ -d "$work/tree/tests/grading/stubs" ] || fail "exercises/ or the stubs missing"
! grep -rqs "BEGIN SOLUTION" "$work/tree/exercises" || fail "a solution region shipped"

cmake -S "$work/tree" -B "$work/tree/build" -G Ninja -DKINDLING_REFERENCE=none >/dev/null
ctest --test-dir "$work/tree/build" -N -L grading | grep -q "solutions/ milestones pass" && fail "handout registers solution tests"

lap "made and configured"
# 2. every chapter 0 / 100 (milestones included), results written
/usr/bin/python3 "$work/tree/scripts/grade.py" --build "$work/tree/build" --out "$work/tree/build/grade" \
  --jobs 2 --expect zero --quiet
[ -s "$work/tree/build/grade/results.json" ] && [ -s "$work/tree/build/grade/junit.xml" ] || fail "results not written"

lap "built and graded to 0"
# 3. make run: builds the learner's library and stops at the first unimplemented piece, naming it
set +e
run_out=$(make -C "$work/tree" --no-print-directory run BUILD="$work/tree/build" 2>&1)
run_rc=$?
set -e
[ $run_rc -ne 0 ] || fail "make run succeeded on stubs"
grep -q "NotImplemented: ch01.ex1 (the strides of a new tensor) -- run make grade CH=01" <<<"$run_out" \
  || { echo "$run_out" | tail -20; fail "make run did not stop at ch01.ex1 with its message"; }
grep -q "run-chapters: stopped at program 1 " <<<"$run_out" || fail "make run did not stop at the first program"

lap "make run stopped at the first stub"
# 4. pieces that call the library's public functions: each recurses into itself and earns nothing
cp "$root"/tests/tools/library_calls/ch01/*.cpp "$work/tree/exercises/ch01/"
printf 'int this does not compile;\n' >> "$work/tree/exercises/ch01/ex3_broadcast.cpp"  # compile isolation
/usr/bin/python3 "$work/tree/scripts/grade.py" --build "$work/tree/build" --out "$work/tree/build/grade-calls" \
  --chapter 01 --no-milestone --jobs 2 --expect zero --quiet > "$work/calls.txt" || { cat "$work/calls.txt"; fail "library calls earned points"; }
grep -q "stack overflow\|does the piece's job" "$work/calls.txt" \
  || { cat "$work/calls.txt"; fail "neither the recursion (a stack overflow) nor the refused route was named"; }
grep -q "exercises/ch01/ex3_broadcast.cpp does not compile" "$work/calls.txt" \
  || { cat "$work/calls.txt"; fail "a file that does not compile was not named"; }
# (The answer-file rules refuse the calls that do a piece's job, issue 26: those exercises say so, by their own file.)
grep -q "was refused by the answer-file rules" "$work/calls.txt" || { cat "$work/calls.txt"; fail "no library route was refused"; }
[ "$(grep -c "build failed" "$work/calls.txt")" = 1 ] || { cat "$work/calls.txt"; fail "one broken file failed other exercises"; }
cp "$work"/tree/tests/grading/stubs/ch01/*.cpp "$work/tree/exercises/ch01/"

lap "library calls earned 0"
# 5. the red-team suite on the handout: each attack copied over the stubs of exercises/, graded as the
# learner's `make grade` does; none earns a point or leaks (run_redteam.py; the stubs are put back).
# One attack per class, and every attack on the compile step (where a handout differs from the full
# tree: the learner's own build folder, ccache, no solutions/); the full tree runs them all (make test).
/usr/bin/python3 "$root/tests/grading/redteam/run_redteam.py" --handout "$work/tree" --handout-build "$work/tree/build" \
  --only ctor_forge,incbin_replay,include_solution,ccache_poison,incbin_secret,nosandbox_read_unsandboxed,symlink_outputs,library_route,checker_links \
  > "$work/redteam.txt" 2>&1 || { cat "$work/redteam.txt"; fail "an attack of the red-team suite succeeded in the handout"; }
tail -1 "$work/redteam.txt"

lap "red team earned 0"
# 6. with the reference for every chapter that has exercises the handout runs every chapter program
# (Made over the first handout, into the same build folder: only the pieces change, so this is quick.)
if [ "${KINDLING_HANDOUT_FULL:-0}" = 1 ]; then
  graded=()
  for m in "$root"/tests/grading/ch[0-9][0-9]/exercises.json; do
    c="$(basename "$(dirname "$m")")"
    graded+=("${c#ch}")
  done
  KINDLING_HANDOUT_KEEP_BUILD=1 bash "$root/scripts/handout.sh" "$work/tree" "${graded[@]}"
  make -C "$work/tree" --no-print-directory run BUILD="$work/tree/build" >"$work/run-ref.txt" 2>&1 \
    || { tail -30 "$work/run-ref.txt"; fail "a chapter program failed with REFERENCE=${graded[*]}"; }
  grep -q "run-chapters: .* program(s) ran" "$work/run-ref.txt" || fail "no programs ran"
  lap "every chapter program ran on the reference"
fi
echo "handout OK in $((SECONDS - start)) s"
