#!/usr/bin/env bash
# Installs every Debian package Kindling needs (Debian 12 "bookworm").
#
#   bash scripts/install-deps.sh        (or: make deps)
#
# Idempotent and fast: it asks dpkg which packages are already installed and, when nothing is
# missing, returns without touching apt (no `apt-get update`). Uses sudo when not run as root.
set -euo pipefail

PACKAGES=(
  # compiler and build tools (clang too: learners on macOS use it; its libFuzzer and sanitizer
  # runtimes, libclang-rt-14-dev, build `make fuzz` and CI's `make ci-extra`)
  g++ cmake ninja-build make ccache git pkg-config ca-certificates clang libclang-rt-14-dev
  # the library's dependencies: xtensor + BLAS, JSON, CLI flags, formatting, gzip, and images
  # (libpng and libjpeg-turbo: hardened decoders for untrusted files)
  libxtensor-dev libxsimd-dev libxtensor-blas-dev libopenblas-dev
  # oneDNN: the fast float32 GEMM for the layers' shapes (lib/src/tensor/gemm.cpp)
  libdnnl-dev
  nlohmann-json3-dev libcli11-dev libfmt-dev zlib1g-dev libpng-dev libjpeg62-turbo-dev
  # chapter 8's kernel emulator switches between GPU threads with Boost.Context (no system call)
  libboost-context-dev
  # chapter 11's processes talk through MPI (OpenMPI: mpirun and the library)
  openmpi-bin libopenmpi-dev
  # chapter 12 trains a GPT on a text corpus: the quotations of the fortunes package (BSD licence)
  fortunes
  # tests: Catch2 v2, and real PyTorch 1.13 as the oracle (+ LibTorch for the benchmark)
  catch2 python3 python3-numpy python3-torch python3-torchvision libtorch-dev
  # the benchmark's peers at their best: tcmalloc (and jemalloc, to compare) preloaded (bench/bench_util.hpp)
  libtcmalloc-minimal4 libjemalloc2
  # the book: Doxygen -> Breathe -> Sphinx (MyST Markdown, furo theme), Graphviz pictures,
  # PyTorch | Kindling tabs, copy buttons, KaTeX for math, matplotlib for the plots
  doxygen python3-sphinx python3-breathe python3-myst-parser furo graphviz
  python3-sphinx-inline-tabs python3-sphinx-copybutton libjs-katex python3-matplotlib
  # data: Fashion-MNIST in /usr/share/datasets/fashion-mnist; chapter 9's photographs, Tux Paint's
  # stamps (GPL-2: cut-out photos of animals, fruit, plants... in /usr/share/tuxpaint/stamps)
  dataset-fashion-mnist tuxpaint-stamps-default
  # chapter 10's ONNX import/export: ONNX's own protobuf classes, its checker (python3-onnx) and
  # its conformance node tests (libonnx-testdata, /usr/share/libonnx-testdata/data)
  libonnx-dev libprotobuf-dev protobuf-compiler python3-onnx libonnx-testdata
  # the grader runs every graded test in a bubblewrap sandbox (scripts/grade_sandbox.py)
  bubblewrap
)

# Which packages are missing? One dpkg-query call; an installed package reports "<want> ok installed"
# ("install ok installed", or "hold ok installed" for a held one).
missing=()
declare -A status=()
while IFS=$'\t' read -r pkg state; do
  status[$pkg]=$state
done < <(dpkg-query -W -f='${Package}\t${Status}\n' "${PACKAGES[@]}" 2>/dev/null || true)
for pkg in "${PACKAGES[@]}"; do
  [[ "${status[$pkg]:-}" == *" ok installed" ]] || missing+=("$pkg")
done

if [[ ${#missing[@]} -eq 0 ]]; then
  echo "install-deps: all ${#PACKAGES[@]} packages are installed."
  exit 0
fi

if [[ ! -r /etc/debian_version ]] || ! command -v apt-get >/dev/null; then
  echo "install-deps: this script needs Debian 12 (apt-get). Missing: ${missing[*]}" >&2
  exit 1
fi

SUDO=()
if [[ $(id -u) -ne 0 ]]; then
  if ! command -v sudo >/dev/null; then
    echo "install-deps: not root and no sudo; run as root: apt-get install ${missing[*]}" >&2
    exit 1
  fi
  SUDO=(sudo)
fi

echo "install-deps: installing ${#missing[@]} package(s): ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
"${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q
"${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
echo "install-deps: done."
