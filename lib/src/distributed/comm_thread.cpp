// The communication thread (comm_thread.hpp): a queue of tasks, one thread that runs them, and
// MPI's start, stop and the reductions MPI lacks (bfloat16).
#include "comm_thread.hpp"

#include <chrono>
#include <string>

#include "kindling/tensor/half.hpp"

namespace kindling::distributed::detail {

void check_mpi(int rc, const char* op) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, text, &len);
  throw DistributedError(std::string(op) + ": MPI failed: " + std::string(text, static_cast<std::size_t>(len)));
}

void CommThread::start() {
  thread_ = std::thread([this] { loop(); });
  run_and_wait([&] {
    int provided = 0;
    if (MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided) != MPI_SUCCESS) {
      throw DistributedError("init_process_group: MPI_Init_thread failed.");
    }
    // MPI errors come back as return codes (turned into DistributedError), not as an abort
    // without a word.
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &world_size_);
    // A communicator of its own for the barrier at exit (exit_barrier): it never meets the
    // program's collectives, even when a rank leaves in the middle of one.
    MPI_Comm_dup(MPI_COMM_WORLD, &exit_comm_);
    make_bf16_ops();
  });
}

Work CommThread::submit(std::function<void()> task) {
  auto state = std::make_shared<Work::State>();
  {
    std::lock_guard<std::mutex> lock(mutex_);
    queue_.push_back([state, task = std::move(task)] {
      std::exception_ptr error;
      try {
        task();
      } catch (...) {
        error = std::current_exception();
      }
      state->finish(error);
    });
  }
  cv_.notify_one();
  return Work(state);
}

void CommThread::stop() {
  std::exception_ptr error;
  try {
    run_and_wait([this] {
      for (MPI_Op& op : bf16_ops_)
        if (op != MPI_OP_NULL) MPI_Op_free(&op);
      MPI_Finalize();
    });
  } catch (...) {
    error = std::current_exception();
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  cv_.notify_one();
  thread_.join();
  if (error) std::rethrow_exception(error);
}

bool CommThread::exit_barrier(double seconds) {
  bool all_there = false;
  run_and_wait([&] {
    MPI_Request request;
    check_mpi(MPI_Ibarrier(exit_comm_, &request), "exit");
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    int done = 0;
    while (!done && std::chrono::steady_clock::now() < deadline) {
      MPI_Test(&request, &done, MPI_STATUS_IGNORE);
      if (!done) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    all_there = done != 0;
  });
  return all_there;
}

void CommThread::loop() {
  for (;;) {
    std::function<void()> task;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      cv_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopping, and nothing left to do
      task = std::move(queue_.front());
      queue_.pop_front();
    }
    task();
  }
}

namespace {

// inout[i] = in[i] (+ or max) inout[i], each sum rounded to bfloat16 as PyTorch's CPU backend
// (gloo) rounds every partial sum.
void bf16_sum(void* in, void* inout, int* len, MPI_Datatype*) {
  const auto* a = static_cast<const BFloat16*>(in);
  auto* b = static_cast<BFloat16*>(inout);
  for (int i = 0; i < *len; ++i) b[i] = BFloat16(static_cast<float>(a[i]) + static_cast<float>(b[i]));
}
void bf16_max(void* in, void* inout, int* len, MPI_Datatype*) {
  const auto* a = static_cast<const BFloat16*>(in);
  auto* b = static_cast<BFloat16*>(inout);
  for (int i = 0; i < *len; ++i) {
    const float x = a[i], y = b[i];
    if (x > y || x != x) b[i] = a[i];  // a NaN wins, as torch.max says
  }
}

}  // namespace

void CommThread::make_bf16_ops() {
  MPI_Op_create(&bf16_sum, /*commute=*/1, &bf16_ops_[0]);
  MPI_Op_create(&bf16_max, /*commute=*/1, &bf16_ops_[1]);
}

}  // namespace kindling::distributed::detail
