// Where the memory of a training step goes, measured with the allocator's counters:
// activations kept by the graph grow with the batch; NoGradGuard and detach() keep
// none; empty_cache() lowers *reserved*, never *allocated*; a pattern of ever-new sizes
// makes the cache hold idle blocks; checkpointing trades a second forward for less
// memory.
#include <chrono>
#include <deque>
#include <vector>

#include "common.hpp"

namespace mem = kd::memory;

int main() {
  kd::manual_seed(0);
  WideNet model;
  kd::nn::CrossEntropyLoss criterion;

  // One step first: from then on the gradients exist (zero_grad() zeroes them in
  // place), so what the table shows is the activations alone.
  criterion(model(kd::randn({8, 784})), kd::randint(0, 10, {8})).backward();
  model.zero_grad();

  std::printf("== activations kept by the graph, by batch size ==\n");
  std::printf("%6s %14s %14s %16s\n", "batch", "after forward", "NoGradGuard",
              "peak, backward");
  // [snippet: batch-size]
  for (std::int64_t batch : {64, 128, 256, 512, 1024}) {
    const kd::Tensor x = kd::randn({batch, 784});
    const kd::Tensor y = kd::randint(0, 10, {batch});
    const std::size_t base = mem::memory_allocated();  // weights, gradients, x and y
    mem::reset_peak_memory_stats();
    kd::Tensor loss = criterion(model(x), y);
    const std::size_t kept = mem::memory_allocated() - base;  // the graph's activations
    loss.backward();
    const std::size_t peak = mem::max_memory_allocated() - base;
    model.zero_grad();
    std::size_t no_grad = 0;
    {
      kd::NoGradGuard guard;
      kd::Tensor logits = model(x);
      no_grad = mem::memory_allocated() - base;  // the logits only
    }
    std::printf("%6lld %10.2f MiB %10.2f MiB %12.2f MiB\n",
                static_cast<long long>(batch), mib(kept), mib(no_grad), mib(peak));
  }
  // [end]

  std::printf("\n== keeping outputs of 20 batches of 256 (an evaluation loop) ==\n");
  // [snippet: keep-less]
  std::vector<kd::Tensor> batches;
  for (int i = 0; i < 20; ++i) batches.push_back(kd::randn({256, 784}));
  auto kept_by = [&](const char* how) {
    const std::size_t base = mem::memory_allocated();
    std::vector<kd::Tensor> outputs;  // e.g. predictions kept for a confusion matrix
    for (const kd::Tensor& x : batches) {
      if (how[0] == 'g') {
        outputs.push_back(model(x));  // each output holds its whole graph
      } else if (how[0] == 'd') {
        outputs.push_back(model(x).detach());  // the graph dies here
      } else {
        kd::NoGradGuard no_grad;  // no graph is built at all
        outputs.push_back(model(x));
      }
    }
    std::printf("%-12s keeps %8.2f MiB\n", how, mib(mem::memory_allocated() - base));
  };
  kept_by("graph");
  kept_by("detach()");
  kept_by("NoGradGuard");
  // [end]

  std::printf("\n== empty_cache(): reserved goes down, allocated does not ==\n");
  // [snippet: empty-cache]
  mem::empty_cache();
  auto show = [](const char* when) {
    std::printf("%-34s allocated %7.2f MiB, reserved %7.2f MiB\n", when,
                mib(mem::memory_allocated()), mib(mem::memory_reserved()));
  };
  show("start:");
  kd::Tensor kept = kd::randn({1024, 1024});  // 4 MiB a tensor still uses
  {
    kd::Tensor loss =
        criterion(model(kd::randn({1024, 784})), kd::randint(0, 10, {1024}));
    show("forward of a batch of 1024:");
    loss.backward();
    model.zero_grad();
  }
  show("step done, tensors dropped:");
  mem::empty_cache();
  show("after empty_cache():");
  // [end]

  std::printf("\n== a batch that grows by one row each step: 20 steps ==\n");
  // [snippet: fragmentation]
  auto steps = [&](bool same_size) {
    mem::empty_cache();
    const auto before = mem::memory_stats();
    std::size_t most_reserved = 0;
    for (std::int64_t step = 0; step < 20; ++step) {
      const std::int64_t rows =
          same_size ? 128 : 128 + step;  // e.g. unpadded sequences
      kd::Tensor loss =
          criterion(model(kd::randn({rows, 784})), kd::randint(0, 10, {rows}));
      loss.backward();
      model.zero_grad();
      most_reserved = std::max(most_reserved, mem::memory_reserved());
    }
    const auto after = mem::memory_stats();
    std::printf(
        "%-10s reserved up to %6.2f MiB, idle %6.2f MiB in %3zu blocks, "
        "%3zu hits, %3zu misses\n",
        same_size ? "same size" : "growing", mib(most_reserved), mib(after.cached),
        after.cached_blocks, after.cache_hits - before.cache_hits,
        after.cache_misses - before.cache_misses);
  };
  steps(false);
  steps(true);
  // [end]

  std::printf(
      "\n== checkpointing 8 layers of 256 units in 2 segments, batch 2048 ==\n");
  // [snippet: checkpoint]
  std::deque<kd::nn::Linear> layers;  // modules stay where they are built
  for (int i = 0; i < 8; ++i) layers.emplace_back(256, 256);
  // Layers first..first+3, each followed by tanh: a segment of four layers.
  auto segment = [&layers](int first) {
    return [&layers, first](const kd::Tensor& t) {
      kd::Tensor h = t;
      for (int i = first; i < first + 4; ++i) h = layers[i](h).tanh();
      return h;
    };
  };
  const kd::Tensor x = kd::randn({2048, 256});
  auto run = [&](bool checkpointed) {
    for (auto& layer : layers) layer.zero_grad(/*set_to_none=*/true);
    const std::size_t base = mem::memory_allocated();
    mem::reset_peak_memory_stats();
    const auto start = std::chrono::steady_clock::now();
    kd::Tensor h = x;
    for (int first : {0, 4}) {
      h = checkpointed ? kd::utils::checkpoint(segment(first), h) : segment(first)(h);
    }
    kd::Tensor loss = h.pow(2).mean();
    const std::size_t kept = mem::memory_allocated() - base;
    loss.backward();
    const double ms = std::chrono::duration<double, std::milli>(
                          std::chrono::steady_clock::now() - start)
                          .count();
    std::printf("%-13s kept after forward %6.2f MiB, peak %6.2f MiB, %6.1f ms\n",
                checkpointed ? "checkpointed:" : "plain:", mib(kept),
                mib(mem::max_memory_allocated() - base), ms);
    return layers[0].weight.grad().clone();
  };
  const kd::Tensor plain = run(false);
  const kd::Tensor checkpointed = run(true);
  std::printf("same gradients: %s\n", kd::equal(plain, checkpointed) ? "yes" : "no");
  // [end]

  std::printf("\n");
  // [snippet: summary]
  std::printf("%s", mem::memory_summary().c_str());
  // [end]

  // What every step holds whatever the batch: the weights, and as much again for
  // their gradients.
  std::size_t weight_bytes = 0;
  for (const kd::Tensor& p : model.parameters())
    weight_bytes += static_cast<std::size_t>(p.numel()) * p.element_size();
  std::printf("\nweights %.2f MiB, their gradients %.2f MiB\n", mib(weight_bytes),
              mib(weight_bytes));
}
