#!/usr/bin/env bash
# Builds the book: runs the chapter programs and the book's Python files (capturing their output),
# stages the pages, runs Doxygen and Sphinx with -W (warnings are errors) into $BUILD/book/html, and
# the same book as one page into $BUILD/book/singlehtml.
#
#   bash scripts/build-book.sh [BUILD] [--fresh] [--no-single]      (or: make book)
#
#   --fresh       re-run every program and Python file, and rebuild every page
#   --no-single   skip the single-page HTML
#
# The chapter programs must be built (make book builds exactly those: target kindling_book_programs).
# Everything is cached: a program runs again only when its binary, source or arguments changed, a
# Python file when it or its inputs changed (hashes in $BUILD/book/outputs/.keys), and Sphinx re-reads
# only the pages whose sources, snippets or captured outputs changed. A prose-only edit rebuilds in
# seconds; after a failed Sphinx run the next one starts from scratch, so no warning is ever lost.
#
# Layout under $BUILD/book/:
#   outputs/     <program>.txt captured by scripts/run-chapters.sh, <twin>.py.txt and figures by
#                scripts/book-python.py, pictures the programs wrote
#   src/         Sphinx's source folder: symlinks (index.md, chapters/NN-name, lib, book, outputs) and
#                the pages book/ext/kindling_book.py generates (api/ per layer, sources/ per file)
#   doxygen/     Doxygen XML (made by book/conf.py, replaced only when it changed), read by Breathe
#   html/        the book;   singlehtml/   the whole book as one page
set -euo pipefail
HERE=$(cd "$(dirname "$0")/.." && pwd)
BUILD=build
FRESH=0
SINGLE=1
for arg in "$@"; do
  case "$arg" in
    --fresh) FRESH=1 ;;
    --no-single) SINGLE=0 ;;
    -h|--help) sed -n '2,25p' "$0"; exit 0 ;;
    -*) echo "build-book: unknown option $arg" >&2; exit 2 ;;
    *) BUILD="$arg" ;;
  esac
done
[[ "$BUILD" = /* ]] || BUILD="$HERE/$BUILD"
[[ -d "$BUILD" ]] || { echo "build-book: no build folder $BUILD (run: make build)" >&2; exit 1; }
BOOK="$BUILD/book"
PY=/usr/bin/python3   # Debian's Python: torch, matplotlib, sphinx, breathe, myst_parser, furo
t0=${EPOCHREALTIME/./}
elapsed() { local t=$(( (${EPOCHREALTIME/./} - t0) / 100000 )); echo "$((t / 10)).$((t % 10)) s"; }

echo "== book: running the chapter programs (outputs -> $BOOK/outputs)"
stale=(--stale)
[[ $FRESH -eq 1 ]] && stale=()
bash "$HERE/scripts/run-chapters.sh" "$BUILD" --quiet "${stale[@]}"

echo "== book: PyTorch twins and figures ($(elapsed))"
fresh=()
[[ $FRESH -eq 1 ]] && fresh=(--fresh)
"$PY" "$HERE/scripts/book-python.py" "$BUILD" "${fresh[@]}"

echo "== book: staging pages in $BOOK/src ($(elapsed))"
mkdir -p "$BOOK/src/chapters"
link() {  # link TARGET NAME: (re)make the symlink only when it is missing or points elsewhere
  [[ "$(readlink "$2" 2>/dev/null)" == "$1" ]] || { rm -rf "$2"; ln -s "$1" "$2"; }
}
link "$HERE/book/index.md" "$BOOK/src/index.md"
link "$HERE/lib" "$BOOK/src/lib"
link "$HERE/book" "$BOOK/src/book"
link ../outputs "$BOOK/src/outputs"
rm -f "$BOOK/src/api.md"
for dir in "$HERE"/chapters/[0-9][0-9]-*/; do
  dir=${dir%/}
  [[ -f "$dir/chapter.md" ]] && link "$dir" "$BOOK/src/chapters/$(basename "$dir")"
done
for staged in "$BOOK"/src/chapters/*; do   # a chapter folder that went away
  [[ -e "$staged/chapter.md" ]] || rm -f "$staged"
done

# A fresh environment after a failed run (its warnings would otherwise not be repeated) or on --fresh.
full=()
[[ $FRESH -eq 1 || ! -f "$BOOK/.sphinx-ok" ]] && full=(-E)
rm -f "$BOOK/.sphinx-ok"
sphinx() {  # sphinx BUILDER OUT
  KINDLING_BUILD_DIR="$BUILD" "$PY" -m sphinx -W --keep-going "${full[@]}" -q -b "$1" -c "$HERE/book" \
    -d "$BOOK/doctrees" -w "$BOOK/warnings-$1.txt" "$BOOK/src" "$2"
}
echo "== book: doxygen + sphinx-build -W${full[*]:+ (from scratch)} ($(elapsed))"
sphinx html "$BOOK/html"
full=()  # the single page reuses the environment the html build just made
if [[ $SINGLE -eq 1 ]]; then
  echo "== book: the whole book as one page ($(elapsed))"
  sphinx singlehtml "$BOOK/singlehtml"
fi
touch "$BOOK/.sphinx-ok"
single_page=""
[[ $SINGLE -eq 1 ]] && single_page=" and $BOOK/singlehtml/index.html"
echo "== book: $BOOK/html/index.html$single_page ($(elapsed))"
