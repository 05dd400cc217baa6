#!/usr/bin/env bash
# Checks scripts/install-deps.sh on a bare Debian 12: debootstrap a minimal bookworm root, run the
# script inside it (twice: the second run must be a no-op), then check that the tools work.
# Slow (several minutes, ~2 GB download) and needs root + debootstrap, so it is not part of `make test`.
#
#   sudo bash scripts/test-install-deps-bare.sh [ROOT_DIR] [--build]     (default ROOT_DIR /tmp/deb12)
#
#   --build   also copy the source tree into the root and, inside it, configure, build everything
#             (tests off), run the chapter programs and build the book — proof that the package
#             list is complete for `make run`. SRC=dir picks the tree to copy (default: this repo).
# Set KEEP=1 to reuse an existing ROOT_DIR (skips debootstrap when ROOT_DIR/bin/sh exists).
set -euo pipefail
ROOT=/tmp/deb12
BUILD_TOO=0
for arg in "$@"; do
  case "$arg" in
    --build) BUILD_TOO=1 ;;
    *) ROOT="$arg" ;;
  esac
done
SRC=${SRC:-$(cd "$(dirname "$0")/.." && pwd)}
MIRROR=${MIRROR:-http://deb.debian.org/debian}
HERE=$(cd "$(dirname "$0")" && pwd)

if [[ $(id -u) -ne 0 ]]; then echo "run as root (debootstrap + chroot)" >&2; exit 1; fi
command -v debootstrap >/dev/null || { echo "needs debootstrap (apt-get install debootstrap)" >&2; exit 1; }

cleanup() { umount "$ROOT/proc" 2>/dev/null || true; }
trap cleanup EXIT

start=$(date +%s)
if [[ -n "${KEEP:-}" && -x "$ROOT/bin/sh" ]]; then
  echo "== reusing $ROOT"
else
  rm -rf "$ROOT"
  echo "== debootstrap --variant=minbase bookworm $ROOT"
  debootstrap --variant=minbase bookworm "$ROOT" "$MIRROR" >"$ROOT.debootstrap.log" 2>&1 ||
    { tail -20 "$ROOT.debootstrap.log"; exit 1; }
fi
t_boot=$(date +%s)

cp /etc/resolv.conf "$ROOT/etc/resolv.conf"
mountpoint -q "$ROOT/proc" || mount -t proc proc "$ROOT/proc"
cp "$HERE/install-deps.sh" "$ROOT/root/install-deps.sh"

echo "== install-deps.sh (first run)"
chroot "$ROOT" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root bash /root/install-deps.sh
t_install=$(date +%s)

echo "== install-deps.sh (second run: must install nothing)"
out=$(chroot "$ROOT" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root bash /root/install-deps.sh)
echo "$out"
[[ "$out" == *"are installed"* ]] || { echo "FAIL: second run was not a no-op" >&2; exit 1; }

echo "== install-deps.sh after removing one package (must install exactly that one)"
chroot "$ROOT" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root DEBIAN_FRONTEND=noninteractive \
  apt-get remove -y -q ccache >/dev/null
out=$(chroot "$ROOT" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root bash /root/install-deps.sh)
echo "$out" | grep '^install-deps'
[[ "$out" == *"installing 1 package(s): ccache"* ]] || { echo "FAIL: did not reinstall ccache" >&2; exit 1; }

echo "== tools"
chroot "$ROOT" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root bash -euc '
  g++ --version | head -1
  cmake --version | head -1
  ninja --version
  doxygen --version
  /usr/bin/python3 -c "import torch, torchvision, numpy, sphinx, breathe, myst_parser, furo; print(\"torch\", torch.__version__, \"sphinx\", sphinx.__version__)"
  ls /usr/share/datasets/fashion-mnist
  test -f /usr/include/catch2/catch.hpp && echo "catch2 ok"
'
t_tools=$(date +%s)

if [[ $BUILD_TOO -eq 1 ]]; then
  echo "== copy $SRC into the root, then build, run the chapters and build the book inside it"
  rm -rf "$ROOT/root/kindling"
  mkdir -p "$ROOT/root/kindling"
  tar -C "$SRC" --exclude='./build*' --exclude='./.git' -cf - . | tar -C "$ROOT/root/kindling" -xf -
  chroot "$ROOT" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root bash -euc '
    cd /root/kindling
    cmake -S . -B build -G Ninja -DKINDLING_BUILD_TESTS=OFF >/dev/null
    cmake --build build -j "$(nproc)" | tail -1
    bash scripts/run-chapters.sh build --quiet
    bash scripts/build-book.sh build
    test -f build/book/html/chapters/00-getting-started/chapter.html && echo "book ok"
  '
fi
end=$(date +%s)
echo "== build step: $((end - t_tools)) s"
echo "== PASS: debootstrap $((t_boot - start)) s, install $((t_install - t_boot)) s, total $((end - start)) s"
