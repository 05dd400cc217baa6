// DistributedDataParallel on an MPI job: the buckets it makes of a model's gradients,
// and the proof that N processes with a batch of B/N each train the same parameters as
// one process with the whole batch B.   mpirun -np 2 build/chapters/ch11_ddp
// book: mpirun 2
#include <algorithm>

#include "common.hpp"

namespace {

// A module's parameter names, in registration order (what parameters() returns).
std::vector<std::string> names_of(kd::nn::Module& m) {
  std::vector<std::string> names;
  for (auto& [name, p] : m.named_parameters()) names.push_back(name);
  return names;
}

std::vector<kd::Tensor> grads(kd::nn::Module& m) {
  std::vector<kd::Tensor> g;
  for (const kd::Tensor& p : m.parameters()) g.push_back(p.grad());
  return g;
}

void copy_parameters(kd::nn::Module& to, kd::nn::Module& from) {
  kd::NoGradGuard no_grad;
  auto a = to.parameters(), b = from.parameters();
  for (std::size_t i = 0; i < a.size(); ++i) a[i].copy_(b[i]);
}

}  // namespace

int main() {
  dist::init_process_group();
  const int rank = dist::get_rank(), world = dist::get_world_size();

  // ---- the buckets of chapter 5's CNN ---------------------------------------------
  {
    kd::manual_seed(0);
    CNN cnn;
    // [snippet: buckets]
    dist::DistributedDataParallel ddp(cnn);  // 1 MiB first bucket, then 25 MiB
    const auto params = cnn.parameters();
    const auto names = names_of(cnn);
    for (std::size_t b = 0; b < ddp.bucket_indices().size(); ++b) {
      std::int64_t bytes = 0;
      std::string members;
      for (std::size_t i : ddp.bucket_indices()[b]) {
        bytes += static_cast<std::int64_t>(params[i].nbytes());
        members += " " + names[i];
      }
      if (rank == 0)
        std::printf("bucket %zu: %9lld bytes:%s\n", b, static_cast<long long>(bytes),
                    members.c_str());
    }
    // [end]
  }

  // ---- N processes x B/N against 1 process x B -----------------------------------
  const std::int64_t B = 64, K = 50;
  auto train =
      kd::data::FashionMNIST(kd::data::Split::Train, kd::data::transforms::ToTensor());
  kd::data::DataLoader loader(train, {.batch_size = B});  // the first B*K images

  kd::manual_seed(100 + rank);  // other weights on each rank: DDP replaces them
  SimpleNet model, single, accumulated;
  // [snippet: equivalence]
  dist::DistributedDataParallel ddp(model);  // every rank now has rank 0's parameters
  copy_parameters(single, model);            // one process, the whole batch
  copy_parameters(accumulated, model);       // DDP again, in two micro-batches
  dist::DistributedDataParallel ddp2(accumulated);
  kd::optim::Adam opt(model.parameters(), {.lr = 1e-3});
  kd::optim::Adam opt1(single.parameters(), {.lr = 1e-3});
  kd::optim::Adam opt2(accumulated.parameters(), {.lr = 1e-3});
  kd::nn::CrossEntropyLoss criterion;
  const std::int64_t shard = B / world;  // rank r: rows r*shard .. (r+1)*shard-1
  std::int64_t step = 0;
  double first_gradients = 0, largest_gradient = 0;  // after the first backward
  for (auto& [x, y] : loader) {                      // the same batches on every rank
    if (step++ == K) break;
    const kd::Tensor xr = x.slice(0, rank * shard, (rank + 1) * shard);
    const kd::Tensor yr = y.slice(0, rank * shard, (rank + 1) * shard);
    opt.zero_grad();                    // N processes x B/N
    criterion(ddp(xr), yr).backward();  // the gradients are averaged over the ranks
    opt.step();
    opt1.zero_grad();  // 1 process x B
    criterion(single(x), y).backward();
    if (step == 1) {
      first_gradients = max_difference(grads(model), grads(single));
      for (const kd::Tensor& g : grads(single))
        largest_gradient = std::max(largest_gradient, g.abs().max().item<double>());
    }
    opt1.step();
    opt2.zero_grad();  // N processes x 2 micro-batches of B/(2N), accumulated
    const std::int64_t half = shard / 2;
    {
      auto no_sync = ddp2.no_sync();  // backward only accumulates, nothing is sent
      (criterion(ddp2(xr.slice(0, 0, half)), yr.slice(0, 0, half)) / 2).backward();
    }
    (criterion(ddp2(xr.slice(0, half, shard)), yr.slice(0, half, shard)) / 2)
        .backward();  // averages what both micro-batches added up
    opt2.step();
  }
  // [end]

  // [snippet: compare]
  // Every rank took the same steps: rank 1's parameters are rank 0's, bit for bit.
  double across_ranks = 0;
  for (const kd::Tensor& p : model.parameters()) {
    kd::Tensor highest = p.detach().clone();
    dist::all_reduce(highest, dist::ReduceOp::MAX);
    across_ranks = std::max(across_ranks, (highest - p).abs().max().item<double>());
  }
  kd::Tensor worst = kd::full({1}, across_ranks);
  dist::all_reduce(worst, dist::ReduceOp::MAX);
  if (rank == 0) {
    std::printf("after %lld Adam steps of batch %lld, %d ranks x %lld rows:\n",
                static_cast<long long>(K), static_cast<long long>(B), world,
                static_cast<long long>(shard));
    std::printf(
        "  gradients of the first step, DDP against 1 process:  %.3g "
        "(largest %.3g)\n",
        first_gradients, largest_gradient);
    std::printf("  largest difference between the ranks' parameters:    %.3g\n",
                worst.item<double>());
    std::printf("  largest difference from 1 process x %lld rows:        %.3g\n",
                static_cast<long long>(B),
                max_difference(model.parameters(), single.parameters()));
    std::printf("  the same with no_sync() and 2 micro-batches per rank: %.3g\n",
                max_difference(accumulated.parameters(), single.parameters()));
    double largest = 0;
    for (const kd::Tensor& p : single.parameters())
      largest = std::max(largest, p.abs().max().item<double>());
    std::printf("  (the largest parameter is %.3g)\n", largest);
  }
  // [end]
  dist::destroy_process_group();
  return 0;
}
