// The Kindling half of the PyTorch DDP oracle (tests/distributed/ddp_oracle.py): every rank of an
// mpirun job trains the oracle's network with DistributedDataParallel on its shard of each batch,
// from the oracle's weights, with the oracle's bucket sizes, SGD with momentum and a BatchNorm whose
// running statistics DDP broadcasts from rank 0 before each forward. The driver runs the same
// training with PyTorch's DistributedDataParallel over its gloo backend and compares what this
// program writes: the parameters and buffers after the last step, every rank's losses, and the
// bucket assignment.
//
//   mpi_ddp_oracle DIR   reads  DIR/init.<name>.npy (the state_dict), DIR/x.npy [steps, batch, 20],
//                               DIR/y.npy [steps, batch] (int64), DIR/config.txt
//                        writes DIR/kindling.<rank>.<name>.npy, DIR/kindling.loss.<rank>.npy,
//                               DIR/kindling.buckets.txt (rank 0: one bucket per line, its
//                               parameters' indices in all-reduce order)
#include <kindling/distributed.hpp>
#include <kindling/nn.hpp>
#include <kindling/optim/sgd.hpp>
#include <kindling/tensor.hpp>
#include <kindling/train/losses.hpp>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

namespace kd = kindling;
namespace dist = kindling::distributed;

namespace {
// The oracle's network, with the same names and registration order as its PyTorch twin.
struct Net : kd::nn::Module {
  kd::nn::Linear fc1{20, 64};
  kd::nn::BatchNorm1d bn{64};
  kd::nn::ReLU relu;
  kd::nn::Linear fc2{64, 32};
  kd::nn::Linear fc3{32, 5};
  Net() {
    register_module("fc1", fc1);
    register_module("bn", bn);
    register_module("relu", relu);
    register_module("fc2", fc2);
    register_module("fc3", fc3);
  }
  kd::Tensor forward(const kd::Tensor& x) override { return fc3(relu(fc2(relu(bn(fc1(x)))))); }
};
}  // namespace

int main(int argc, char** argv) {
  dist::init_process_group();
  const int rank = dist::get_rank(), world = dist::get_world_size();
  if (argc != 2) dist::abort_job("usage: mpi_ddp_oracle DIR (run by tests/distributed/ddp_oracle.py)");
  const std::string dir = argv[1];
  // config.txt: lr momentum first_bucket_bytes bucket_cap_bytes
  double lr = 0, momentum = 0, first_bytes = 0, cap_bytes = 0;
  {
    std::ifstream config(dir + "/config.txt");
    if (!(config >> lr >> momentum >> first_bytes >> cap_bytes)) dist::abort_job("cannot read " + dir + "/config.txt");
  }
  Net net;
  kd::nn::StateDict init;
  for (const auto& [name, value] : net.state_dict()) {
    init.insert(name, kd::load_npy(dir + "/init." + name + ".npy", value.dtype()));
  }
  // Rank 1 starts from other weights: DDP's broadcast from rank 0 must replace them.
  if (rank == 0) net.load_state_dict(init);
  dist::DistributedDataParallel ddp(net, {.bucket_cap_mb = cap_bytes / (1 << 20), .first_bucket_mb = first_bytes / (1 << 20)});
  kd::optim::SGD opt(net.parameters(), {.lr = lr, .momentum = momentum});
  kd::nn::CrossEntropyLoss criterion;
  const kd::Tensor x = kd::load_npy(dir + "/x.npy", kd::kFloat32);  // [steps, world * b, 20]
  const kd::Tensor y = kd::load_npy(dir + "/y.npy", kd::kInt64);    // [steps, world * b]
  const std::int64_t steps = x.size(0), b = x.size(1) / world;
  std::vector<double> losses;
  for (std::int64_t step = 0; step < steps; ++step) {
    // this rank's shard of the step's batch: rows [rank * b, (rank + 1) * b)
    const kd::Tensor xs = x[step].slice(0, rank * b, (rank + 1) * b), ys = y[step].slice(0, rank * b, (rank + 1) * b);
    opt.zero_grad();
    kd::Tensor loss = criterion(ddp(xs), ys);
    loss.backward();
    opt.step();
    losses.push_back(loss.item<double>());
  }
  kd::save_npy(kd::tensor(losses, {steps}), dir + "/kindling.loss." + std::to_string(rank) + ".npy");
  for (const auto& [name, value] : net.state_dict()) {
    kd::save_npy(value, dir + "/kindling." + std::to_string(rank) + "." + name + ".npy");
  }
  if (rank == 0) {
    std::ofstream buckets(dir + "/kindling.buckets.txt");
    for (const auto& bucket : ddp.bucket_indices()) {
      for (std::size_t k = 0; k < bucket.size(); ++k) buckets << (k ? " " : "") << bucket[k];
      buckets << "\n";
    }
  }
  dist::barrier();
  dist::destroy_process_group();
  return 0;
}
