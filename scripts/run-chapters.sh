#!/usr/bin/env bash
# Runs every chapter program in book order (chapter, then file name), printing a header per program,
# and captures what each printed into $BUILD/book/outputs/<program>.txt for the book.
#
#   bash scripts/run-chapters.sh [BUILD] [--quiet] [--stale] [--only chNN_name]...
#
#   --quiet   print only one status line per program (the output still goes to the capture file)
#   --stale   skip programs whose capture is up to date: the capture remembers a hash of the program
#             (the binary, its source and its run arguments), and a program runs again only when that
#             hash changed (the book build uses this: an edit to the prose re-runs nothing, a change in
#             lib/ re-runs the programs whose binaries it changed)
#   --only P  run only program P (repeatable)
#
# Programs are listed in $BUILD/chapters/programs.txt (written by chapters/CMakeLists.txt). A program's
# source may contain, on a line of its own:
#   // book: run-args ARGS    // book: timeout SECONDS (default 120)    // book: skip-run
#   // book: run-first FILE.py   the chapter's Python file to run (/usr/bin/python3, same folder and
#                                time limit) just before the program: PyTorch makes what it reads
#   // book: mpirun N [M...]     run as an MPI job of N processes (mpirun -np N), then of M...; the
#                                outputs follow each other in the capture, and the time limit covers
#                                all the jobs. The flags CI needs (it runs as root; more ranks than
#                                cores) are set here, for these runs only
#   // book: exit-status N       the run must end with status N (a program that shows a failure)
# Each program runs with the outputs folder as its working directory, so a picture it writes there
# (e.g. ch02_graph.dot) can be shown by the book. Fails (exit 1) if any program fails or times out, and
# stops at the first program that reaches a piece of the library the learner has not written yet
# (kindling::NotImplemented: "ch01.ex1 (...) -- run make grade CH=01").
set -uo pipefail

BUILD=build
QUIET=0
STALE=0
ONLY=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --quiet) QUIET=1 ;;
    --stale) STALE=1 ;;
    --only) ONLY+=("$2"); shift ;;
    -h|--help) sed -n '2,27p' "$0"; exit 0 ;;
    -*) echo "run-chapters: unknown option $1" >&2; exit 2 ;;
    *) BUILD="$1" ;;
  esac
  shift
done
BUILD=$(cd "$BUILD" 2>/dev/null && pwd) || { echo "run-chapters: no build folder '$BUILD' (run: make build)" >&2; exit 1; }
MANIFEST="$BUILD/chapters/programs.txt"
OUTPUTS="$BUILD/book/outputs"
KEYS="$OUTPUTS/.keys"
[[ -f "$MANIFEST" ]] || { echo "run-chapters: $MANIFEST is missing (configure with cmake first)" >&2; exit 1; }
mkdir -p "$OUTPUTS" "$KEYS"

# key BINARY SOURCE ARGS... → a hash of what decides the program's output
key() {
  { sha256sum "$1" "$2" | cut -d' ' -f1; shift 2; printf '%s\n' "args: $*"; } | sha256sum | cut -d' ' -f1
}

# directive FILE NAME → the rest of the line "// book: NAME rest" (empty if absent; "yes" for flags)
directive() {
  local line
  line=$(grep -m1 -E "^[[:space:]]*//[[:space:]]*book:[[:space:]]*$2([[:space:]]|$)" "$1") || return 0
  line=$(sed -E "s#^[[:space:]]*//[[:space:]]*book:[[:space:]]*$2[[:space:]]*##" <<<"$line")
  echo "${line:-yes}"
}

failed=()
for wanted in "${ONLY[@]}"; do
  grep -q "^$wanted"$'\t' "$MANIFEST" || { echo "run-chapters: no program $wanted in $MANIFEST" >&2; exit 1; }
