// The kernel emulator's scheduler: the threads of a block as cooperative fibers.
//
// A block's threads each get a fiber (a context and a small stack with a guard page). The scheduler
// resumes every runnable fiber in turn; a fiber runs until it finishes, reaches __syncthreads() or a
// warp shuffle, and switches back. A thread that reaches neither runs from start to end in one go.
// When no fiber can run, either every thread left waits at the same barrier (the barrier opens: a
// new epoch for the race detector), or the block is stuck and that is the kernel's bug (a barrier
// some threads never reach, a shuffle lane that exited). The blocks of the grid run one after
// another, so the `static` variables that `__shared__` declares here are exactly one block's shared
// memory.
//
// A switch is Boost.Context's fcontext (jump_fcontext: a few registers saved and restored, no system
// call). glibc's swapcontext also saves and restores the signal mask, a system call per switch: it
// made chapter 8's programs spend half their time in the kernel. The stacks are mapped once and
// reused by every block and launch (stack_pool), for the same reason.
//
// Under AddressSanitizer every switch is announced (__sanitizer_start/finish_switch_fiber), so ASan
// knows which stack is live and its reports stay true.
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <deque>
#include <exception>
#include <mutex>
#include <new>
#include <sstream>
#include <string_view>
#include <vector>

#include "cuda/emulator/launch.hpp"

#if defined(__SANITIZE_ADDRESS__)
#define KINDLING_EMU_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define KINDLING_EMU_ASAN 1
#endif
#endif
#if defined(KINDLING_EMU_ASAN)
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif

namespace kindling::cuda::emu {
namespace detail {

thread_local Launch* g_launch = nullptr;

std::string str(const dim3& d) {
  return "(" + std::to_string(d.x) + ", " + std::to_string(d.y) + ", " + std::to_string(d.z) + ")";
}

std::string launch_str(const Launch& l) {
  return "kernel " + std::string(l.kernel) + "<<<" + str(l.grid) + ", " + str(l.block) + ">>>";
}

std::string thread_str(const Fiber& f) {
  return "thread " + str(f.tc.thread_idx) + " of block " + str(f.tc.block_idx);
}

}  // namespace detail

void outside_kernel(const char* what) {
  throw Error(std::string(what) + " used outside a kernel: call it from a __global__ function "
              "launched with KD_LAUNCH");
}

namespace {
using namespace detail;

#if defined(KINDLING_EMU_ASAN)
constexpr std::size_t kStackBytes = 512 * 1024;  // ASan's redzones make frames larger
#else
constexpr std::size_t kStackBytes = 128 * 1024;
#endif

std::uint64_t g_block_serial = 0;  // guarded by g_launch_mutex
std::mutex g_launch_mutex;
thread_local std::vector<LaunchRecord> t_launch_log;  // launch_log()
constexpr std::size_t kLaunchLogMax = 1024;

std::string where_str(const Site& w) {
  std::string file = w.file;
  auto slash = file.find_last_of('/');
  if (slash != std::string::npos) file = file.substr(slash + 1);
  return file + ":" + std::to_string(w.line);
}

void record(Launch& l, std::string message) {
  if (l.error.empty()) l.error = std::move(message);
  l.aborting = true;
}

// ---- switching -----------------------------------------------------------------------------
namespace bctx = boost::context::detail;

void switch_to_scheduler(Launch& l, Fiber& f, bool dying) {
#if defined(KINDLING_EMU_ASAN)
  // The frames live at a switch are the only ones that can leave ASan's poison behind (a frame
  // that returns clears its own); start_block clears from a little below the deepest of them.
  char here;
  if (f.stack->low_water == nullptr || &here < f.stack->low_water) f.stack->low_water = &here;
  __sanitizer_start_switch_fiber(dying ? nullptr : &f.fake_stack, l.scheduler_stack_bottom,
                                 l.scheduler_stack_size);
#else
  (void)dying;
  (void)f;
#endif
  // Back to the scheduler; when it resumes this thread, it hands over its own context again.
  l.scheduler = bctx::jump_fcontext(l.scheduler, nullptr).fctx;
#if defined(KINDLING_EMU_ASAN)
  __sanitizer_finish_switch_fiber(f.fake_stack, nullptr, nullptr);
#endif
}

void resume(Launch& l, Fiber& f) {
  l.current = &f;
  t_current = &f.tc;
  ++l.stats.resumes;
#if defined(KINDLING_EMU_ASAN)
  __sanitizer_start_switch_fiber(&l.scheduler_fake_stack,
                                 f.stack->mapping + (f.stack->mapping_bytes - kStackBytes),
                                 kStackBytes);
#endif
  // The thread runs until it switches back: `fctx` is where it will resume next time.
  f.ctx = bctx::jump_fcontext(f.ctx, nullptr).fctx;
#if defined(KINDLING_EMU_ASAN)
  __sanitizer_finish_switch_fiber(l.scheduler_fake_stack, nullptr, nullptr);
#endif
  l.current = nullptr;
  t_current = nullptr;
}

// Waits (switched out) until the scheduler makes this fiber runnable again.
void wait(Launch& l, Fiber& f) {
  switch_to_scheduler(l, f, false);
  if (l.aborting) throw Unwind{};
}

// A thread's first frame. `from` is the scheduler, which has just resumed the thread.
void fiber_main(bctx::transfer_t from) {
  Launch& l = *g_launch;
  l.scheduler = from.fctx;
  Fiber& f = *l.current;
#if defined(KINDLING_EMU_ASAN)
  __sanitizer_finish_switch_fiber(nullptr, &l.scheduler_stack_bottom, &l.scheduler_stack_size);
#endif
  if (!l.aborting) {
    try {
      (*l.body)();
    } catch (const Unwind&) {
    } catch (const KernelError& e) {
      record(l, e.what());
    } catch (const std::exception& e) {
      record(l, launch_str(l) + ": " + thread_str(f) + " threw: " + e.what());
    } catch (...) {
      record(l, launch_str(l) + ": " + thread_str(f) + " threw an unknown exception");
    }
  }
  f.state = State::Done;
  switch_to_scheduler(l, f, true);  // never resumed (an fcontext function must not return)
}

// The stacks, mapped on first need and kept for the process: mapping, protecting and unmapping 256
// stacks per launch cost more than the kernels of chapter 8's programs (a system call each, and
// the first touch of every fresh page faults). A deque keeps them where they are as it grows.
// Guarded by g_launch_mutex (one launch at a time). Never freed: the pool holds at most 1024
// stacks (the largest block), and only the pages a kernel's frames touched are resident.
std::deque<Stack>& stack_pool() {
  static auto* pool = new std::deque<Stack>;
  return *pool;
}

void borrow_stacks(Launch& l, std::size_t n) {
  std::deque<Stack>& pool = stack_pool();
  const std::size_t page = static_cast<std::size_t>(getpagesize());
  while (pool.size() < n) {
    Stack s;
    s.mapping_bytes = kStackBytes + page;
    void* p = mmap(nullptr, s.mapping_bytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) throw OutOfMemoryError("kernel emulator: cannot map a thread's stack");
    s.mapping = static_cast<char*>(p);
    mprotect(s.mapping, page, PROT_NONE);  // a stack overflow faults here instead of corrupting
    pool.push_back(s);
  }
  l.fibers.resize(n);
  for (std::size_t i = 0; i < n; ++i) l.fibers[i].stack = &pool[i];
}

void start_block(Launch& l, const dim3& bidx) {
  l.block_serial = ++g_block_serial;
  t_block_serial = l.block_serial;
  l.epoch = t_epoch = 1;
  l.shared_bytes = 0;
  l.stats.threads += l.fibers.size();
  int linear = 0;
  for (unsigned z = 0; z < l.block.z; ++z)
    for (unsigned y = 0; y < l.block.y; ++y)
      for (unsigned x = 0; x < l.block.x; ++x, ++linear) {
        Fiber& f = l.fibers[static_cast<std::size_t>(linear)];
        f.tc = ThreadContext{dim3(x, y, z), bidx, l.block, l.grid, linear};
        f.state = State::Runnable;
        f.fake_stack = nullptr;
        Stack& s = *f.stack;
        char* const top = s.mapping + s.mapping_bytes;
#if defined(KINDLING_EMU_ASAN)
        // The last block (of this launch or an earlier one) may have left poison on this stack:
        // start clean. Only the part it reached (plus 16 KB for the switch's own frames):
        // clearing all 512 KB of 256 fibers for every block made a SimpleNet step on the emulated
        // device take minutes.
        if (s.low_water != nullptr) {
          char* const from = std::max(top - kStackBytes, s.low_water - 16384);
          __asan_unpoison_memory_region(from, static_cast<std::size_t>(top - from));
          s.low_water = nullptr;
        }
#endif
        // A fresh context that starts in fiber_main at the top of the stack (a few words written
        // there, no system call).
        f.ctx = bctx::make_fcontext(top, kStackBytes, fiber_main);
      }
}

// The block is stuck: say why, in the kernel's terms.
std::string stuck_message(const Launch& l) {
  std::ostringstream os;
  os << launch_str(l) << ", block " << str(l.fibers.front().tc.block_idx) << ": ";
  const Fiber* shuffler = nullptr;
  const Fiber* exited = nullptr;
  const Fiber* first_waiter = nullptr;
  const Fiber* other_site = nullptr;
  std::size_t at_barrier = 0;
  for (const Fiber& f : l.fibers) {
    if (f.state == State::AtShuffle && !shuffler) shuffler = &f;
    if (f.state == State::Done && !exited) exited = &f;
    if (f.state == State::AtBarrier) {
      ++at_barrier;
      if (!first_waiter) first_waiter = &f;
      else if (!other_site && (f.site.line != first_waiter->site.line ||
                               std::string_view(f.site.file) != first_waiter->site.file))
        other_site = &f;
    }
  }
  if (shuffler) {
    const int warp = shuffler->tc.linear / 32;
    os << shuffler->shfl_name << " at " << where_str(shuffler->site) << " waits for lanes of warp "
       << warp << " that never arrive:";
    unsigned mask = shuffler->shfl_mask;
    int shown = 0;
    for (int lane = 0; lane < 32 && shown < 4; ++lane) {
      if (!(mask & (1u << lane))) continue;
      std::size_t t = static_cast<std::size_t>(warp * 32 + lane);
      if (t >= l.fibers.size()) {
        os << " lane " << lane << " does not exist (the block has " << l.fibers.size()
           << " threads);";
        ++shown;
        continue;
      }
      const Fiber& g = l.fibers[t];
      if (g.state == State::Done) {
        os << " lane " << lane << " (" << thread_str(g) << ") exited;";
        ++shown;
      } else if (g.state == State::AtBarrier) {
        os << " lane " << lane << " waits at __syncthreads() at " << where_str(g.site) << ";";
        ++shown;
      }
    }
    os << " every lane named in the mask must reach the same shuffle";
  } else if (exited) {
    os << "__syncthreads() at " << where_str(first_waiter->site) << " is reached by " << at_barrier
       << " of " << l.fibers.size() << " threads; " << thread_str(*exited)
       << " exited without reaching it (it returned early, or the barrier is inside a branch it "
          "did not take). Every thread of a block must reach every barrier (a GPU may hang or "
          "silently skip it): take the barrier out of the branch, or move the early return after "
          "it, and guard the work instead of the barrier";
  } else {
    os << "threads wait at two different barriers: " << thread_str(*first_waiter)
       << " at __syncthreads() at " << where_str(first_waiter->site) << ", "
       << thread_str(*other_site) << " at " << where_str(other_site->site)
       << ". A barrier inside a branch that not every thread takes is undefined behaviour";
  }
  return os.str();
}

bool same_site(const Site& a, const Site& b) {
  return a.line == b.line && std::string_view(a.file) == b.file;
}

void run_block(Launch& l) {
  for (;;) {
    bool ran = false;
    for (Fiber& f : l.fibers) {
      if (f.state != State::Runnable) continue;
      ran = true;
      resume(l, f);
      if (l.aborting) break;
    }
    if (l.aborting) {
      // Unwind every thread still waiting (they throw Unwind as they wake) or not yet started.
      for (Fiber& f : l.fibers)
        if (f.state != State::Done) {
          f.state = State::Runnable;
          resume(l, f);
        }
      return;
    }
    if (ran) continue;
    // Nothing can run: done, a barrier that opens, or stuck.
    bool all_done = true, all_at_one_barrier = true;
    const Fiber* first = nullptr;
    for (const Fiber& f : l.fibers) {
      if (f.state != State::Done) all_done = false;
      if (f.state != State::AtBarrier) {  // an exited thread keeps the barrier shut too
        all_at_one_barrier = false;
      } else if (!first) {
        first = &f;
      } else if (!same_site(first->site, f.site)) {
        all_at_one_barrier = false;
      }
    }
    if (all_done) return;
    if (all_at_one_barrier) {
      t_epoch = ++l.epoch;  // accesses before the barrier are now ordered before those after it
      for (Fiber& f : l.fibers) f.state = State::Runnable;
      continue;
    }
    record(l, stuck_message(l));
  }
}

void check_shape(const char* kernel, const dim3& grid, const dim3& block) {
  auto bad = [&](const std::string& why) {
    throw ValueError("kernel " + std::string(kernel) + "<<<" + str(grid) + ", " + str(block) +
                     ">>>: " + why);
  };
  if (grid.x == 0 || grid.y == 0 || grid.z == 0 || block.x == 0 || block.y == 0 || block.z == 0)
    bad("a launch needs at least one block and one thread per block (a GPU reports "
        "'invalid configuration argument')");
  const std::uint64_t threads = std::uint64_t{block.x} * block.y * block.z;
  if (threads > 1024) bad("a block holds at most 1024 threads, this one " + std::to_string(threads));
  if (block.z > 64) bad("blockDim.z is at most 64");
  if (grid.y > 65535 || grid.z > 65535) bad("gridDim.y and gridDim.z are at most 65535");
}

// Appends the launch's record to this host thread's log (the last kLaunchLogMax launches).
void log_launch(Launch& l) {
  l.stats.failed = !l.error.empty();
  l.stats.global_reads = t_global_counts.reads;
  l.stats.global_accesses = t_global_counts.accesses;
  if (t_launch_log.size() >= kLaunchLogMax) t_launch_log.erase(t_launch_log.begin());
  t_launch_log.push_back(l.stats);
}

}  // namespace

bool in_kernel() { return g_launch && g_launch->current; }

void fail(const std::string& what) {
  Launch& l = launch_or_throw("the emulator's checks");
  throw KernelError(launch_str(l) + ": " + what + " -- in " + thread_str(*l.current));
}

const std::vector<LaunchRecord>& launch_log() { return t_launch_log; }
void clear_launch_log() { t_launch_log.clear(); }

void run(const char* kernel, dim3 grid, dim3 block, const std::function<void()>& body) {
  check_shape(kernel, grid, block);
  if (g_launch) throw Error(std::string("kernel ") + kernel + ": launched from inside a kernel "
                            "(dynamic parallelism is not emulated)");
  std::lock_guard lock(g_launch_mutex);
  Launch l;
  l.kernel = kernel;
  l.grid = grid;
  l.block = block;
  l.body = &body;
  l.stats.kernel = kernel;
  l.stats.grid = grid;
  l.stats.block = block;
  borrow_stacks(l, std::size_t{block.x} * block.y * block.z);
  t_global_counts = GlobalCounts{};
  g_launch = &l;
  try {
    for (unsigned z = 0; z < grid.z && !l.aborting; ++z)
      for (unsigned y = 0; y < grid.y && !l.aborting; ++y)
        for (unsigned x = 0; x < grid.x && !l.aborting; ++x) {
          start_block(l, dim3(x, y, z));
          run_block(l);
          l.stats.shared_bytes = std::max(l.stats.shared_bytes, l.shared_bytes);
        }
  } catch (...) {
    g_launch = nullptr;
    t_block_serial = 0;
    t_epoch = 0;
    if (l.error.empty()) l.error = "the emulator itself failed";
    log_launch(l);
    throw;
  }
  g_launch = nullptr;
  t_block_serial = 0;
  t_epoch = 0;
  log_launch(l);
  if (!l.error.empty()) throw KernelError(l.error);
}

void syncthreads(Site where) {
  Launch& l = launch_or_throw("__syncthreads()");
  Fiber& f = *l.current;
  f.state = State::AtBarrier;
  ++l.stats.barriers;
  f.site = where;
  wait(l, f);
}

std::uint64_t shuffle(unsigned mask, std::uint64_t bits, ShuffleKind kind, int arg, int width,
                      const char* name, Site where) {
  Launch& l = launch_or_throw(name);
  Fiber& f = *l.current;
  const int lane = f.tc.linear % 32;
  const std::size_t warp_base = static_cast<std::size_t>(f.tc.linear - lane);
  if (!(mask & (1u << lane)))
    fail(std::string(name) + " at " + where_str(where) + ": lane " + std::to_string(lane) +
         " calls it but is not in its mask 0x" + [&] {
           std::ostringstream o;
           o << std::hex << mask;
           return o.str();
         }());
  if (width <= 0 || width > 32 || (width & (width - 1)) != 0)
    fail(std::string(name) + ": width " + std::to_string(width) + " is not a power of 2 up to 32");
  f.shfl_mask = mask;
  f.shfl_bits = bits;
  f.shfl_kind = kind;
  f.shfl_arg = arg;
  f.shfl_width = width;
  f.shfl_name = name;
  f.site = where;
  f.state = State::AtShuffle;
  ++l.stats.shuffles;
  // Have all the lanes of the mask arrived? (A lane past the block's end never will.)
  for (int other = 0; other < 32; ++other) {
    if (!(mask & (1u << other))) continue;
    const std::size_t t = warp_base + static_cast<std::size_t>(other);
    if (t >= l.fibers.size() || l.fibers[t].state != State::AtShuffle) {
      wait(l, f);
      return f.shfl_result;
    }
    if (l.fibers[t].shfl_mask != mask)
      fail(std::string(name) + " at " + where_str(where) + ": lanes " + std::to_string(lane) +
           " and " + std::to_string(other) + " pass different masks");
  }
  // The last lane to arrive delivers every lane's value.
  for (int dst = 0; dst < 32; ++dst) {
    if (!(mask & (1u << dst))) continue;
    Fiber& g = l.fibers[warp_base + static_cast<std::size_t>(dst)];
    const int w = g.shfl_width, seg = dst & ~(w - 1), pos = dst - seg;
    int src = dst;
    switch (g.shfl_kind) {
      case ShuffleKind::Index: src = seg + (((g.shfl_arg % w) + w) % w); break;
      case ShuffleKind::Up: src = pos >= g.shfl_arg ? dst - g.shfl_arg : dst; break;
      case ShuffleKind::Down: src = pos + g.shfl_arg < w ? dst + g.shfl_arg : dst; break;
      case ShuffleKind::Xor: {
        int s = dst ^ g.shfl_arg;
        src = (s >= seg + w || s < seg) ? dst : s;
        break;
      }
    }
    if (src < 0 || src > 31 || !(mask & (1u << src))) {
      l.current = &g;
      fail(std::string(name) + " at " + where_str(where) + ": lane " + std::to_string(dst) +
           " reads lane " + std::to_string(src) + ", which is not in the mask (its value is "
           "undefined on a GPU)");
    }
    g.shfl_result = l.fibers[warp_base + static_cast<std::size_t>(src)].shfl_bits;
  }
  for (int dst = 0; dst < 32; ++dst)
    if (mask & (1u << dst)) l.fibers[warp_base + static_cast<std::size_t>(dst)].state = State::Runnable;
  return f.shfl_result;
}

}  // namespace kindling::cuda::emu
