// SimpleNet on Fashion-MNIST with DistributedDataParallel: chapter 5's training loop
// with a DistributedSampler and a DDP wrapper, then the step taken apart (computation,
// communication, how much of one hides behind the other). The book runs it as 1
// process, then as 2:
//   mpirun -np 2 build/chapters/ch11_train --epochs 3
// book: mpirun 1 2
// book: run-args --epochs 3
// book: timeout 300
#include <algorithm>
#include <chrono>
#include <functional>
#include <memory>

#include "common.hpp"

namespace {

double now() {
  using clock = std::chrono::steady_clock;
  return std::chrono::duration<double>(clock::now().time_since_epoch()).count();
}

// The fastest round: on a machine shared with other work, a round that something else
// interrupted (another process, the host taking a vCPU away) only comes out slower.
double fastest(const std::vector<double>& v) {
  return *std::min_element(v.begin(), v.end());
}

// Accuracy of `model` on the whole test set (rank 0 only).
double test_accuracy(SimpleNet& model, kd::data::FashionMNIST& test_set) {
  kd::data::DataLoader loader(test_set, {.batch_size = 1000});
  model.eval();
  kd::NoGradGuard no_grad;
  std::int64_t correct = 0, seen = 0;
  for (auto& [images, labels] : loader) {
    correct += (model(images).argmax(1) == labels).sum().item<std::int64_t>();
    seen += labels.size(0);
  }
  return static_cast<double>(correct) / static_cast<double>(seen);
}

// Three kinds of step on one fixed batch, timed in `rounds` rounds of `steps` steps
// each (in alternating order), on every rank: each kind's fastest round.
struct Times {
  double step, local, comm;
};
template <class Model>
Times take_apart(Model& model, dist::DistributedDataParallel& ddp,
                 kd::optim::Adam& optimizer, const kd::Tensor& x, const kd::Tensor& y,
                 int rounds, int steps) {
  kd::nn::CrossEntropyLoss criterion;
  std::vector<kd::Tensor> buckets;  // buffers of the buckets' sizes
  const auto params = model.parameters();
  for (const auto& bucket : ddp.bucket_indices()) {
    std::int64_t n = 0;
    for (std::size_t i : bucket) n += params[i].numel();
    buckets.push_back(kd::zeros({n}));
  }
  // [snippet: breakdown]
  auto ddp_step = [&] {  // what the loop above does
    optimizer.zero_grad();
    criterion(ddp(x), y).backward();
    optimizer.step();
  };
  auto local_step = [&] {  // the same computation, nothing sent
    optimizer.zero_grad();
    auto no_sync = ddp.no_sync();
    criterion(ddp(x), y).backward();
    optimizer.step();
  };
  auto communication = [&] {  // the buckets' all-reduces alone
    std::vector<dist::Work> works;
    for (const kd::Tensor& b : buckets)
      works.push_back(dist::all_reduce(b, dist::ReduceOp::AVG, /*async_op=*/true));
    for (dist::Work& w : works) w.wait();
  };
  // [end]
  std::vector<std::function<void()>> kinds = {ddp_step, local_step, communication};
  std::vector<std::vector<double>> times(kinds.size());
  for (int round = -1; round < rounds; ++round) {  // a round to warm up
    for (std::size_t k = 0; k < kinds.size(); ++k) {
      const std::size_t kind = round % 2 ? kinds.size() - 1 - k : k;
      dist::barrier();
      const double t0 = now();
      for (int i = 0; i < steps; ++i) kinds[kind]();
      if (round >= 0) times[kind].push_back((now() - t0) / steps);
    }
  }
  return {fastest(times[0]), fastest(times[1]), fastest(times[2])};
}

}  // namespace