done
ran=0
skipped=0
while IFS=$'\t' read -r program source; do
  [[ -z "$program" ]] && continue
  if [[ ${#ONLY[@]} -gt 0 && ! " ${ONLY[*]} " == *" $program "* ]]; then continue; fi
  binary="$BUILD/chapters/$program"
  capture="$OUTPUTS/$program.txt"
  relsource=${source#"$(dirname "$(dirname "$(dirname "$source")")")/"}
  if [[ -n "$(directive "$source" skip-run)" ]]; then
    [[ $QUIET -eq 1 ]] || printf '\n=== %s (%s): skipped (// book: skip-run)\n' "$program" "$relsource"
    skipped=$((skipped + 1))
    continue
  fi
  if [[ ! -x "$binary" ]]; then
    echo "=== $program: FAILED — $binary is not built (run: cmake --build $BUILD --target $program)" >&2
    failed+=("$program")
    continue
  fi
  read -r -a args <<<"$(directive "$source" run-args)"
  first=$(directive "$source" run-first)
  first_py=""
  [[ -n "$first" ]] && first_py="$(dirname "$source")/$first"
  mpi=$(directive "$source" mpirun)
  expected=$(directive "$source" exit-status)
  expected=${expected:-0}
  if [[ -n "$mpi" ]]; then
    # One MPI job per world size, one after the other, under the one time limit (the variables are
    # the job's, not the reader's: mpirun refuses root without them, and a 2-core machine has fewer
    # cores than 4 ranks; no rank is pinned, so jobs that share the machine do not share a core; a
    # rank that waits yields its core, as OpenMPI does by itself only when there are more ranks than
    # cores -- with 2 spinning ranks and other work on 2 cores, chapter 11 measured a 4-byte
    # all_reduce at 12 ms instead of 45 us). mpirun passes its standard input on to rank 0: it gets
    # /dev/null, not the list of programs.
    run=(env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
         OMPI_MCA_hwloc_base_binding_policy=none OMPI_MCA_mpi_yield_when_idle=1 KINDLING_DISTRIBUTED_EXIT_TIMEOUT=3
         bash -c 'b=$1 n=$2; shift 2; for np in $n; do mpirun -np "$np" "$b" "$@" </dev/null || exit; done'
         mpirun "$binary" "$mpi" "${args[@]}")
  else
    run=("$binary" "${args[@]}")
  fi
  if [[ -n "$first_py" ]]; then
    want=$(key "$binary" "$source" "${args[@]}" "mpirun: $mpi" "first: $(sha256sum "$first_py" 2>/dev/null | cut -d' ' -f1)")
  else
    want=$(key "$binary" "$source" "${args[@]}" "mpirun: $mpi")
  fi
  if [[ $STALE -eq 1 && -f "$capture" && -f "$KEYS/$program" && "$(cat "$KEYS/$program")" == "$want" ]]; then
    [[ $QUIET -eq 1 ]] && echo "  $program: up to date"
    continue
  fi
  limit=$(directive "$source" timeout)
  limit=${limit:-120}
  if [[ $QUIET -eq 1 ]]; then
    printf '  %s ... ' "$program"
  else
    printf '\n=== %s (%s)\n' "$program${args[*]:+ ${args[*]}}" "$relsource"
  fi
  start=${EPOCHREALTIME/./}
  first_failed=0
  if [[ -n "$first_py" ]]; then
    # PyTorch's side first (its output goes to <program>.first.txt; a failure fails the program).
    (cd "$OUTPUTS" && KINDLING_CHAPTER="$(dirname "$source")" timeout --kill-after=10 "$limit" \
       /usr/bin/python3 "$first_py") >"$OUTPUTS/$program.first.txt" 2>&1 || first_failed=1
  fi
  if [[ $first_failed -eq 1 ]]; then
    { cat "$OUTPUTS/$program.first.txt"; echo "run-first: $first failed"; } >"$capture.tmp"
    (exit 1)
  elif [[ $QUIET -eq 1 ]]; then
    (cd "$OUTPUTS" && timeout --kill-after=10 "$limit" "${run[@]}") >"$capture.tmp" 2>&1
  else
    # On the terminal, a piece not written yet reads as the library's message alone: the C++ runtime's
    # "terminate called after throwing an instance of 'kindling::NotImplemented'" line goes (the
    # capture keeps everything, and the summary below says what to do).
    (cd "$OUTPUTS" && timeout --kill-after=10 "$limit" "${run[@]}") 2>&1 | tee "$capture.tmp" |
      sed -u -e "/^terminate called after throwing an instance of 'kindling::NotImplemented'\$/d" \
             -e 's/^  what():  \(NotImplemented: \)/\1/'
  fi
  rc=${PIPESTATUS[0]}
  # A program that shows a failure must fail as it says (and a timeout is never what it expects).
  if [[ $expected -ne 0 && $rc -ne 124 && $rc -ne 137 ]]; then
    if [[ $rc -eq $expected ]]; then rc=0; else rc=1; fi
  fi
  tenths=$(( (${EPOCHREALTIME/./} - start) / 100000 ))
  seconds="$((tenths / 10)).$((tenths % 10))"
  ran=$((ran + 1))
  if [[ $rc -eq 0 ]]; then
    mv -f "$capture.tmp" "$capture"
    echo "$want" >"$KEYS/$program"
    rm -f "$OUTPUTS/$program.failed.txt"
    [[ $QUIET -eq 1 ]] && echo "ok (${seconds} s)"
  else
    # Never leave an old capture behind: the book must not show output of a program that now fails.
    rm -f "$capture" "$KEYS/$program"
    mv -f "$capture.tmp" "$OUTPUTS/$program.failed.txt"
    why="exit status $rc"
    [[ $rc -eq 124 || $rc -eq 137 ]] && why="timed out after ${limit} s (raise it with // book: timeout N)"
    [[ $QUIET -eq 1 ]] && { echo "FAILED"; tail -n 20 "$OUTPUTS/$program.failed.txt" | sed 's/^/      | /'; }
    # A piece of the library you have not written yet: stop here, the later chapters build on it.
    stub=$(grep -m1 -oE 'NotImplemented: ch[0-9]{2}\.ex[0-9]+ .*' "$OUTPUTS/$program.failed.txt" || true)
    if [[ -n "$stub" ]]; then
      echo "=== $program stopped at a piece of your library that is not written yet:" >&2
      echo "    $stub" >&2
      echo "run-chapters: stopped at program $ran ($program), the first to reach it; the programs after it were not run" >&2
      echo "    (later chapters build on earlier pieces). Write the piece, or take its chapter's reference: REFERENCE=NN" >&2
      exit 1
    fi
    echo "=== $program: FAILED ($why); output in $OUTPUTS/$program.failed.txt" >&2
    failed+=("$program")
  fi
done <"$MANIFEST"

if [[ ${#failed[@]} -gt 0 ]]; then
  echo "run-chapters: ${#failed[@]} program(s) failed: ${failed[*]}" >&2
  exit 1
fi
[[ $QUIET -eq 1 ]] || printf '\nrun-chapters: %d program(s) ran, %d skipped; outputs in %s\n' "$ran" "$skipped" "$OUTPUTS"
exit 0
