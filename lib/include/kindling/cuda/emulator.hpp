#pragma once
/// @file
/// The kernel emulator: CUDA kernel source compiled by an ordinary C++ compiler and run on the CPU.
///
/// A kernel written for the chapter (`__global__`, `threadIdx`/`blockIdx`/`blockDim`/`gridDim`,
/// `__shared__`, `__syncthreads()`, the warp shuffles `__shfl_*_sync`, `atomicAdd`) includes
/// `kindling/cuda/kernel.hpp`. Under nvcc that header is CUDA itself; under g++ or clang it is this
/// file, and `KD_LAUNCH(kernel, grid, block, args...)` runs the grid here: the blocks one after
/// another, the threads of a block as cooperative fibers (one small stack each, switched with
/// Boost.Context), so that a barrier really waits for every thread of its block and shared memory
/// really is shared by them.
///
/// **It checks correctness, not speed.** A kernel runs here one thread at a time, far slower than on a GPU,
/// and its timings say nothing about the GPU's. What it gives instead are checks a GPU does not make:
/// - an index outside a global buffer (`Span`) or a shared array (`SharedArray`) is reported with
///   the index, the size, the thread and the block, instead of reading garbage or crashing later;
/// - a `__syncthreads()` that not every thread of the block reaches (an early `return`, a barrier
///   inside a branch), or threads waiting at two different barriers;
/// - a race on shared memory: two threads of a block touching the same element between two
///   barriers, at least one of them writing (per-element last writer / last reader, stamped with
///   the block's barrier epoch);
/// - a read of shared memory that no thread of the block wrote (it starts uninitialised on a GPU);
/// - a warp shuffle whose mask names a lane that exited or never arrives.
/// The first problem stops the launch: every thread is unwound and `KD_LAUNCH` throws a
/// `kindling::cuda::KernelError` naming the kernel, the launch shape and what went wrong.
///
/// Limits: one launch at a time per process (a mutex serialises them: `__shared__` arrays are
/// static variables here); warps are not run in lock-step, so warp-synchronous code that relies on
/// implicit lock-step without `__syncwarp()` is reported as a race, as it should be since Volta;
/// shuffles carry values of at most 8 bytes.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "kindling/tensor/error.hpp"

/// CUDA's three-component launch shape (grid and block sizes, thread and block indices).
struct dim3 {
  unsigned int x = 1, y = 1, z = 1;
  constexpr dim3(unsigned int x_ = 1, unsigned int y_ = 1, unsigned int z_ = 1)
      : x(x_), y(y_), z(z_) {}
};