int main(int argc, char** argv) {
  const int epochs = int_flag(argc, argv, "epochs", 3);
  dist::init_process_group();
  const int rank = dist::get_rank(), world = dist::get_world_size();
  kd::set_num_threads(1);  // one thread per process: the ranks share the cores
  kd::manual_seed(0);
  const std::string who =
      world == 1 ? "1 process" : std::to_string(world) + " processes";

  namespace T = kd::data::transforms;
  T::Compose transform({T::ToTensor(), T::Normalize({0.2860}, {0.3530})});
  auto train_set = kd::data::FashionMNIST(kd::data::Split::Train, transform);
  auto test_set = kd::data::FashionMNIST(kd::data::Split::Test, transform);
  // [snippet: setup]
  // this rank's shard of every epoch
  auto sampler = std::make_shared<dist::DistributedSampler>(train_set.size());
  kd::data::DataLoader loader(train_set, {.batch_size = 32, .sampler = sampler});
  SimpleNet model;
  dist::DistributedDataParallel ddp(model);  // rank 0's weights, buckets, hooks
  kd::optim::Adam optimizer(model.parameters(), {.lr = 1e-3});
  kd::nn::CrossEntropyLoss criterion;
  // [end]
  if (rank == 0)
    std::printf("%s, batch 32 per process, %lld steps per epoch\n", who.c_str(),
                static_cast<long long>(loader.size()));

  for (int epoch = 0; epoch < epochs; ++epoch) {
    const double start = now();
    double total = 0;
    // [snippet: loop]
    sampler->set_epoch(epoch);  // a new order, the same on every rank
    model.train();
    for (auto& [images, labels] : loader) {
      optimizer.zero_grad();
      kd::Tensor loss = criterion(ddp(images), labels);
      loss.backward();  // and the gradients' average over the ranks
      optimizer.step();
      total += loss.item<double>();
    }
    // [end]
    const double seconds = now() - start;
    if (rank == 0) {
      const auto steps = static_cast<double>(loader.size());
      std::printf("%s, epoch %d: loss %.4f, test accuracy %.2f %% (%.1f s)\n",
                  who.c_str(), epoch + 1, total / steps,
                  100 * test_accuracy(model, test_set), seconds);
    }
  }

  // The step taken apart, on one fixed batch: in each of 15 rounds every rank times 40
  // steps of each kind (in alternating order), then the fastest round of each.
  kd::data::DataLoader fixed(train_set, {.batch_size = 32});
  auto [x, y] = *fixed.begin();
  const Times t = take_apart(model, ddp, optimizer, x, y, 15, 40);
  if (rank == 0) {
    const double step = t.step, local = t.local, comm = t.comm;
    std::printf(
        "%s, one step: DDP %.0f us, under no_sync() %.0f us, "
        "all-reduces alone %.0f us\n",
        who.c_str(), 1e6 * step, 1e6 * local, 1e6 * comm);
    std::printf("%s, DDP: %.0f steps/s, %.0f images/s\n", who.c_str(), 1 / step,
                32 * world / step);
    if (world > 1)
      std::printf(
          "%s: DDP pays %.0f us over no_sync(); "
          "hidden: %.0f %% of the all-reduces\n",
          who.c_str(), 1e6 * (step - local), 100 * (1 - (step - local) / comm));
  }

  // Chapter 5's CNN, the same breakdown: about the same bytes of gradients per step,
  // much more computation.
  {
    kd::manual_seed(0);
    CNN cnn;
    dist::DistributedDataParallel cnn_ddp(cnn);
    kd::optim::Adam cnn_optimizer(cnn.parameters(), {.lr = 1e-3});
    const Times c = take_apart(cnn, cnn_ddp, cnn_optimizer, x, y, 9, 6);
    if (rank == 0) {
      std::printf(
          "%s, CNN step: DDP %.0f us, under no_sync() %.0f us, all-reduces alone %.0f "
          "us\n",
          who.c_str(), 1e6 * c.step, 1e6 * c.local, 1e6 * c.comm);
      std::printf("%s, CNN DDP: %.0f images/s\n", who.c_str(), 32 * world / c.step);
      if (world > 1)
        std::printf(
            "%s: CNN DDP pays %.0f us over no_sync(); hidden: %.0f %% of the "
            "all-reduces\n",
            who.c_str(), 1e6 * (c.step - c.local),
            100 * (1 - (c.step - c.local) / c.comm));
      std::printf("\n");
    }
  }
  dist::destroy_process_group();
  return 0;
}
