// Chapter 4 — the DataLoader's knobs: batch_size (steps per epoch vs noise), shuffle
// (training data only), and determinism (the same seed gives the same batches for any
// number of workers).
#include <kindling/data.hpp>

#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

namespace kd = kindling;

namespace {
// "0:32" style counts of each label in a batch.
std::string label_counts(const kd::Tensor& labels) {
  std::map<std::int64_t, int> counts;
  for (auto v : labels.to_vector<std::int64_t>()) ++counts[v];
  std::string out;
  for (auto [label, count] : counts)
    out += std::to_string(label) + ":" + std::to_string(count) + " ";
  return out;
}
}  // namespace

int main() {
  kd::manual_seed(0);
  // 1,000 samples stored class by class, as many data files are: 100 of label 0,
  // then 100 of label 1, ...
  const std::int64_t n = 1000;
  kd::Tensor features = kd::randn({n, 1});
  std::vector<std::int64_t> sorted_labels(n);
  for (std::int64_t i = 0; i < n; ++i)
    sorted_labels[static_cast<std::size_t>(i)] = i / 100;
  kd::Tensor labels = kd::tensor(sorted_labels, {n});
  kd::data::TensorDataset dataset(features, labels);

  std::printf("batch_size  steps/epoch  spread of the batch means\n");
  // [snippet: batch-size]
  for (std::int64_t batch_size : {1, 8, 32, 256}) {
    kd::data::DataLoader loader(
        dataset,
        {.batch_size = batch_size, .shuffle = true, .drop_last = true, .seed = 1});
    // Each batch's mean feature is a noisy estimate of the dataset's mean (0), just as
    // a batch's gradient is a noisy estimate of the full gradient. Its spread shrinks
    // like 1/sqrt(batch_size).
    double sum = 0, sum_sq = 0;
    for (auto& [x, y] : loader) {
      const double m = x.mean().item<double>();
      sum += m, sum_sq += m * m;
    }
    const double steps = static_cast<double>(loader.size());
    const double spread = std::sqrt(sum_sq / steps - (sum / steps) * (sum / steps));
    std::printf("%10lld  %11lld  %.3f\n", static_cast<long long>(batch_size),
                static_cast<long long>(loader.size()), spread);
  }
  // [end]

  // [snippet: shuffle]
  kd::data::DataLoader in_order(dataset, {.batch_size = 32});  // shuffle = false
  kd::data::DataLoader shuffled(dataset,
                                {.batch_size = 32, .shuffle = true, .seed = 1});
  // [end]
  std::printf("\nlabels in the first 3 batches (label:count)\n");
  int k = 0;
  for (auto& [x, y] : in_order) {
    if (k++ == 3) break;  // leaving the loop early is fine: the epoch is cleaned up
    std::printf("  shuffle=false  batch %d: %s\n", k - 1, label_counts(y).c_str());
  }
  k = 0;
  for (auto& [x, y] : shuffled) {
    if (k++ == 3) break;
    std::printf("  shuffle=true   batch %d: %s\n", k - 1, label_counts(y).c_str());
  }

  // [snippet: determinism]
  // The epoch's order is drawn on the calling thread from the loader's seed; workers
  // only load.
  std::printf("\nfirst labels of epoch 1 and 2 (seed 7)\n");
  for (std::int64_t workers : {0, 1, 2, 4}) {
    kd::data::DataLoader loader(
        dataset,
        {.batch_size = 32, .shuffle = true, .num_workers = workers, .seed = 7});
    for (int epoch = 1; epoch <= 2; ++epoch) {
      auto first = (*loader.begin()).target.slice(0, 0, 8).to_vector<std::int64_t>();
      std::printf("  num_workers=%lld epoch %d: ", static_cast<long long>(workers),
                  epoch);
      for (auto v : first) std::printf("%lld ", static_cast<long long>(v));
      std::printf("\n");
    }
  }
  // [end]
}
