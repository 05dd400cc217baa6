// The process group over MPI. One thread of our own (the "communication thread", comm_thread.hpp)
// owns MPI: it starts it, carries out every collective in the order the program called them, and
// stops it. The caller only checks its arguments and queues the work, so an asynchronous
// all-reduce runs while the caller goes on computing (DistributedDataParallel's buckets during
// backward), and a synchronous one is an asynchronous one followed by wait().
#include "kindling/distributed/process_group.hpp"

#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <mutex>

#include "kindling/autograd/grad_mode.hpp"
#include "kindling/distributed/ring.hpp"
#include "kindling/tensor/creation.hpp"
#include "kindling/tensor/half.hpp"
#include "kindling/tensor/shape.hpp"
#include "kindling/tensor/storage.hpp"
#include "comm_thread.hpp"

namespace kindling::distributed {

void Work::wait() const {
  if (!state_) return;
  std::unique_lock<std::mutex> lock(state_->mutex);
  state_->cv.wait(lock, [&] { return state_->done; });
  if (state_->error) std::rethrow_exception(state_->error);
}

bool Work::is_completed() const {
  if (!state_) return true;
  std::lock_guard<std::mutex> lock(state_->mutex);
  return state_->done;
}

const char* reduce_op_name(ReduceOp op) {
  switch (op) {
    case ReduceOp::SUM: return "SUM";
    case ReduceOp::AVG: return "AVG";
    case ReduceOp::MAX: return "MAX";
  }
  return "?";
}

namespace {

using detail::check_mpi;
using detail::CommThread;

// The process's one communication thread. Made once and never destroyed (its thread is joined
// by destroy_process_group, at the latest at exit), so no static destructor races a collective.
std::mutex g_mutex;
CommThread* g_comm = nullptr;
bool g_finalized = false;
bool g_ring = false;  // all_reduce sums with the ring (ProcessGroupOptions::all_reduce_algorithm)

// [snippet: on-terminate]
void on_terminate() {
  std::string what = "std::terminate was called without an exception";
  if (std::exception_ptr e = std::current_exception()) {
    try {
      std::rethrow_exception(e);
    } catch (const std::exception& x) {
      what = std::string("uncaught exception: ") + x.what();
    } catch (...) {
      what = "uncaught exception that is not a std::exception";
    }
  }
  abort_job(what);  // prints the message, then MPI_Abort ends every rank of the job
}
// [end]

// The process ends without destroy_process_group: main returned (perhaps with an error code after
// catching an exception) or exit() was called. MPI_Finalize would wait for every rank, and a rank
// still waiting in a collective for this one would wait forever: so first a barrier with a time
// limit (KINDLING_DISTRIBUTED_EXIT_TIMEOUT seconds, 30 by default); a rank the others do not meet
// in time ends the whole job with a message instead of hanging it.
void destroy_at_exit() {
  if (!is_initialized()) return;
  double seconds = 30;
  if (const char* env = std::getenv("KINDLING_DISTRIBUTED_EXIT_TIMEOUT")) seconds = std::atof(env);
  if (g_comm->world_size() > 1 && !g_comm->exit_barrier(seconds)) {
    abort_job("this rank is exiting without destroy_process_group(), and after " + std::to_string(seconds) +
              " s the other ranks have not reached their exit (they may be waiting for this rank in a "
              "collective). Ending every rank. Hint: call kd::distributed::destroy_process_group() at "
              "the end of main on every rank.");
  }
  destroy_process_group();
}

CommThread& comm(const char* op) {
  if (!g_comm) {
    throw DistributedError(std::string(op) + ": the process group is not initialised. Hint: call "
                           "kd::distributed::init_process_group() first (and start the program with "
                           "mpirun -np N to get N processes).");
  }
  return *g_comm;
}

// ---- argument checks (on the caller's thread, before anything is queued) ---------------------------

std::string describe(const Tensor& t) {
  return "a " + std::string(dtype_name(t.dtype())) + " tensor of shape " + shape_str(t.shape()) + " on " +
         t.device().str();
}

void check_tensor(const Tensor& t, const char* op, const char* what) {
  if (!t.defined()) throw ValueError(std::string(op) + ": " + what + " is an undefined tensor.");
  if (!t.device().is_cpu()) {
    throw DeviceError(std::string(op) + ": " + what + " is " + describe(t) +
                      "; collectives take CPU tensors. Hint: copy it with .to(kd::kCPU), and back after.");
  }
  const DType d = t.dtype();
  if (d != kFloat32 && d != kFloat64 && d != kBFloat16 && d != kInt64) {
    throw DTypeError(std::string(op) + ": " + what + " is " + describe(t) +
                     "; collectives take float32, float64, bfloat16 or int64. Hint: convert it with .to().");
  }
  if (!t.is_contiguous()) {
    throw ValueError(std::string(op) + ": " + what + " is " + describe(t) + " that is not contiguous (strides " +
                     shape_str(t.strides()) + "); a collective writes the tensor's memory in place, in order. "
                     "Hint: make a contiguous copy with .contiguous(), reduce it, then copy_ it back.");
  }
  if (t.numel() > INT_MAX) {
    throw ValueError(std::string(op) + ": " + what + " has " + std::to_string(t.numel()) +
                     " elements; MPI counts at most 2^31 - 1 per call. Hint: reduce it in chunks (views).");
  }
}

void check_same(const Tensor& a, const Tensor& b, const char* op, const std::string& what_b) {
  if (a.dtype() != b.dtype() || a.numel() != b.numel()) {
    throw ValueError(std::string(op) + ": " + what_b + " is " + describe(b) + " but the input is " + describe(a) +
                     ". Hint: every tensor of a collective has the input's dtype and number of elements.");
  }
}

MPI_Datatype mpi_type(DType d) {
  switch (d) {
    case DType::Float32: return MPI_FLOAT;
    case DType::Float64: return MPI_DOUBLE;
    case DType::Int64: return MPI_INT64_T;
    case DType::BFloat16: return MPI_UINT16_T;  // reduced by our own ops
    default: return MPI_DATATYPE_NULL;
  }
}

MPI_Op mpi_op(const CommThread& c, DType d, ReduceOp op) {
  if (d == kBFloat16) return c.bf16_op(op);
  return op == ReduceOp::MAX ? MPI_MAX : MPI_SUM;  // AVG: a sum, divided afterwards
}

void check_op(const Tensor& t, ReduceOp op, const char* name) {
  if (op == ReduceOp::AVG && t.dtype() == kInt64) {
    throw DTypeError(std::string(name) + ": ReduceOp.AVG of an int64 tensor would have to round; averages are "
                     "for floating-point tensors. Hint: use ReduceOp::SUM and divide (or convert to float64).");
  }
}

// AVG after the sum: divide `n` elements at `data` by the world's size.
void divide(void* data, std::int64_t n, DType d, int world) {
  switch (d) {
    case DType::Float32: {
      auto* p = static_cast<float*>(data);
      for (std::int64_t i = 0; i < n; ++i) p[i] /= static_cast<float>(world);
      break;
    }
    case DType::Float64: {
      auto* p = static_cast<double*>(data);
      for (std::int64_t i = 0; i < n; ++i) p[i] /= world;
      break;
    }
    case DType::BFloat16: {
      auto* p = static_cast<BFloat16*>(data);
      for (std::int64_t i = 0; i < n; ++i) p[i] = BFloat16(static_cast<float>(p[i]) / static_cast<float>(world));
      break;
    }
    default: break;
  }
}

// The ring's link over MPI: one MPI_Sendrecv with the neighbours per step (on the communication thread).
class MpiRingLink : public RingLink {
 public:
  MpiRingLink(int rank, int world, DType dtype) : rank_(rank), world_(world), dtype_(dtype) {}
  int rank() const override { return rank_; }
  int world_size() const override { return world_; }
  void send_recv(const Tensor& send, const Tensor& recv) override {
    for (const Tensor* t : {&send, &recv}) {
      if (!t->defined() || t->dtype() != dtype_ || !t->is_contiguous() || !t->device().is_cpu()) {
        throw ValueError(std::string("ring_all_reduce: send_recv takes contiguous CPU tensors of the collective's "
                                     "dtype (") + dtype_name(dtype_) + "). Hint: a chunk is a slice of the flat tensor.");
      }
    }
    const int right = (rank_ + 1) % world_, left = (rank_ + world_ - 1) % world_;
    MPI_Status status;
    check_mpi(MPI_Sendrecv(send.raw_data_ptr(), static_cast<int>(send.numel()), mpi_type(dtype_), right, 0,
                           recv.raw_data_ptr(), static_cast<int>(recv.numel()), mpi_type(dtype_), left, 0, MPI_COMM_WORLD,
                           &status),
              "ring_all_reduce");
    int count = 0;
    MPI_Get_count(&status, mpi_type(dtype_), &count);
    if (count != recv.numel()) {
      throw DistributedError("ring_all_reduce: rank " + std::to_string(rank_) + " received " + std::to_string(count) +
                             " elements from rank " + std::to_string(left) + " into a tensor of " +
                             std::to_string(recv.numel()) + ". Hint: both neighbours compute chunk c as "
                             "[c * n / N, (c + 1) * n / N).");
    }
  }

