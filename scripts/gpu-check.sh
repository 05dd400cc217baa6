#!/usr/bin/env bash
# Chapter 8 on a real GPU, in one go: builds Kindling with nvcc for this machine's GPU, runs the
# CUDA tests on the device (the ones that skip without a GPU included: every kernel, the chapter's
# exercises as compiled by nvcc and the float16/bfloat16 kernels against their emulated twins,
# pinned memory, streams and events), chapter 8's grading (on the emulator, in this CUDA build),
# chapter 6's float16 autocast loop on the device (chapters/08-cuda/amp_on_device.cpp, beside the CPU),
# SimpleNet's training steps/s on the GPU vs Kindling on the CPU (chapters/08-cuda/train_on_device.cpp),
# then the G1 benchmarks (matmul v1/v2/v3 vs cuBLAS at 4096^2, the elementwise kernel vs the copy
# bandwidth).
#
#   bash scripts/gpu-check.sh [BUILD_DIR]        (default build-gpu)
#
# Everything it prints goes to BUILD_DIR/gpu-check.txt too: paste the BENCH lines into the note.
# Exit status: non-zero when a test fails or there is no usable GPU.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build-gpu}
JOBS=${JOBS:-$(nproc)}
mkdir -p "$BUILD"
exec > >(tee "$BUILD/gpu-check.txt") 2>&1

echo "== gpu-check: $(date -u '+%Y-%m-%d %H:%M UTC') on $(hostname), commit $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
nvidia-smi --query-gpu=name,driver_version,memory.total,compute_cap --format=csv || {
  echo "gpu-check: nvidia-smi failed: no usable NVIDIA driver/GPU here"; exit 1; }

# Only what the check needs: the cuda layer's tests, the doctor and the benchmark program.
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DKINDLING_NATIVE=ON \
  -DCMAKE_CUDA_ARCHITECTURES=native >/dev/null
grep -q 'KINDLING_HAVE_CUDA 1' "$BUILD/lib/generated/kindling/version.hpp" || {
  echo "gpu-check: CMake did not enable CUDA (is nvcc in /usr/local/cuda/bin?)"; exit 1; }
cmake --build "$BUILD" -j "$JOBS" --target test_cuda ch00_doctor ch08_bench_kernels ch08_device \
  ch08_kernels ch08_train_on_device ch08_amp_on_device

echo "== doctor"
"$BUILD/chapters/ch00_doctor" || true

echo "== CUDA tests on the device (the emulated-device tests skip here: a real GPU is visible)"
(cd "$BUILD" && ctest -R '^cuda:' --output-on-failure --timeout 600) | tee "$BUILD/gpu-ctest.txt"
if grep -q 'on a GPU.*Skipped' "$BUILD/gpu-ctest.txt"; then
  echo "gpu-check: the device tests were skipped: the GPU is not usable from Kindling:"
  "$BUILD/tests/test_cuda" "device: on a GPU every kernel matches its emulated twin" || true
  "$BUILD/tests/test_cuda" "streams: on a GPU a copy from pinned memory is queued on its stream" || true
  exit 1
fi

echo "== chapter 8's exercises, reference answers, graded on the emulator in this CUDA build (goal: 100)"
cmake --build "$BUILD" -j "$JOBS" --target grade_ch08_solutions
/usr/bin/python3 scripts/grade.py --build "$BUILD" --tree solutions --chapter 08 --no-build --jobs "$JOBS" \
  --expect full --out "$BUILD/grade"

echo "== chapter 8's programs on the device"
"$BUILD/chapters/ch08_device"
"$BUILD/chapters/ch08_train_on_device"

echo "== chapter 6's mixed-precision loop on the GPU: float16 autocast + GradScaler, 300 steps, test accuracy"
"$BUILD/chapters/ch08_amp_on_device" --steps 300

echo "== SimpleNet training steps/s on the GPU vs Kindling on the CPU (batch 32, Adam)"
"$BUILD/chapters/ch08_train_on_device" --time 200

echo "== G1 benchmarks (ratio = cuBLAS or copy time / kernel time; goal: matmul_v3 >= 0.7)"
"$BUILD/chapters/ch08_bench_kernels"
echo "== gpu-check done: $BUILD/gpu-check.txt"
