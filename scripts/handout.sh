#!/usr/bin/env bash
# make handout DEST=dir — the student tree: the repository's files minus solutions/ and the hidden tests.
#
# Files come from git (tracked, plus new files git does not ignore), so build folders, caches and
# anything in .gitignore stay out. The result configures, builds, runs its chapter programs and grades
# (to 0) on its own: exercises/ holds the stubs, tests/grading/ the visible graded tests.
# DEST is replaced if it is an earlier handout (it holds .kindling-handout), refused otherwise.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dest="${1:?usage: handout.sh DEST}"
mkdir -p "$(dirname "$dest")"
dest="$(cd "$(dirname "$dest")" && pwd)/$(basename "$dest")"

case "$dest/" in
  "$root/") echo "handout: DEST must not be the repository itself" >&2; exit 2 ;;
esac
if [ -e "$dest" ]; then
  if [ -f "$dest/.kindling-handout" ]; then
    rm -rf "$dest"
  elif [ -n "$(ls -A "$dest")" ]; then
    echo "handout: $dest exists and is not an earlier handout; refusing to overwrite it" >&2
    exit 2
  fi
fi

# The exercise stubs must match the solutions before they are handed out.
/usr/bin/python3 "$root/scripts/make_exercises.py" --root "$root" --check >/dev/null || {
  echo "handout: exercises/ is out of sync with solutions/; run 'make exercises' first" >&2
  exit 1
}

if ! git -C "$root" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  echo "handout: $root is not a git checkout (the file list comes from git ls-files)" >&2
  exit 1
fi

# What stays with the instructor: the reference answers and the hidden tests.
exclude='^(solutions/|tests/grading/hidden/)'
list="$(mktemp)"
trap 'rm -f "$list"' EXIT
git -C "$root" ls-files -z --cached --others --exclude-standard \
  | tr '\0' '\n' | { grep -Ev "$exclude" || true; } | while IFS= read -r f; do
      [ -f "$root/$f" ] && printf '%s\n' "$f"   # skip files deleted but still in the index
    done > "$list"

mkdir -p "$dest"
(cd "$root" && tar -cf - --files-from="$list") | (cd "$dest" && tar -xf -)
touch "$dest/.kindling-handout"

# Belt and braces: nothing hidden may have slipped through.
if [ -e "$dest/solutions" ] || [ -e "$dest/tests/grading/hidden" ] \
   || grep -rlsF '[hidden]' "$dest/tests/grading" --include='*.cpp' >/dev/null; then
  echo "handout: hidden material found in $dest; aborting" >&2
  rm -rf "$dest"
  exit 1
fi
echo "handout: $(wc -l < "$list") files in $dest (no solutions/, no hidden tests)"
echo "  try: cd $dest && make run && make grade"