namespace kindling::cuda {

/// A problem found by the emulator inside a kernel (out-of-bounds access, missed barrier, race, ...).
class KernelError : public Error {
 public:
  using Error::Error;
};

namespace emu {

/// Where a thread is: indices and sizes as the kernel sees them.
struct ThreadContext {
  dim3 thread_idx, block_idx, block_dim, grid_dim;
  int linear = 0;  ///< threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z)
};

/// Where in the kernel's source a barrier or a shuffle is: std::source_location's job, which clang 14
/// with libstdc++ 12 lacks. __builtin_FILE/LINE in a default argument give the caller's place.
struct Site {
  const char* file = "";
  unsigned line = 0;
  static constexpr Site here(const char* f = __builtin_FILE(), unsigned l = __builtin_LINE()) {
    return {f, l};
  }
};

/// What one launch did, as the emulator counted it. A GPU keeps no such record; the emulator's tests
/// and chapter 8's graders read it (a tiled matmul must have tiled, a tree reduction must have used
/// shared memory and barriers).
struct LaunchRecord {
  std::string kernel;                ///< the name KD_LAUNCH was given
  dim3 grid, block;
  bool failed = false;               ///< the launch stopped with a KernelError
  std::uint64_t threads = 0;         ///< threads started, over every block
  std::uint64_t barriers = 0;        ///< __syncthreads() calls, over every thread
  std::uint64_t shuffles = 0;        ///< warp shuffle calls, over every lane
  std::uint64_t resumes = 0;         ///< times the scheduler handed the CPU to a thread (a thread
                                     ///< that reaches no barrier or shuffle runs in one go: 1)
  std::size_t shared_bytes = 0;      ///< static shared memory of the block that used the most
  std::uint64_t global_reads = 0;    ///< elements read through a Span<const T>
  std::uint64_t global_accesses = 0; ///< elements reached through a Span<T> (writes, read-modify-writes)
};
/// The launches run on this host thread since clear_launch_log(), oldest first (the last 1024).
const std::vector<LaunchRecord>& launch_log();
void clear_launch_log();

/// Global-memory accesses counted by Span for the launch running on this host thread.
struct GlobalCounts {
  std::uint64_t reads = 0, accesses = 0;
};
inline thread_local GlobalCounts t_global_counts;

/// The thread running on this host thread (set by the scheduler at every switch; null between
/// them and outside a kernel), and the serial number of the block running (0 outside a kernel).
/// Inline state, so that `threadIdx` and a shared array's first-touch test cost a load, not a call:
/// a kernel reads them in its innermost loops.
inline thread_local const ThreadContext* t_current = nullptr;
inline thread_local std::uint64_t t_block_serial = 0;
/// The running block's barrier epoch (the race detector's clock; 0 outside a kernel).
inline thread_local std::uint32_t t_epoch = 0;
/// Throws: `what` (threadIdx, ...) was used outside a kernel.
[[noreturn]] void outside_kernel(const char* what);

/// The current thread's context; throws when called outside a kernel.
inline const ThreadContext& current() {
  if (t_current == nullptr) [[unlikely]]
    outside_kernel("threadIdx/blockIdx");
  return *t_current;
}
/// True while a kernel runs (on this host thread).
bool in_kernel();
/// Stops the current thread with a KernelError naming the kernel, the thread and the block.
[[noreturn]] void fail(const std::string& what);

/// Runs `body` once per thread of every block of the grid (the work of KD_LAUNCH).
void run(const char* kernel, dim3 grid, dim3 block, const std::function<void()>& body);

/// `__syncthreads()`: waits until every thread of the block reaches this barrier.
void syncthreads(Site where);

/// The shuffles: every lane of `mask` hands in `bits`, gets the bits of its source lane.
enum class ShuffleKind { Index, Up, Down, Xor };
std::uint64_t shuffle(unsigned mask, std::uint64_t bits, ShuffleKind kind, int arg, int width,
                      const char* name, Site where);

/// The race detector's record of one shared-memory element.
struct Shadow {
  std::uint64_t block = 0;         ///< which block (launch-wide serial) the record belongs to
  std::uint32_t write_epoch = 0;   ///< barrier epoch of the last write (0: never in this block)
  std::uint32_t read_epoch = 0;    ///< barrier epoch of the last read
  std::int32_t writer = -1;        ///< linear thread index of the last writer
  std::int32_t reader = -1;        ///< a thread that read it in read_epoch
  std::int32_t other_reader = -1;  ///< a second, different one (-1: none), so that any writer
                                   ///< finds a reader other than itself when there is one
};

/// What a shared array reports about itself in messages.
struct SharedInfo {
  const char* type;        ///< element type, e.g. "float"
  const std::size_t* dims; ///< its extents
  std::size_t rank;
  std::size_t bytes;
};

/// Called by SharedArray on the first touch in a block: resets its records, counts its bytes.
void shared_first_touch(const SharedInfo& info, std::uint64_t& stamp);
/// The serial number of the block now running (0 outside a kernel).
inline std::uint64_t block_serial() { return t_block_serial; }
/// Checks and records a read / a write of element `flat` of a shared array.
void shared_read(Shadow& s, const SharedInfo& info, std::size_t flat, Site where);
void shared_write(Shadow& s, const SharedInfo& info, std::size_t flat, Site where);

/// The race detector's fast path, inline because a kernel's inner loop lives on shared memory: true
/// when the access is fine *and* the record already says everything this access would add, so the
/// call to shared_read / shared_write would change nothing. A tiled matmul's reads are nearly all
/// this case (every thread of a row reads the same element; the record keeps two readers, and a
/// third changes nothing); everything else -- a first access in a block or an epoch, a race, a read
/// of an unwritten element, an access outside a kernel -- takes the full check.
inline bool read_already_recorded(const Shadow& s) {
  const ThreadContext* me = t_current;
  return me != nullptr && s.block == t_block_serial && s.read_epoch == t_epoch &&
         (s.write_epoch != t_epoch || s.writer == me->linear) &&
         (s.reader == me->linear || s.other_reader != -1);
}
inline bool write_already_recorded(const Shadow& s) {
  const ThreadContext* me = t_current;
  return me != nullptr && s.block == t_block_serial && s.write_epoch == t_epoch && s.writer == me->linear &&
         (s.read_epoch != t_epoch || (s.reader == me->linear && s.other_reader == -1));
}
/// Reports an index outside a shared array / a global buffer.
[[noreturn]] void shared_out_of_bounds(const SharedInfo& info, const std::int64_t* index,
                                       std::size_t rank);
[[noreturn]] void global_out_of_bounds(const char* name, std::int64_t index, std::int64_t size,
                                       bool is_const);

template <class T>
constexpr const char* type_name() {
  if constexpr (std::is_same_v<T, float>) return "float";
  else if constexpr (std::is_same_v<T, double>) return "double";
  else if constexpr (std::is_same_v<T, int>) return "int";
  else if constexpr (std::is_same_v<T, unsigned>) return "unsigned";
  else if constexpr (std::is_same_v<T, std::int64_t>) return "int64_t";
  else return "element";
}

/// One element of a shared array, as a kernel reads and writes it: every read and write goes
/// through the race detector. Convert it to a value (`float v = tile(i, j);`) rather than keeping
/// the reference (`auto v = ...` keeps the element, not its value).
template <class T>
class SharedRef {
 public:
  SharedRef(T* p, Shadow* s, const SharedInfo* info, std::size_t flat, Site where)
      : p_(p), s_(s), info_(info), flat_(flat), where_(where) {}
  operator T() const {  // NOLINT: a read, exactly where the kernel reads
    if (!read_already_recorded(*s_)) shared_read(*s_, *info_, flat_, where_);
    return *p_;
  }
  SharedRef& operator=(const T& v) {
    if (!write_already_recorded(*s_)) shared_write(*s_, *info_, flat_, where_);
    *p_ = v;
    return *this;
  }
  SharedRef& operator=(const SharedRef& other) { return *this = static_cast<T>(other); }
  SharedRef& operator+=(const T& v) { return *this = static_cast<T>(*this) + v; }
  SharedRef& operator-=(const T& v) { return *this = static_cast<T>(*this) - v; }
  SharedRef& operator*=(const T& v) { return *this = static_cast<T>(*this) * v; }
  SharedRef& operator/=(const T& v) { return *this = static_cast<T>(*this) / v; }

