// simulate_ring_all_reduce: the ring all-reduce (exercise ch11.ex4, detail::ring_all_reduce) run
// by N threads of one process, each a rank, linked by mailboxes instead of MPI. What the chapter
// uses to show the ring step by step, and what the graded tests run without mpirun.
#include "kindling/distributed/ring.hpp"

#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <string>
#include <thread>

#include "kindling/autograd/grad_mode.hpp"
#include "kindling/distributed/process_group.hpp"
#include "kindling/tensor/shape.hpp"

namespace kindling::distributed {

namespace {

// The ring's shared state: mailbox[r] holds what rank r - 1 sent and rank r has not received yet.
struct ThreadRing {
  explicit ThreadRing(int n) : mailbox(n), finished(n, false), stats{std::vector<std::int64_t>(n, 0),
                                                                      std::vector<std::int64_t>(n, 0)} {}
  std::mutex mutex;
  std::condition_variable cv;
  std::vector<std::deque<Tensor>> mailbox;
  std::vector<bool> finished;  // rank r's ring_all_reduce returned (or threw)
  bool failed = false;         // some rank threw: every waiting rank stops too
  RingStats stats;
};

class ThreadLink : public RingLink {
 public:
  ThreadLink(ThreadRing& ring, int rank, DType dtype) : ring_(ring), rank_(rank), dtype_(dtype) {}
  int rank() const override { return rank_; }
  int world_size() const override { return static_cast<int>(ring_.mailbox.size()); }

  void send_recv(const Tensor& send, const Tensor& recv) override {
    check(send, "send");
    check(recv, "recv");
    const int n = world_size(), right = (rank_ + 1) % n, left = (rank_ + n - 1) % n;
    Tensor message = send.clone();  // buffered: the sender never waits for the receiver
    std::unique_lock<std::mutex> lock(ring_.mutex);
    ring_.mailbox[right].push_back(std::move(message));
    ring_.stats.elements_sent[rank_] += send.numel();
    ++ring_.stats.calls[rank_];
    ring_.cv.notify_all();
    ring_.cv.wait(lock, [&] { return !ring_.mailbox[rank_].empty() || ring_.failed || ring_.finished[left]; });
    if (ring_.mailbox[rank_].empty()) {
      if (ring_.failed) throw DistributedError("simulate_ring_all_reduce: another rank failed (see its error).");
      throw DistributedError("ring_all_reduce: rank " + std::to_string(rank_) + " waits for a chunk from rank " +
                             std::to_string(left) + ", which has already returned: the ranks made different numbers "
                             "of send_recv calls. Hint: every rank makes exactly 2 (N - 1) calls.");
    }
    Tensor got = std::move(ring_.mailbox[rank_].front());
    ring_.mailbox[rank_].pop_front();
    lock.unlock();
    if (got.numel() != recv.numel()) {
      throw DistributedError("ring_all_reduce: rank " + std::to_string(rank_) + " receives " +
                             std::to_string(got.numel()) + " elements from rank " + std::to_string(left) +
                             " into a tensor of " + std::to_string(recv.numel()) +
                             ". Hint: in each step both neighbours handle the same chunk index, so the sizes agree "
                             "when both compute chunk c as [c * n / N, (c + 1) * n / N).");
    }
    Tensor dst = recv;  // a handle to the same memory
    dst.copy_(got.view(recv.shape()));
  }

 private:
  void check(const Tensor& t, const char* what) const {
    if (!t.defined() || t.dtype() != dtype_ || !t.is_contiguous() || !t.device().is_cpu()) {
      throw ValueError(std::string("ring_all_reduce: send_recv's ") + what + " must be a contiguous CPU tensor of the "
                       "collective's dtype (" + dtype_name(dtype_) + ")" +
                       (t.defined() ? ", got " + std::string(dtype_name(t.dtype())) + " " + shape_str(t.shape()) +
                                          (t.is_contiguous() ? "" : " (not contiguous)")
                                    : ", got an undefined tensor") +
                       ". Hint: a chunk is a slice of the flat tensor, which is contiguous.");
    }
  }
  ThreadRing& ring_;
  int rank_;
  DType dtype_;
};

}  // namespace

RingStats simulate_ring_all_reduce(const std::vector<Tensor>& tensors) {
  const auto n = static_cast<int>(tensors.size());
  if (n < 1) throw ValueError("simulate_ring_all_reduce: no tensors (one per rank) given.");
  for (int r = 0; r < n; ++r) {
    const Tensor& t = tensors[r];
    const std::string which = "simulate_ring_all_reduce: rank " + std::to_string(r) + "'s tensor";
    if (!t.defined()) throw ValueError(which + " is undefined.");
    if (!t.device().is_cpu() || !t.is_contiguous()) {
      throw ValueError(which + " must be a contiguous CPU tensor. Hint: .contiguous() (and copy_ back after).");
    }
    const DType d = t.dtype();
    if (d != kFloat32 && d != kFloat64 && d != kBFloat16 && d != kInt64) {
      throw DTypeError(which + " is " + dtype_name(d) + "; the ring takes float32, float64, bfloat16 or int64.");
    }
    if (d != tensors[0].dtype() || t.numel() != tensors[0].numel()) {
      throw ValueError(which + " is " + dtype_name(d) + " " + shape_str(t.shape()) + " but rank 0's is " +
                       dtype_name(tensors[0].dtype()) + " " + shape_str(tensors[0].shape()) +
                       ". Hint: every rank reduces a tensor of the same dtype and number of elements.");
    }
  }
  ThreadRing ring(n);
  std::vector<std::exception_ptr> errors(n);
  std::vector<std::thread> threads;
  for (int r = 0; r < n; ++r) {
    threads.emplace_back([&, r] {
      try {
        NoGradGuard no_grad;  // a buffer's arithmetic, never part of a graph
        ThreadLink link(ring, r, tensors[0].dtype());
        detail::ring_all_reduce(tensors[r].view({tensors[r].numel()}), link);
      } catch (...) {
        errors[r] = std::current_exception();
        std::lock_guard<std::mutex> lock(ring.mutex);
        ring.failed = true;
      }
      {
        std::lock_guard<std::mutex> lock(ring.mutex);
        ring.finished[r] = true;
      }
      ring.cv.notify_all();
    });
  }
  for (auto& t : threads) t.join();
  // The first rank's own error (not a "another rank failed" echo) explains what went wrong.
  for (int r = 0; r < n; ++r) {
    if (!errors[r]) continue;
    try {
      std::rethrow_exception(errors[r]);
    } catch (const DistributedError& e) {
      if (std::string(e.what()).find("another rank failed") != std::string::npos) continue;
      throw;
    }
  }
  for (int r = 0; r < n; ++r)
    if (errors[r]) std::rethrow_exception(errors[r]);
  for (int r = 0; r < n; ++r) {
    if (!ring.mailbox[r].empty()) {
      throw DistributedError("ring_all_reduce: rank " + std::to_string(r) + " returned with " +
                             std::to_string(ring.mailbox[r].size()) + " chunk(s) sent to it still unreceived: the ranks "
                             "made different numbers of send_recv calls. Hint: every rank makes exactly 2 (N - 1).");
    }
  }
  return ring.stats;
}

}  // namespace kindling::distributed
