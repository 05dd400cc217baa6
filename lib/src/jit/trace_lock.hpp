#pragma once
// The ONNX exporter (onnx_export.cpp) and kd::compile (compile_graph.cpp) trace a forward the same
// way: for the length of one forward they put their own recorder (chapter 1's) and Function
// observer (autograd's) in place of the process-wide ones. Two traces at once would undo each
// other's, so they take turns: one trace at a time in the process, an export or a compile.
#include <mutex>
#include <string>

namespace kindling::jit::detail {

class TraceLock {
 public:
  /// Waits for another thread's trace to end. A trace already running on *this* thread (a forward
  /// that exports or compiles again) would wait for itself: that throws `nested_error` instead.
  explicit TraceLock(const std::string& nested_error);
  ~TraceLock();
  TraceLock(const TraceLock&) = delete;
  TraceLock& operator=(const TraceLock&) = delete;

 private:
  std::unique_lock<std::mutex> lock_;
};

}  // namespace kindling::jit::detail
