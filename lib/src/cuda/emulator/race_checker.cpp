// The kernel emulator's checks of shared memory: bounds, the first touch of an array in a block, a
// read of an element no thread wrote, and races -- two threads of a block touching the same element
// between two barriers, at least one of them writing. Each element has a shadow record (its last
// writer and readers, stamped with the block's barrier epoch); an access checks it against the
// current thread and epoch, and a barrier that opens starts a new epoch (scheduler.cpp).
#include <string>
#include <vector>

#include "cuda/emulator/launch.hpp"

namespace kindling::cuda::emu {
using detail::g_launch;
using detail::Launch;
using detail::launch_or_throw;
using detail::str;

// ---- shared memory: bounds, first touch, the race detector ----------------------------------

namespace {
std::string shared_name(const SharedInfo& info) {
  std::string s = "__shared__ " + std::string(info.type);
  for (std::size_t d = 0; d < info.rank; ++d) s += "[" + std::to_string(info.dims[d]) + "]";
  return s;
}
std::string element(const SharedInfo& info, std::size_t flat) {
  std::vector<std::size_t> idx(info.rank);
  for (std::size_t d = info.rank; d-- > 0;) {
    idx[d] = flat % info.dims[d];
    flat /= info.dims[d];
  }
  std::string s = "element (";
  for (std::size_t d = 0; d < info.rank; ++d) s += (d ? ", " : "") + std::to_string(idx[d]);
  return s + ")";
}
/// " at ex3_matmul_tiled.cpp:42": the line of the kernel that indexed the array (two arrays of one
/// type and shape, a tile of a and a tile of b, are told apart by it).
std::string at(const Site& w) {
  if (w.line == 0) return "";
  std::string file = w.file;
  const auto slash = file.find_last_of('/');
  if (slash != std::string::npos) file = file.substr(slash + 1);
  return " at " + file + ":" + std::to_string(w.line);
}
std::string thread_of(const Launch& l, std::int32_t linear) {
  return "thread " + str(l.fibers[static_cast<std::size_t>(linear)].tc.thread_idx);
}
}  // namespace

void shared_first_touch(const SharedInfo& info, std::uint64_t& stamp) {
  Launch& l = launch_or_throw("a __shared__ array");
  stamp = l.block_serial;
  l.shared_bytes += info.bytes;
  if (l.shared_bytes > 48 * 1024)
    fail("the block uses " + std::to_string(l.shared_bytes) + " bytes of static shared memory "
         "(" + shared_name(info) + " is the last one), more than the 48 KiB a block may have");
}

void shared_read(Shadow& s, const SharedInfo& info, std::size_t flat, Site where) {
  Launch& l = launch_or_throw("a __shared__ array");
  const std::int32_t me = l.current->tc.linear;
  if (s.block != l.block_serial) {
    fail("reads " + element(info, flat) + " of " + shared_name(info) + at(where) + ", which no thread of "
         "this block has written: shared memory starts uninitialised on a GPU");
  }
  if (s.write_epoch == l.epoch && s.writer != me)
    fail("race on " + element(info, flat) + " of " + shared_name(info) + at(where) + ": it reads what " +
         thread_of(l, s.writer) + " wrote since the last __syncthreads() (put a barrier between "
         "the write and the read)");
  if (s.read_epoch != l.epoch) {
    s.read_epoch = l.epoch;
    s.reader = me;
    s.other_reader = -1;
  } else if (s.reader != me && s.other_reader == -1) {
    s.other_reader = me;
  }
}

void shared_write(Shadow& s, const SharedInfo& info, std::size_t flat, Site where) {
  Launch& l = launch_or_throw("a __shared__ array");
  const std::int32_t me = l.current->tc.linear;
  if (s.block != l.block_serial) {
    s = Shadow{};
    s.block = l.block_serial;
  }
  if (s.write_epoch == l.epoch && s.writer != me)
    fail("race on " + element(info, flat) + " of " + shared_name(info) + at(where) + ": it writes what " +
         thread_of(l, s.writer) + " also wrote since the last __syncthreads()");
  if (s.read_epoch == l.epoch && (s.reader != me || s.other_reader != -1)) {
    const std::int32_t other = s.reader != me ? s.reader : s.other_reader;
    fail("race on " + element(info, flat) + " of " + shared_name(info) + at(where) + ": it overwrites what " +
         thread_of(l, other) + " read since the last __syncthreads() (that read may see the old "
         "value or the new one; put a barrier between the read and the write)");
  }
  s.write_epoch = l.epoch;
  s.writer = me;
}

void shared_out_of_bounds(const SharedInfo& info, const std::int64_t* index, std::size_t rank) {
  std::string idx;
  for (std::size_t d = 0; d < rank; ++d) idx += (d ? ", " : "") + std::to_string(index[d]);
  fail("index (" + idx + ") is outside " + shared_name(info));
}

void global_out_of_bounds(const char* name, std::int64_t index, std::int64_t size, bool is_const) {
  std::string what = std::string(is_const ? "reads" : "accesses") + " " + name + "[" +
                     std::to_string(index) + "], outside its " + std::to_string(size) +
                     " elements (a GPU would " + (is_const ? "read garbage" : "corrupt memory") +
                     " or fault later)";
  if (!in_kernel()) throw IndexError("Span: " + what);
  fail(what);
}

}  // namespace kindling::cuda::emu
