// The kernel emulator: correct kernels run and give the right values; planted bugs (an index past
// a buffer, a barrier some threads skip, a race on shared memory, ...) are each caught and named.
#include <catch2/catch.hpp>

#include <numeric>
#include <string>
#include <vector>

#include "kindling/cuda/kernel.hpp"

namespace kc = kindling::cuda;
using kc::emulated::SharedArray;
using kc::emulated::Span;
using Catch::Matchers::Contains;

namespace {

// ---- correct kernels ------------------------------------------------------------------------
__global__ void add_kernel(Span<const float> a, Span<const float> b, Span<float> out,
                           int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = a[i] + b[i];
}

// One block sums 256 numbers: a tree in shared memory, a barrier between the levels.
__global__ void block_sum(Span<const float> x, Span<float> out) {
  __shared__ SharedArray<float, 256> buf;
  int t = threadIdx.x;
  buf[t] = x[blockIdx.x * 256 + t];
  __syncthreads();
  for (int s = 128; s > 0; s /= 2) {
    if (t < s) buf[t] += buf[t + s];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = buf[0];
}

// A warp sums its 32 values with shuffles, then lane 0 adds the warp's sum to the total.
__global__ void warp_sum(Span<const float> x, Span<float> total, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = i < n ? x[i] : 0.0f;
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
  if (threadIdx.x % 32 == 0) atomicAdd(&total[0], v);
}

__global__ void xor_broadcast(Span<int> out) {
  int lane = threadIdx.x;
  int v = lane;
  for (int m = 16; m > 0; m /= 2) v += __shfl_xor_sync(0xffffffffu, v, m);  // all lanes: sum
  int first = __shfl_sync(0xffffffffu, lane * 10, 3);                      // lane 3's value
  int up = __shfl_up_sync(0xffffffffu, lane, 1);                           // lane - 1 (lane 0: 0)
  out[lane] = v * 10000 + first * 100 + up;
}

// ---- planted bugs ---------------------------------------------------------------------------
__global__ void add_no_guard(Span<const float> a, Span<float> out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = a[i] * 2.0f;  // no `if (i < n)`: the last block runs past the end
}

__global__ void shared_off_by_one(Span<float> out) {
  __shared__ SharedArray<float, 8, 8> tile;
  tile(threadIdx.y, threadIdx.x) = 1.0f;
  __syncthreads();
  out[threadIdx.y * 8 + threadIdx.x] = tile(threadIdx.y, threadIdx.x + 1);  // x = 7 reads (y, 8)
}

__global__ void early_return(Span<float> out, int n) {
  __shared__ SharedArray<float, 64> buf;
  int t = threadIdx.x;
  if (t >= n) return;  // these threads never reach the barrier below
  buf[t] = 1.0f;
  __syncthreads();
  out[t] = buf[(t + 1) % n];
}

__global__ void barrier_in_branch(Span<float> out) {
  if (threadIdx.x < 16) {
    __syncthreads();
  } else {
    __syncthreads();
  }
  out[threadIdx.x] = 1.0f;
}

constexpr int kRacyLine = __LINE__ + 7;  // the line of sum_missing_barrier's racy += below
__global__ void sum_missing_barrier(Span<const float> x, Span<float> out) {
  __shared__ SharedArray<float, 64> buf;
  int t = threadIdx.x;
  buf[t] = x[t];
  __syncthreads();
  for (int s = 32; s > 0; s /= 2) {
    if (t < s) buf[t] += buf[t + s];  // no barrier: level s reads what level 2s is still writing
  }
  static_assert(__LINE__ == kRacyLine + 2);
  if (t == 0) out[0] = buf[0];
}

constexpr int kOverwriteLine = __LINE__ + 7;  // write_after_read's racy write below
__global__ void write_after_read(Span<float> out) {
  __shared__ SharedArray<float, 32> buf;
  int t = threadIdx.x;
  buf[t] = static_cast<float>(t);
  __syncthreads();
  float right = buf[(t + 1) % 32];
  buf[t] = right;  // thread t-1 has read buf[t] in this epoch: it may see the old or the new value
  static_assert(__LINE__ == kOverwriteLine + 1);
  out[t] = buf[t];
}

__global__ void uninitialised_read(Span<float> out) {
  __shared__ SharedArray<float, 64> buf;
  if (threadIdx.x < 32) buf[threadIdx.x] = 1.0f;
  __syncthreads();
  out[threadIdx.x] = buf[threadIdx.x];  // 32..63 were never written
}

__global__ void shuffle_after_exit(Span<float> out, int n) {
  int t = threadIdx.x;
  if (t >= n) return;
  float v = __shfl_down_sync(0xffffffffu, 1.0f, 1);  // the full mask names lanes that left
  out[t] = v;
}

template <class Fn>
std::string error_of(Fn&& fn) {
  try {
    fn();
  } catch (const kc::KernelError& e) {
    return e.what();
  }
  FAIL("the emulator did not report the bug");
  return {};
}

}  // namespace

TEST_CASE("emulator: a correct elementwise kernel matches the CPU, with a partial last block") {
  const int n = 1000;
  std::vector<float> a(n), b(n), out(n, -1.0f);
  std::iota(a.begin(), a.end(), 0.0f);
  for (int i = 0; i < n; ++i) b[i] = 0.5f * static_cast<float>(i);
  KD_LAUNCH(add_kernel, dim3((n + 255) / 256), dim3(256), Span<const float>(a.data(), n),
            Span<const float>(b.data(), n), Span<float>(out.data(), n), n);
  for (int i = 0; i < n; ++i) REQUIRE(out[i] == a[i] + b[i]);
}

TEST_CASE("emulator: barriers and shared memory work: a block reduction over 4 blocks") {
  std::vector<float> x(4 * 256), out(4);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i % 7);
  KD_LAUNCH(block_sum, dim3(4), dim3(256), Span<const float>(x.data(), 1024),
            Span<float>(out.data(), 4));
  for (int blk = 0; blk < 4; ++blk) {
    float ref = 0;
    for (int i = 0; i < 256; ++i) ref += x[blk * 256 + i];
    REQUIRE(out[blk] == ref);  // integers: exact in any order
  }
}

