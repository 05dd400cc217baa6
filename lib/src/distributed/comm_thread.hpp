#pragma once
// The communication thread of the process group (process_group.cpp): one thread of our own owns
// MPI. It starts MPI, carries out every collective in the order the program queued them, and stops
// MPI. MPI is started with MPI_THREAD_SERIALIZED and only this thread ever calls it, so the caller's
// threads (the training loop, DistributedDataParallel's hooks during backward) never do: they
// queue a task and get a Work to wait on.

// The C interface only (OpenMPI's deprecated C++ bindings would need libmpi_cxx).
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include <condition_variable>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>

#include "kindling/distributed/process_group.hpp"

namespace kindling::distributed {

// What a Work waits for: set once by the communication thread when its task ended.
struct Work::State {
  std::mutex mutex;
  std::condition_variable cv;
  bool done = false;
  std::exception_ptr error;

  void finish(std::exception_ptr e) {
    {
      std::lock_guard<std::mutex> lock(mutex);
      done = true;
      error = std::move(e);
    }
    cv.notify_all();
  }
};

namespace detail {

// An MPI error code as a DistributedError naming `op` (MPI's errors are returned, not fatal: see
// CommThread::start).
void check_mpi(int rc, const char* op);

class CommThread {
 public:
  // Starts the thread and MPI on it; throws what MPI_Init_thread said if it failed.
  void start();
  // Runs `task` on the communication thread after everything queued before it; the Work says
  // when it ended and carries what it threw.
  Work submit(std::function<void()> task);
  void run_and_wait(std::function<void()> task) { submit(std::move(task)).wait(); }
  // Finalises MPI on the thread and joins it.
  void stop();
  // True when every rank reached it within `seconds`; false leaves the barrier pending (the job
  // is about to be aborted).
  bool exit_barrier(double seconds);

  int rank() const { return rank_; }
  int world_size() const { return world_size_; }
  // MPI has no bfloat16: sums and maxima of 16-bit words are reductions of our own.
  MPI_Op bf16_op(ReduceOp op) const { return bf16_ops_[op == ReduceOp::MAX ? 1 : 0]; }

 private:
  void loop();
  void make_bf16_ops();

  std::thread thread_;
  std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> queue_;
  bool stopping_ = false;
  int rank_ = 0, world_size_ = 1;
  MPI_Op bf16_ops_[2] = {MPI_OP_NULL, MPI_OP_NULL};
  MPI_Comm exit_comm_ = MPI_COMM_NULL;
};

}  // namespace detail
}  // namespace kindling::distributed