 private:
  int rank_, world_;
  DType dtype_;
};

Work finish(Work work, bool async_op) {
  if (!async_op) work.wait();
  return work;
}

}  // namespace

// ---- the process group ----------------------------------------------------------------------------

void init_process_group(const ProcessGroupOptions& options) {
  if (options.all_reduce_algorithm != "mpi" && options.all_reduce_algorithm != "ring") {
    throw ValueError("init_process_group: all_reduce_algorithm '" + options.all_reduce_algorithm +
                     "' is not known. Hint: \"mpi\" (MPI_Allreduce) or \"ring\" (the ring all-reduce).");
  }
  if (options.backend != "mpi") {
    throw ValueError("init_process_group: backend '" + options.backend +
                     "' is not available; Kindling's processes talk through MPI. Hint: backend = \"mpi\".");
  }
  std::lock_guard<std::mutex> lock(g_mutex);
  if (g_comm) {
    throw DistributedError("init_process_group: the process group is already initialised (rank " +
                           std::to_string(g_comm->rank()) + " of " + std::to_string(g_comm->world_size()) + ").");
  }
  if (g_finalized) {
    throw DistributedError("init_process_group: the process group was destroyed, and MPI cannot start twice "
                           "in one process. Hint: initialise once at the start of main, destroy once at the end.");
  }
  auto* c = new CommThread;
  try {
    c->start();
  } catch (...) {
    delete c;
    throw;
  }
  g_comm = c;
  g_ring = options.all_reduce_algorithm == "ring";
  static bool once = [] {
    std::set_terminate(&on_terminate);
    std::atexit(&destroy_at_exit);
    return true;
  }();
  (void)once;
}

void destroy_process_group() {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (!g_comm) throw DistributedError("destroy_process_group: the process group is not initialised.");
  CommThread* c = std::exchange(g_comm, nullptr);
  g_finalized = true;
  c->stop();
  delete c;
}

bool is_initialized() { return g_comm != nullptr; }
int get_rank() { return comm("get_rank").rank(); }
int get_world_size() { return comm("get_world_size").world_size(); }

void abort_job(const std::string& message, int exit_code) {
  const int rank = g_comm ? g_comm->rank() : 0, world = g_comm ? g_comm->world_size() : 1;
  std::fprintf(stderr, "kindling.distributed: rank %d of %d failed: %s\n", rank, world, message.c_str());
  std::fflush(stderr);
  int up = 0, down = 0;
  MPI_Initialized(&up);
  MPI_Finalized(&down);
  if (up && !down) MPI_Abort(MPI_COMM_WORLD, exit_code);  // stops every rank of the job
  std::_Exit(exit_code);
}

// ---- the collectives ------------------------------------------------------------------------------

Work all_reduce(const Tensor& tensor, ReduceOp op, bool async_op) {
  CommThread& c = comm("all_reduce");
  check_tensor(tensor, "all_reduce", "the tensor");
  check_op(tensor, op, "all_reduce");
  tensor.storage()->bump_version();
  // The Work keeps the tensor (and so its memory) alive until the operation is done.
  return finish(c.submit([&c, tensor, op] {
                  const DType d = tensor.dtype();
                  void* data = tensor.raw_data_ptr();
                  const auto n = static_cast<int>(tensor.numel());
                  if (g_ring && op != ReduceOp::MAX && c.world_size() > 1) {
                    NoGradGuard no_grad;  // a buffer's arithmetic, never part of a graph
                    MpiRingLink link(c.rank(), c.world_size(), d);
                    detail::ring_all_reduce(tensor.view({tensor.numel()}), link);  // exercise ch11.ex4
                  } else {
                    check_mpi(MPI_Allreduce(MPI_IN_PLACE, data, n, mpi_type(d), mpi_op(c, d, op), MPI_COMM_WORLD),
                              "all_reduce");
                  }
                  if (op == ReduceOp::AVG) divide(data, n, d, c.world_size());
                }),
                async_op);
}

Work broadcast(const Tensor& tensor, int src, bool async_op) {
  CommThread& c = comm("broadcast");
  check_tensor(tensor, "broadcast", "the tensor");
  if (src < 0 || src >= c.world_size()) {
    throw ValueError("broadcast: src " + std::to_string(src) + " is not a rank of this job (ranks 0 .. " +
                     std::to_string(c.world_size() - 1) + ").");
  }
  tensor.storage()->bump_version();
  return finish(c.submit([tensor, src] {
                  check_mpi(MPI_Bcast(tensor.raw_data_ptr(), static_cast<int>(tensor.numel()),
                                      mpi_type(tensor.dtype()), src, MPI_COMM_WORLD),
                            "broadcast");
                }),
                async_op);
}

Work all_gather_into_tensor(const Tensor& output, const Tensor& input, bool async_op) {
  CommThread& c = comm("all_gather_into_tensor");
  check_tensor(input, "all_gather_into_tensor", "the input");
  check_tensor(output, "all_gather_into_tensor", "the output");
  if (output.dtype() != input.dtype() || output.numel() != input.numel() * c.world_size()) {
    throw ValueError("all_gather_into_tensor: the output is " + describe(output) + "; it needs world_size (" +
                     std::to_string(c.world_size()) + ") x " + std::to_string(input.numel()) +
                     " elements of the input's dtype (" + dtype_name(input.dtype()) + ").");
  }
  if (output.shares_storage(input)) {
    throw ValueError("all_gather_into_tensor: the output and the input share memory. Hint: gather into a new "
                     "tensor (kd::empty).");
  }
  output.storage()->bump_version();
  return finish(c.submit([output, input] {
                  const auto n = static_cast<int>(input.numel());
                  const MPI_Datatype t = mpi_type(input.dtype());
                  check_mpi(MPI_Allgather(input.raw_data_ptr(), n, t, output.raw_data_ptr(), n, t, MPI_COMM_WORLD),
                            "all_gather");
                }),
                async_op);
}

Work all_gather(const std::vector<Tensor>& output_tensors, const Tensor& input, bool async_op) {
  CommThread& c = comm("all_gather");
  check_tensor(input, "all_gather", "the input");
  if (static_cast<int>(output_tensors.size()) != c.world_size()) {
    throw ValueError("all_gather: " + std::to_string(output_tensors.size()) + " output tensors for a world of " +
                     std::to_string(c.world_size()) + " ranks. Hint: one output per rank.");
  }
  for (std::size_t r = 0; r < output_tensors.size(); ++r) {
    const std::string what = "output_tensors[" + std::to_string(r) + "]";
    check_tensor(output_tensors[r], "all_gather", what.c_str());
    check_same(input, output_tensors[r], "all_gather", what);
  }
  for (const Tensor& o : output_tensors) o.storage()->bump_version();
  // MPI gathers into one buffer; the blocks are then copied into the caller's tensors.
  const Tensor gathered = kindling::empty({input.numel() * c.world_size()}, {.dtype = input.dtype()});
  return finish(c.submit([output_tensors, input, gathered] {
                  const auto n = static_cast<int>(input.numel());
                  const MPI_Datatype t = mpi_type(input.dtype());
                  check_mpi(MPI_Allgather(input.raw_data_ptr(), n, t, gathered.raw_data_ptr(), n, t,
                                          MPI_COMM_WORLD),
                            "all_gather");
                  const std::size_t bytes = input.nbytes();
                  const auto* src = static_cast<const char*>(gathered.raw_data_ptr());
                  for (std::size_t r = 0; r < output_tensors.size(); ++r) {
                    if (bytes) std::memcpy(output_tensors[r].raw_data_ptr(), src + r * bytes, bytes);
                  }
                }),
                async_op);
}

namespace {
Work reduce_scatter_block(CommThread& c, const Tensor& output, const Tensor& packed, ReduceOp op, bool async_op,
                          const char* name) {
  output.storage()->bump_version();
  return finish(c.submit([&c, output, packed, op, name] {
                  const DType d = output.dtype();
                  const auto n = static_cast<int>(output.numel());
                  check_mpi(MPI_Reduce_scatter_block(packed.raw_data_ptr(), output.raw_data_ptr(), n, mpi_type(d),
                                                     mpi_op(c, d, op), MPI_COMM_WORLD),
                            name);
                  if (op == ReduceOp::AVG) divide(output.raw_data_ptr(), n, d, c.world_size());
                }),
                async_op);
}
}  // namespace

Work reduce_scatter_tensor(const Tensor& output, const Tensor& input, ReduceOp op, bool async_op) {
  CommThread& c = comm("reduce_scatter_tensor");
  check_tensor(output, "reduce_scatter_tensor", "the output");
  check_tensor(input, "reduce_scatter_tensor", "the input");
  check_op(output, op, "reduce_scatter_tensor");
  if (output.dtype() != input.dtype() || input.numel() != output.numel() * c.world_size()) {
    throw ValueError("reduce_scatter_tensor: the input is " + describe(input) + "; it needs world_size (" +
                     std::to_string(c.world_size()) + ") x " + std::to_string(output.numel()) +
                     " elements of the output's dtype (" + dtype_name(output.dtype()) + ").");
  }
  if (output.shares_storage(input)) {
    throw ValueError("reduce_scatter_tensor: the output and the input share memory. Hint: reduce into a new "
                     "tensor (kd::empty).");
  }
  return reduce_scatter_block(c, output, input, op, async_op, "reduce_scatter_tensor");
}

Work reduce_scatter(const Tensor& output, const std::vector<Tensor>& input_list, ReduceOp op, bool async_op) {
  CommThread& c = comm("reduce_scatter");
  check_tensor(output, "reduce_scatter", "the output");
  check_op(output, op, "reduce_scatter");
  if (static_cast<int>(input_list.size()) != c.world_size()) {
    throw ValueError("reduce_scatter: " + std::to_string(input_list.size()) + " input tensors for a world of " +
                     std::to_string(c.world_size()) + " ranks. Hint: one input per rank.");
  }
  for (std::size_t r = 0; r < input_list.size(); ++r) {
    const std::string what = "input_list[" + std::to_string(r) + "]";
    check_tensor(input_list[r], "reduce_scatter", what.c_str());
    check_same(output, input_list[r], "reduce_scatter", what);
  }
  // MPI reduces one buffer of world_size blocks: the inputs are packed into it now, on this thread.
  const Tensor packed = kindling::empty({output.numel() * c.world_size()}, {.dtype = output.dtype()});
  const std::size_t bytes = output.nbytes();
  for (std::size_t r = 0; r < input_list.size(); ++r) {
    if (bytes) std::memcpy(static_cast<char*>(packed.raw_data_ptr()) + r * bytes, input_list[r].raw_data_ptr(), bytes);
  }
  return reduce_scatter_block(c, output, packed, op, async_op, "reduce_scatter");
}

Work barrier(bool async_op) {
  CommThread& c = comm("barrier");
  return finish(c.submit([] { check_mpi(MPI_Barrier(MPI_COMM_WORLD), "barrier"); }), async_op);
}

}  // namespace kindling::distributed