TEST_CASE("emulator: warp shuffles and atomicAdd sum a vector") {
  const int n = 300;
  std::vector<float> x(n, 1.0f), total(1, 0.0f);
  for (int i = 0; i < n; ++i) x[i] = static_cast<float>(i);
  KD_LAUNCH(warp_sum, dim3(3), dim3(128), Span<const float>(x.data(), n),
            Span<float>(total.data(), 1), n);
  REQUIRE(total[0] == static_cast<float>(n * (n - 1) / 2));
}

TEST_CASE("emulator: shfl_xor, shfl and shfl_up follow CUDA's lane rules") {
  std::vector<int> out(32);
  KD_LAUNCH(xor_broadcast, dim3(1), dim3(32), Span<int>(out.data(), 32));
  for (int lane = 0; lane < 32; ++lane)
    REQUIRE(out[lane] == 496 * 10000 + 30 * 100 + (lane == 0 ? 0 : lane - 1));
}

TEST_CASE("emulator: an index past a global buffer is reported with its thread and block") {
  const int n = 1000;
  std::vector<float> a(n), out(n);
  auto msg = error_of([&] {
    KD_LAUNCH(add_no_guard, dim3(4), dim3(256), Span<const float>(a.data(), n, "a"),
              Span<float>(out.data(), n, "out"));
  });
  CHECK_THAT(msg, Contains("kernel add_no_guard<<<(4, 1, 1), (256, 1, 1)>>>"));
  CHECK_THAT(msg, Contains("reads a[1000], outside its 1000 elements"));
  CHECK_THAT(msg, Contains("thread (232, 0, 0) of block (3, 0, 0)"));
  // The emulator stopped the launch and cleaned up: the next one runs.
  std::vector<float> b(n), sum(n);
  KD_LAUNCH(add_kernel, dim3(4), dim3(256), Span<const float>(a.data(), n),
            Span<const float>(b.data(), n), Span<float>(sum.data(), n), n);
}