 private:
  T* p_;
  Shadow* s_;
  const SharedInfo* info_;
  std::size_t flat_;
  Site where_;  // the line of the kernel that indexed the array: a race report names it
};

/// The first index of a shared array's element, and the line of the kernel that used it (a default
/// argument of the conversion is evaluated where the kernel indexes, as __syncthreads()'s is).
struct SharedIndex {
  std::int64_t value;
  Site where;
  template <class I>
    requires std::is_integral_v<I>
  SharedIndex(I v, Site w = Site::here()) : value(static_cast<std::int64_t>(v)), where(w) {}  // NOLINT
};

}  // namespace emu

// The types a kernel indexes through live in the kernels' own namespace (`emulated` here, `gpu`
// under nvcc), so the two builds of one source never define the same class twice in a program.
namespace emulated {

/// A global-memory buffer as a kernel sees it: a pointer and a length. Every index is checked
/// here (on a GPU, `Span` is a bare pointer and a wrong index reads someone else's memory).
template <class T>
class Span {
 public:
  Span() = default;
  Span(T* data, std::int64_t size, const char* name = "buffer") : data_(data), size_(size), name_(name) {}
  /// A Span<T> converts to a Span<const T> (a kernel's inputs).
  template <class U>
    requires std::is_same_v<const U, T>
  Span(const Span<U>& other) : data_(other.data()), size_(other.size()), name_(other.name()) {}

