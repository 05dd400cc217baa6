// One rank throws while the others wait for it. Without the terminate handler of
// init_process_group the others would wait forever; with it, the job ends with the failing
// rank's message (MPI_Abort stops every rank).
//   (no argument)  rank 1 throws before an all-reduce that rank 0 is already waiting in
//   return         rank 1 returns 1 from main (as after catching its own exception) while rank 0
//                  waits for it: the exit's timed barrier ends the job
//   ddp            rank 1 throws between its forward and its backward in DistributedDataParallel
//                  training, while rank 0's backward waits for its buckets' all-reduces
#include <kindling/distributed.hpp>
#include <kindling/nn.hpp>
#include <kindling/tensor.hpp>

#include <stdexcept>
#include <string>

namespace kd = kindling;
namespace dist = kindling::distributed;

int main(int argc, char** argv) {
  dist::init_process_group();
  const int rank = dist::get_rank();
  if (argc > 1 && std::string(argv[1]) == "ddp") {
    kd::nn::Linear net(6, 2);
    dist::DistributedDataParallel ddp(net);
    for (int step = 0; step < 3; ++step) {
      kd::Tensor loss = ddp(kd::randn({4, 6})).sum();
      if (rank == 1 && step == 1) throw std::runtime_error("a NaN in the batch of rank 1 at step 1");
      loss.backward();
    }
    return 0;
  }
  kd::Tensor t = kd::ones({4});
  if (argc > 1 && std::string(argv[1]) == "return" && rank == 1) return 1;
  if (rank == 1) throw std::runtime_error("the data of rank 1 is broken");
  dist::all_reduce(t);  // rank 0 waits here for rank 1
  return 0;
}
