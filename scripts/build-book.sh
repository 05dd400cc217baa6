#!/usr/bin/env bash
# Builds the book: runs the chapter programs (capturing their output), stages the pages, runs Doxygen
# and Sphinx with -W (warnings are errors) into $BUILD/book/html.
#
#   bash scripts/build-book.sh [BUILD] [--fresh]        (or: make book)
#
#   --fresh   re-run every chapter program even if its captured output is newer than the program
#
# Layout under $BUILD/book/:
#   outputs/   <program>.txt captured by scripts/run-chapters.sh (+ pictures the programs wrote)
#   src/       Sphinx's source folder, all symlinks: index.md, api.md, chapters/NN-name -> chapters/NN-name,
#              outputs -> ../outputs.  A chapter page includes /outputs/<file> for pictures.
#   doxygen/   Doxygen XML (made by book/conf.py), read by Breathe for the API reference
#   html/      the book
set -euo pipefail
HERE=$(cd "$(dirname "$0")/.." && pwd)
BUILD=build
FRESH=0
for arg in "$@"; do
  case "$arg" in
    --fresh) FRESH=1 ;;
    -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
    -*) echo "build-book: unknown option $arg" >&2; exit 2 ;;
    *) BUILD="$arg" ;;
  esac
done
[[ "$BUILD" = /* ]] || BUILD="$HERE/$BUILD"
[[ -d "$BUILD" ]] || { echo "build-book: no build folder $BUILD (run: make build)" >&2; exit 1; }
BOOK="$BUILD/book"
PY=/usr/bin/python3   # Debian's Python: sphinx, breathe, myst_parser, furo

echo "== book: running the chapter programs (outputs -> $BOOK/outputs)"
stale=(--stale)
[[ $FRESH -eq 1 ]] && stale=()
bash "$HERE/scripts/run-chapters.sh" "$BUILD" --quiet "${stale[@]}"

echo "== book: staging pages in $BOOK/src"
rm -rf "$BOOK/src"
mkdir -p "$BOOK/src/chapters"
ln -s "$HERE/book/index.md" "$BOOK/src/index.md"
ln -s "$HERE/book/api.md" "$BOOK/src/api.md"
ln -s ../outputs "$BOOK/src/outputs"
for dir in "$HERE"/chapters/[0-9][0-9]-*/; do
  dir=${dir%/}
  [[ -f "$dir/README.md" ]] && ln -s "$dir" "$BOOK/src/chapters/$(basename "$dir")"
done

echo "== book: doxygen + sphinx-build -W"
# -E: a fresh environment every time (Doxygen's XML changes are invisible to Sphinx's change tracking).
KINDLING_BUILD_DIR="$BUILD" "$PY" -m sphinx -W --keep-going -E -q -b html -c "$HERE/book" \
  -d "$BOOK/doctrees" "$BOOK/src" "$BOOK/html"
echo "== book: $BOOK/html/index.html"