  T& operator[](std::int64_t i) const {
    if (i < 0 || i >= size_) emu::global_out_of_bounds(name_, i, size_, std::is_const_v<T>);
    if constexpr (std::is_const_v<T>) ++emu::t_global_counts.reads;
    else ++emu::t_global_counts.accesses;
    return data_[i];
  }
  T* data() const { return data_; }
  std::int64_t size() const { return size_; }
  const char* name() const { return name_; }

 private:
  T* data_ = nullptr;
  std::int64_t size_ = 0;
  const char* name_ = "buffer";
};

/// A `__shared__` array of `Dims...` elements: `__shared__ SharedArray<float, 16, 16> tile;`,
/// indexed `tile(row, col)` (or `buf[i]` when it has one dimension). Every index is checked and
/// every access goes through the race detector. Always declare it `__shared__` (a static variable
/// here): without it each thread has its own copy, as on a GPU, and its checks start from garbage.
template <class T, std::size_t... Dims>
class SharedArray {
  static_assert(sizeof...(Dims) >= 1, "SharedArray needs at least one extent");

 public:
  static constexpr std::size_t kSize = (Dims * ...);
  static constexpr std::size_t rank = sizeof...(Dims);

  template <class... I>
    requires(sizeof...(I) + 1 == sizeof...(Dims) && (std::is_integral_v<I> && ...))
  emu::SharedRef<T> operator()(emu::SharedIndex first, I... index) {
    const std::int64_t idx[] = {first.value, static_cast<std::int64_t>(index)...};
    std::size_t flat = 0;
    for (std::size_t d = 0; d < rank; ++d) {
      if (idx[d] < 0 || idx[d] >= static_cast<std::int64_t>(kDims[d]))
        emu::shared_out_of_bounds(info_, idx, rank);
      flat = flat * kDims[d] + static_cast<std::size_t>(idx[d]);
    }
    touch();
    return {&data_[flat], &shadow_[flat], &info_, flat, first.where};
  }
  emu::SharedRef<T> operator[](emu::SharedIndex index)
    requires(sizeof...(Dims) == 1)
  {
    return (*this)(index);
  }

 private:
  void touch() {
    if (stamp_ != emu::block_serial()) emu::shared_first_touch(info_, stamp_);
  }
  static constexpr std::size_t kDims[] = {Dims...};
  static inline const emu::SharedInfo info_{emu::type_name<T>(), kDims, rank, sizeof(T) * kSize};
  T data_[kSize];
  emu::Shadow shadow_[kSize];
  std::uint64_t stamp_;
};

}  // namespace emulated

namespace emu {
/// KD_LAUNCH's work: copies the arguments into the kernel's parameter types (as a launch does),
/// then runs every thread of the grid.
template <class... P, class... A>
void launch(const char* name, void (*kernel)(P...), dim3 grid, dim3 block, A&&... args) {
  static_assert(sizeof...(P) == sizeof...(A), "KD_LAUNCH: wrong number of kernel arguments");
  std::tuple<std::decay_t<P>...> params(std::forward<A>(args)...);
  run(name, grid, block, [&] { std::apply(kernel, params); });
}
}  // namespace emu

}  // namespace kindling::cuda

