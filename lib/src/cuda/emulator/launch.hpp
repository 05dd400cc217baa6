#pragma once
// The kernel emulator's state of one launch, shared by the scheduler (scheduler.cpp) and the
// shared-memory checks (race_checker.cpp). Internal: kernels see only kindling/cuda/emulator.hpp.
#include <boost/context/detail/fcontext.hpp>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "kindling/cuda/emulator.hpp"

namespace kindling::cuda::emu::detail {

enum class State { Runnable, AtBarrier, AtShuffle, Done };

// Thrown into a waiting thread when another thread of the launch failed: unwinds its stack.
struct Unwind {};

// A GPU thread's stack: a guard page, then the stack. Stacks are mapped once and kept for the
// process (scheduler.cpp, stack_pool): a launch borrows one per thread of its block.
struct Stack {
  char* mapping = nullptr;    // guard page + stack
  std::size_t mapping_bytes = 0;
  char* low_water = nullptr;  // ASan: the deepest point of the stack seen at a switch
};

struct Fiber {
  boost::context::detail::fcontext_t ctx = nullptr;  // where the thread resumes
  Stack* stack = nullptr;
  ThreadContext tc;
  State state = State::Runnable;
  bool started = false;
  Site site;  // where it waits (barrier or shuffle)
  void* fake_stack = nullptr; // ASan's bookkeeping while switched out
  // A pending shuffle.
  unsigned shfl_mask = 0;
  std::uint64_t shfl_bits = 0, shfl_result = 0;
  ShuffleKind shfl_kind = ShuffleKind::Index;
  int shfl_arg = 0, shfl_width = 32;
  const char* shfl_name = "";
};

struct Launch {
  const char* kernel = "";
  dim3 grid, block;
  const std::function<void()>* body = nullptr;
  std::vector<Fiber> fibers;
  boost::context::detail::fcontext_t scheduler = nullptr;  // where a switched-out thread returns
  void* scheduler_fake_stack = nullptr;
  const void* scheduler_stack_bottom = nullptr;
  std::size_t scheduler_stack_size = 0;
  Fiber* current = nullptr;
  std::uint64_t block_serial = 0;
  std::uint32_t epoch = 1;          // the block's barrier epoch, for the race detector
  std::size_t shared_bytes = 0;     // shared memory the block touched
  std::string error;                // the first problem found
  bool aborting = false;
  LaunchRecord stats;               // what the launch did (launch_log())
};

/// The launch running on this host thread (null outside a kernel).
extern thread_local Launch* g_launch;

/// The launch whose thread is running; throws when there is none (`what` was used outside a
/// kernel). Inline: the race detector calls it on every shared-memory access.
inline Launch& launch_or_throw(const char* what) {
  if (g_launch == nullptr || g_launch->current == nullptr) [[unlikely]]
    outside_kernel(what);
  return *g_launch;
}
std::string str(const dim3& d);
std::string launch_str(const Launch& l);
std::string thread_str(const Fiber& f);

}  // namespace kindling::cuda::emu::detail
