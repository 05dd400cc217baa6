#!/usr/bin/env bash
# Captures a full run of a chapter program for the book, when the book's own run is shortened
# (`// book: run-args --epochs 2`) to keep `make book` quick. The capture is committed with the
# chapter, and the book shows it with ```{captured} captured/<program>.txt``` next to this build's
# short run.
#
#   bash scripts/capture-run.sh [--build BUILD] PROGRAM [ARGS...]
#   e.g. bash scripts/capture-run.sh ch05_cnn --epochs 4
#
# Writes chapters/NN-name/captured/PROGRAM.txt: a header (`# key: value` lines: when, on which
# machine and how loaded, the command, the commit, and the SHA-256 of the program's sources, which
# the book checks — a capture of a program that changed since fails the book build), then what the
# program printed. Files the program wrote that are named PROGRAM_* or PROGRAM.* (its logs:
# CSV, JSON lines) are copied next to it. The program runs in a temporary folder; keep the
# machine as quiet as you can: the header records the load average, so a reader can judge the
# timings.
set -euo pipefail
HERE=$(cd "$(dirname "$0")/.." && pwd)
BUILD="$HERE/build"
if [[ "${1:-}" == "--build" ]]; then BUILD=$(cd "$2" && pwd); shift 2; fi
[[ $# -ge 1 ]] || { sed -n '2,16p' "$0"; exit 2; }
program=$1; shift
[[ "$program" =~ ^ch([0-9][0-9])_([A-Za-z0-9_]+)$ ]] || { echo "capture-run: $program is not chNN_name" >&2; exit 2; }
nn=${BASH_REMATCH[1]}; stem=${BASH_REMATCH[2]}
chapter=$(ls -d "$HERE"/chapters/"$nn"-*/ | head -1); chapter=${chapter%/}
source="$chapter/$stem.cpp"
binary="$BUILD/chapters/$program"
[[ -f "$source" ]] || { echo "capture-run: no $source" >&2; exit 1; }
[[ -x "$binary" ]] || { echo "capture-run: $binary is not built (cmake --build $BUILD --target $program)" >&2; exit 1; }
out="$chapter/captured"
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

rel() { echo "${1#"$HERE"/}"; }
sources=("$source")
while read -r header; do  # the chapter's own headers the program includes ("common.hpp")
  [[ -f "$chapter/$header" ]] && sources+=("$chapter/$header")
done < <(sed -n 's/^#include "\([^"]*\)"/\1/p' "$source")

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
start=$(date +%s)
(cd "$work" && "$binary" "$@") >"$work/.stdout" 2>&1 || { cat "$work/.stdout" >&2; echo "capture-run: $program failed" >&2; exit 1; }
seconds=$(( $(date +%s) - start ))
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
cpu=$(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1)
mem=$(awk '/MemTotal/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo)
{
  echo "# captured: $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo "# machine: ${cpu:-unknown CPU}, $(nproc) cores, $mem, $(uname -sr); load average $load_before before the run, $load_after after (a shared machine: timings are noisy)"
  echo "# command: ./build/chapters/$program${*:+ $*}"
  echo "# commit: $(git -C "$HERE" rev-parse --short HEAD)$(git -C "$HERE" diff --quiet HEAD -- "${sources[@]}" || echo ' (with uncommitted changes to the program)')"
  echo "# seconds: $seconds"
  for s in "${sources[@]}"; do echo "# source-sha256: $(rel "$s")=$(sha256sum "$s" | cut -d' ' -f1)"; done
  echo "# recapture: bash scripts/capture-run.sh $program${*:+ $*}"
  cat "$work/.stdout"
} >"$out/$program.txt"
for f in "$work"/"$program"_* "$work"/"$program".*; do
  [[ -f "$f" && "$f" != *.txt ]] && cp "$f" "$out/"
done
echo "capture-run: $(rel "$out/$program.txt") (${seconds} s); logs: $(cd "$out" && ls "$program"_* 2>/dev/null | tr '\n' ' ')"