// ---- The CUDA vocabulary, for kernel source compiled by g++/clang ------------------------------
using KdEmuSite = ::kindling::cuda::emu::Site;
#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __shared__ static
#define threadIdx (::kindling::cuda::emu::current().thread_idx)
#define blockIdx (::kindling::cuda::emu::current().block_idx)
#define blockDim (::kindling::cuda::emu::current().block_dim)
#define gridDim (::kindling::cuda::emu::current().grid_dim)
inline constexpr int warpSize = 32;

/// Launches `kernel<<<grid, block>>>(args...)` on the emulator.
#define KD_LAUNCH(kernel, grid, block, ...) \
  ::kindling::cuda::emu::launch(#kernel, kernel, grid, block, __VA_ARGS__)

inline void __syncthreads(KdEmuSite where = KdEmuSite::here()) {
  ::kindling::cuda::emu::syncthreads(where);
}

namespace kindling::cuda::emu {
template <class T>
T shuffle_as(unsigned mask, T var, ShuffleKind kind, int arg, int width, const char* name,
             Site where) {
  static_assert(std::is_trivially_copyable_v<T> && sizeof(T) <= 8,
                "the emulator's shuffles carry values of at most 8 bytes");
  std::uint64_t bits = 0;
  std::memcpy(&bits, &var, sizeof(T));
  bits = shuffle(mask, bits, kind, arg, width, name, where);
  T out;
  std::memcpy(&out, &bits, sizeof(T));
  return out;
}
}  // namespace kindling::cuda::emu

template <class T>
T __shfl_sync(unsigned mask, T var, int src_lane, int width = warpSize,
              KdEmuSite where = KdEmuSite::here()) {
  return ::kindling::cuda::emu::shuffle_as(mask, var, ::kindling::cuda::emu::ShuffleKind::Index,
                                           src_lane, width, "__shfl_sync", where);
}
template <class T>
T __shfl_up_sync(unsigned mask, T var, unsigned delta, int width = warpSize,
                 KdEmuSite where = KdEmuSite::here()) {
  return ::kindling::cuda::emu::shuffle_as(mask, var, ::kindling::cuda::emu::ShuffleKind::Up,
                                           static_cast<int>(delta), width, "__shfl_up_sync", where);
}
template <class T>
T __shfl_down_sync(unsigned mask, T var, unsigned delta, int width = warpSize,
                   KdEmuSite where = KdEmuSite::here()) {
  return ::kindling::cuda::emu::shuffle_as(mask, var, ::kindling::cuda::emu::ShuffleKind::Down,
                                           static_cast<int>(delta), width, "__shfl_down_sync",
                                           where);
}
template <class T>
T __shfl_xor_sync(unsigned mask, T var, int lane_mask, int width = warpSize,
                  KdEmuSite where = KdEmuSite::here()) {
  return ::kindling::cuda::emu::shuffle_as(mask, var, ::kindling::cuda::emu::ShuffleKind::Xor,
                                           lane_mask, width, "__shfl_xor_sync", where);
}

// Atomics: the threads of the emulator are cooperative fibers on one host thread, so a plain
// read-modify-write cannot be interrupted and is atomic.
template <class T>
  requires std::is_arithmetic_v<T>
T atomicAdd(T* address, T value) {
  T old = *address;
  *address = old + value;
  return old;
}
template <class T>
  requires std::is_arithmetic_v<T>
T atomicMax(T* address, T value) {
  T old = *address;
  if (value > old) *address = value;
  return old;
}

// CUDA's fast-math intrinsics, as their exact counterparts.
inline float __expf(float x) { return std::exp(x); }
inline float __logf(float x) { return std::log(x); }
inline float rsqrtf(float x) { return 1.0f / std::sqrt(x); }
inline float __fdividef(float a, float b) { return a / b; }
