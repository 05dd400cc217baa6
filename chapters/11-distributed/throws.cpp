// One rank fails while the other waits for it in a collective that can never complete.
// The library ends the whole job with the failing rank's message instead of letting
// rank 0 wait forever:  mpirun -np 2 build/chapters/ch11_throws
// book: mpirun 2
// book: exit-status 1
#include "common.hpp"

int main() {
  dist::init_process_group();
  const int rank = dist::get_rank();
  // [snippet: throws]
  kd::Tensor t = kd::ones({4});
  if (rank == 1) throw kd::ValueError("rank 1 found a NaN in its batch");
  dist::all_reduce(t);  // rank 0 waits here for rank 1, which never comes
  // [end]
  std::printf("rank %d: not reached\n", rank);
  dist::destroy_process_group();
  return 0;
}
