#!/usr/bin/env bash
# make handout DEST=dir [REFERENCE=01,02] — the student tree.
#
#   handout.sh DEST [CHAPTER...]     CHAPTER: 01 02 ... whose reference answers the instructor ships
#
# The repository's files minus what stays with the instructor: solutions/ (but the chapters asked for),
# the hidden tests, the grader's planted submissions (near-solutions), the red-team attacks
# (tests/grading/redteam/) and the benchmarks (hand-written fast code of the same pieces). exercises/
# holds freshly generated stubs — never the instructor's working copy — and tests/grading/stubs/ a
# pristine copy the grader falls back on when one of the learner's files does not compile. So the
# handout holds no implementation of any exercise piece but the learner's: calling "the library's
# version" from an exercise calls the learner's own code.
# Files come from git (tracked, plus new files git does not ignore). The result configures, builds, runs
# its chapter programs (up to the first piece not written yet) and grades (to 0) on its own.
# DEST is replaced if it is an earlier handout (it holds .kindling-handout), refused otherwise.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dest="${1:?usage: handout.sh DEST [CHAPTER...]}"
shift
reference=()
for c in "$@"; do
  [[ "$c" =~ ^(ch)?[0-9]{1,2}$ ]] || { echo "handout: REFERENCE: '$c' is not a chapter number" >&2; exit 2; }
  c="${c#ch}"
  reference+=("ch$(printf '%02d' "$((10#$c))")")
done
mkdir -p "$(dirname "$dest")"
dest="$(cd "$(dirname "$dest")" && pwd)/$(basename "$dest")"

case "$dest/" in
  "$root/") echo "handout: DEST must not be the repository itself" >&2; exit 2 ;;
esac
if [ -e "$dest" ]; then
  if [ -f "$dest/.kindling-handout" ]; then
    if [ "${KINDLING_HANDOUT_KEEP_BUILD:-0}" = 1 ]; then
      # The handout test remakes a handout over its own and keeps the build folder inside it (only the
      # pieces change). Never for a class: an old build/ may hold compiled reference answers.
      find "$dest" -mindepth 1 -maxdepth 1 ! -name build -exec rm -rf {} +
    else
      rm -rf "$dest"
    fi
  elif [ -n "$(ls -A "$dest")" ]; then
    echo "handout: $dest exists and is not an earlier handout; refusing to overwrite it" >&2
    exit 2
  fi
fi
for c in "${reference[@]}"; do
  [ -d "$root/solutions/$c" ] || { echo "handout: REFERENCE asks for $c, but solutions/$c does not exist" >&2; exit 2; }
done

if ! git -C "$root" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  echo "handout: $root is not a git checkout (the file list comes from git ls-files)" >&2
  exit 1
fi

# What stays with the instructor. exercises/ is written fresh below. The library's own unit and parity
# tests go too: they test the reference library (a handout's library is the learner's) and hold naive
# implementations of pieces as their oracles. (The graded tests' PyTorch twins use parity's input
# generators, tests/parity/oracle.py, which stays.)
exclude='^(solutions/|exercises/|tests/grading/hidden/|tests/tools/planted/|tests/tools/cheats/|tests/grading/redteam/|tests/tools/library_calls/|bench/|tests/(tensor|autograd|nn|data|train|amp|debug|cuda)/|tests/parity/)'
list="$(mktemp)"
trap 'rm -f "$list"' EXIT
git -C "$root" ls-files -z --cached --others --exclude-standard \
  | tr '\0' '\n' | { grep -Ev "$exclude" || true; } | while IFS= read -r f; do
      [ -f "$root/$f" ] && printf '%s\n' "$f"   # skip files deleted but still in the index
    done > "$list"
echo "tests/parity/oracle.py" >> "$list"
echo "tests/parity/cpu_grad_scaler.py" >> "$list"  # chapter 6's PyTorch twin imports it

mkdir -p "$dest"
(cd "$root" && tar -cf - --files-from="$list") | (cd "$dest" && tar -xf -)
/usr/bin/python3 "$root/scripts/make_exercises.py" --root "$root" --out "$dest/exercises"
/usr/bin/python3 "$root/scripts/make_exercises.py" --root "$root" --out "$dest/tests/grading/stubs"
for c in "${reference[@]}"; do
  mkdir -p "$dest/solutions"
  cp -r "$root/solutions/$c" "$dest/solutions/$c"
done
printf 'reference: %s\n' "${reference[*]:-none}" > "$dest/.kindling-handout"

# Belt and braces: nothing hidden may have slipped through.
leak=""
for d in "$dest"/solutions/*; do
  [ -e "$d" ] || continue
  case " ${reference[*]:-} " in *" $(basename "$d") "*) ;; *) leak="$d" ;; esac
done
if [ -n "$leak" ] || [ -e "$dest/tests/grading/hidden" ] || [ -e "$dest/tests/tools/planted" ] \
   || [ -e "$dest/tests/grading/redteam" ] \
   || grep -rlsF '[hidden]' "$dest/tests/grading" --include='*.cpp' >/dev/null \
   || grep -rlsE '// (BEGIN|END) SOLUTION' "$dest/exercises" "$dest/tests/grading/stubs" >/dev/null; then
  echo "handout: hidden material found in $dest ${leak:+($leak)}; aborting" >&2
  rm -rf "$dest"
  exit 1
fi
echo "handout: $(($(wc -l < "$list") + $(find "$dest/exercises" -type f | wc -l))) files in $dest" \
     "(reference for: ${reference[*]:-none}; no hidden tests)"
echo "  try: cd $dest && make run && make grade"
