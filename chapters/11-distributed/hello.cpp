// The first MPI job: every process learns its rank and the world's size, and the
// processes add up a tensor together. Run it as two processes:
//   mpirun -np 2 build/chapters/ch11_hello
// book: mpirun 2
#include <iostream>
#include <kindling/distributed.hpp>
#include <kindling/kindling.hpp>
#include <vector>

namespace kd = kindling;
namespace dist = kd::distributed;

int main() {
  // [snippet: hello]
  dist::init_process_group();                // mpirun told each process who it is
  const int rank = dist::get_rank();         // 0 or 1
  const int world = dist::get_world_size();  // 2
  kd::Tensor t = kd::full({4}, rank + 1.0);  // rank 0: 1s, rank 1: 2s
  const kd::Tensor before = t.clone();
  dist::all_reduce(t);  // the sum over the ranks, on every rank
  kd::Tensor mean = before.clone();
  dist::all_reduce(mean, dist::ReduceOp::AVG);  // the average
  // [end]

  // [snippet: gather]
  // Two processes writing to one terminal interleave their lines: rank 0 gathers what
  // every rank holds and prints for all of them.
  std::vector<kd::Tensor> befores, afters;
  for (int r = 0; r < world; ++r) {
    befores.push_back(kd::empty({4}));
    afters.push_back(kd::empty({4}));
  }
  dist::all_gather(befores, before);
  dist::all_gather(afters, t);
  if (rank == 0) {
    std::cout << "world size " << world << "\n";
    for (int r = 0; r < world; ++r)
      std::cout << "rank " << r << ": " << befores[r] << " -> all_reduce -> "
                << afters[r] << "\n";
    std::cout << "average: " << mean << "\n";
  }
  dist::destroy_process_group();  // every rank, at the end
  // [end]
  return 0;
}
