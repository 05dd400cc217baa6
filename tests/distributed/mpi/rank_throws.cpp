// Rank 1 throws before the all-reduce that rank 0 is already waiting in. Without the terminate
// handler of init_process_group, rank 0 would wait forever; with it, the job ends with rank 1's
// message (MPI_Abort stops every rank).
#include <kindling/distributed.hpp>
#include <kindling/tensor.hpp>

#include <stdexcept>

namespace kd = kindling;
namespace dist = kindling::distributed;

int main() {
  dist::init_process_group();
  kd::Tensor t = kd::ones({4});
  if (dist::get_rank() == 1) throw std::runtime_error("the data of rank 1 is broken");
  dist::all_reduce(t);  // rank 0 waits here for rank 1
  return 0;
}