TEST_CASE("emulator: an index past a shared array is reported") {
  std::vector<float> out(64);
  auto msg = error_of([&] {
    KD_LAUNCH(shared_off_by_one, dim3(1), dim3(8, 8), Span<float>(out.data(), 64));
  });
  CHECK_THAT(msg, Contains("index (0, 8) is outside __shared__ float[8][8]"));
  CHECK_THAT(msg, Contains("thread (7, 0, 0) of block (0, 0, 0)"));
}

TEST_CASE("emulator: a barrier that some threads of the block never reach is reported") {
  std::vector<float> out(64);
  auto msg = error_of([&] {
    KD_LAUNCH(early_return, dim3(1), dim3(64), Span<float>(out.data(), 64), 40);
  });
  CHECK_THAT(msg, Contains("is reached by 40 of 64 threads"));
  CHECK_THAT(msg, Contains("thread (40, 0, 0) of block (0, 0, 0) exited without reaching it"));
  CHECK_THAT(msg, Contains("test_emulator.cpp:"));
  // With every thread in range the same kernel is correct.
  KD_LAUNCH(early_return, dim3(1), dim3(64), Span<float>(out.data(), 64), 64);
  REQUIRE(out[0] == 1.0f);
}

TEST_CASE("emulator: threads waiting at two different barriers are reported") {
  std::vector<float> out(32);
  auto msg = error_of([&] {
    KD_LAUNCH(barrier_in_branch, dim3(1), dim3(32), Span<float>(out.data(), 32));
  });
  CHECK_THAT(msg, Contains("threads wait at two different barriers"));
}

TEST_CASE("emulator: a shared-memory race between barriers is reported (read after write)") {
  std::vector<float> x(64, 1.0f), out(1);
  auto msg = error_of([&] {
    KD_LAUNCH(sum_missing_barrier, dim3(1), dim3(64), Span<const float>(x.data(), 64),
              Span<float>(out.data(), 1));
  });
  CHECK_THAT(msg, Contains("race on element ("));
  // The report names the line that touched the array (two tiles of one shape are told apart by it).
  CHECK_THAT(msg, Contains("of __shared__ float[64] at test_emulator.cpp:" + std::to_string(kRacyLine) + ": "));
  CHECK_THAT(msg, Contains("since the last __syncthreads()"));
}

TEST_CASE("emulator: a shared-memory race between barriers is reported (write after read)") {
  std::vector<float> out(32);
  auto msg = error_of([&] {
    KD_LAUNCH(write_after_read, dim3(1), dim3(32), Span<float>(out.data(), 32));
  });
  CHECK_THAT(msg, Contains("race on element ("));
  CHECK_THAT(msg, Contains("it overwrites what thread ("));
  CHECK_THAT(msg, Contains(" at test_emulator.cpp:" + std::to_string(kOverwriteLine) + ": "));
}

TEST_CASE("emulator: reading shared memory no thread wrote is reported") {
  std::vector<float> out(64);
  auto msg = error_of([&] {
    KD_LAUNCH(uninitialised_read, dim3(1), dim3(64), Span<float>(out.data(), 64));
  });
  CHECK_THAT(msg, Contains("reads element (32) of __shared__ float[64] at test_emulator.cpp:"));
  CHECK_THAT(msg, Contains(", which no thread of this block has written"));
}

TEST_CASE("emulator: a shuffle whose mask names lanes that exited is reported") {
  std::vector<float> out(32);
  auto msg = error_of([&] {
    KD_LAUNCH(shuffle_after_exit, dim3(1), dim3(32), Span<float>(out.data(), 32), 20);
  });
  CHECK_THAT(msg, Contains("__shfl_down_sync at test_emulator.cpp:"));
  CHECK_THAT(msg, Contains("lane 20 (thread (20, 0, 0) of block (0, 0, 0)) exited"));
}

