#pragma once
/// @file
/// The process group: every process of a job (a *rank*, 0 .. world_size - 1) runs the same
/// program, and the collectives below move tensors between all of them at once. Kindling runs on
/// MPI (OpenMPI): start the program with `mpirun -np 2 ./program` and each copy learns its rank
/// and the world's size from it (PyTorch's `torch.distributed` with `backend="mpi"`).
///
/// Every collective works *in place* on a contiguous CPU tensor of float32, float64, bfloat16 or
/// int64, and every rank must call the same collectives in the same order with tensors of the
/// same shape and dtype. With `async_op = true` the call returns at once with a Work; the tensor
/// must not be read or written until `work.wait()` returns.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "kindling/tensor/error.hpp"
#include "kindling/tensor/tensor.hpp"

namespace kindling::distributed {

/// An error of the process group or of a collective (MPI's own message included).
class DistributedError : public Error {
  using Error::Error;
};

/// How a collective combines the ranks' values (torch.distributed.ReduceOp).
enum class ReduceOp { SUM, AVG, MAX };

/// The name PyTorch prints for an op ("SUM", "AVG", "MAX").
const char* reduce_op_name(ReduceOp op);

/// Options of init_process_group, with designated initialisers.
struct ProcessGroupOptions {
  /// Only "mpi": the rank and the world's size come from mpirun.
  std::string backend = "mpi";
  /// How all_reduce sums: "mpi" (MPI_Allreduce, whatever algorithm the MPI library picks) or "ring"
  /// (Kindling's ring all-reduce over MPI's point-to-point messages, kindling/distributed/ring.hpp;
  /// for SUM and AVG; MAX stays with MPI).
  std::string all_reduce_algorithm = "mpi";
};

/// Joins the job: starts MPI (once per process) on a thread of its own that carries out every
/// collective in the order they were called. Run without mpirun, the program is a world of one
/// process (rank 0 of 1), where every collective leaves its tensor as it is.
void init_process_group(const ProcessGroupOptions& options = {});
/// Leaves the job (MPI_Finalize). Every rank calls it; it also runs at exit if nobody did.
void destroy_process_group();
/// True between init_process_group and destroy_process_group.
bool is_initialized();
/// This process's number, 0 .. world_size - 1.
int get_rank();
/// How many processes the job has.
int get_world_size();

/// A collective that may still be running (torch.distributed.Work). Copies share the operation.
class Work {
 public:
  struct State;
  Work() = default;
  explicit Work(std::shared_ptr<State> state) : state_(std::move(state)) {}
  /// Blocks until the operation finished on this rank; rethrows its error if it failed.
  /// Waiting again (or on a default-made Work) returns at once.
  void wait() const;
  /// True once the operation finished (successfully or not); never blocks.
  bool is_completed() const;

 private:
  std::shared_ptr<State> state_;
};

/// Every rank's `tensor` becomes the sum (or average, or maximum) over all ranks, element by
/// element. AVG is for floating-point tensors only.
Work all_reduce(const Tensor& tensor, ReduceOp op = ReduceOp::SUM, bool async_op = false);
/// Every rank's `tensor` becomes rank `src`'s.
Work broadcast(const Tensor& tensor, int src, bool async_op = false);
/// `output_tensors[r]` receives rank r's `input` (world_size tensors shaped like `input`).
Work all_gather(const std::vector<Tensor>& output_tensors, const Tensor& input, bool async_op = false);
/// The same into one tensor: `output` has world_size * input.numel() elements, rank r's in the
/// r-th block (torch.distributed.all_gather_into_tensor).
Work all_gather_into_tensor(const Tensor& output, const Tensor& input, bool async_op = false);
/// Reduces `input_list[r]` over every rank and leaves the result in rank r's `output`
/// (torch.distributed.reduce_scatter).
Work reduce_scatter(const Tensor& output, const std::vector<Tensor>& input_list, ReduceOp op = ReduceOp::SUM,
                    bool async_op = false);
/// The same from one tensor: `input` has world_size * output.numel() elements; rank r gets the
/// reduced r-th block (torch.distributed.reduce_scatter_tensor).
Work reduce_scatter_tensor(const Tensor& output, const Tensor& input, ReduceOp op = ReduceOp::SUM,
                           bool async_op = false);
/// Returns when every rank has called it.
Work barrier(bool async_op = false);

/// Ends the whole job at once: prints `message` (with this rank's number) on stderr and calls
/// MPI_Abort, which stops every rank -- the way out when one rank fails while the others wait in
/// a collective that will never complete. An exception that escapes main does the same once the
/// process group is initialised (init_process_group installs a std::terminate handler).
[[noreturn]] void abort_job(const std::string& message, int exit_code = 1);

}  // namespace kindling::distributed
