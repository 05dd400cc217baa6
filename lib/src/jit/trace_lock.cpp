#include "trace_lock.hpp"

#include "kindling/tensor/error.hpp"

namespace kindling::jit::detail {
namespace {
std::mutex g_trace_mutex;
thread_local bool t_tracing = false;  // this thread holds g_trace_mutex
}  // namespace

TraceLock::TraceLock(const std::string& nested_error) {
  if (t_tracing) throw Error(nested_error);
  lock_ = std::unique_lock<std::mutex>(g_trace_mutex);
  t_tracing = true;
}

TraceLock::~TraceLock() { t_tracing = false; }

}  // namespace kindling::jit::detail