TEST_CASE("emulator: a bad launch shape and threadIdx outside a kernel are refused") {
  std::vector<float> out(4);
  REQUIRE_THROWS_WITH(KD_LAUNCH(barrier_in_branch, dim3(1), dim3(2048),
                                Span<float>(out.data(), 4)),
                      Contains("a block holds at most 1024 threads, this one 2048"));
  REQUIRE_THROWS_WITH(KD_LAUNCH(barrier_in_branch, dim3(0), dim3(32),
                                Span<float>(out.data(), 4)),
                      Contains("at least one block"));
  REQUIRE_THROWS_AS(threadIdx.x, kindling::Error);
  Span<float> s(out.data(), 4, "out");
  REQUIRE_THROWS_WITH(s[4], Contains("out[4], outside its 4 elements"));
}

TEST_CASE("emulator: the launch record counts threads, barriers, shared memory and global accesses") {
  // The block reduction over 4 blocks of 256: 9 barriers per thread, 1 KiB of shared memory.
  std::vector<float> x(1024, 1.0f), out(4, 0.0f);
  kc::emu::clear_launch_log();
  KD_LAUNCH(block_sum, dim3(4), dim3(256), Span<const float>(x.data(), 1024, "x"),
            Span<float>(out.data(), 4, "out"));
  REQUIRE(kc::emu::launch_log().size() == 1);
  const kc::emu::LaunchRecord r = kc::emu::launch_log().back();
  CHECK(r.kernel == "block_sum");
  CHECK(r.grid.x == 4);
  CHECK(r.block.x == 256);
  CHECK_FALSE(r.failed);
  CHECK(r.threads == 1024);
  CHECK(r.barriers == 9 * 1024);
  CHECK(r.shuffles == 0);
  CHECK(r.shared_bytes == 256 * sizeof(float));
  CHECK(r.global_reads == 1024);   // one element of x per thread
  CHECK(r.global_accesses == 4);   // one write per block
  // A failed launch is recorded too, and the next launch starts its counts from zero.
  std::vector<float> a(6, 1.0f), c(12);
  CHECK_THROWS_AS(KD_LAUNCH(add_kernel, dim3(1), dim3(12), Span<const float>(a.data(), 6, "a"),
                            Span<const float>(a.data(), 6, "b"), Span<float>(c.data(), 12, "out"), 12),
                  kc::KernelError);
  REQUIRE(kc::emu::launch_log().size() == 2);
  CHECK(kc::emu::launch_log().back().failed);
  CHECK(kc::emu::launch_log().back().global_reads < 1024);
  kc::emu::clear_launch_log();
  CHECK(kc::emu::launch_log().empty());
}

TEST_CASE("emulator: a thread runs without a switch until it reaches a barrier or a shuffle") {
  // Switches are the emulator's cost: it hands the CPU to a thread once to start it and once after
  // each wait. A kernel without barriers or shuffles runs each thread from start to end in one go.
  kc::emu::clear_launch_log();
  std::vector<float> a(1000, 1.0f), b(1000, 2.0f), c(1000);
  KD_LAUNCH(add_kernel, dim3(4), dim3(256), Span<const float>(a.data(), 1000, "a"),
            Span<const float>(b.data(), 1000, "b"), Span<float>(c.data(), 1000, "out"), 1000);
  CHECK(kc::emu::launch_log().back().resumes == 1024);
  // Each of the 9 barriers of the block reduction: every thread waits once.
  std::vector<float> x(1024, 1.0f), out(4);
  KD_LAUNCH(block_sum, dim3(4), dim3(256), Span<const float>(x.data(), 1024, "x"),
            Span<float>(out.data(), 4, "out"));
  CHECK(kc::emu::launch_log().back().resumes == 1024 * (1 + 9));
  // Each of the 5 shuffles of a warp sum: 31 lanes wait, the last to arrive delivers and goes on.
  std::vector<float> total(1, 0.0f);
  KD_LAUNCH(warp_sum, dim3(1), dim3(64), Span<const float>(x.data(), 64, "x"),
            Span<float>(total.data(), 1, "total"), 64);
  CHECK(total[0] == 64.0f);
  CHECK(kc::emu::launch_log().back().shuffles == 64 * 5);
  CHECK(kc::emu::launch_log().back().resumes == 64 + 2 * 5 * 31);
  kc::emu::clear_launch_log();
}
