// `total += loss.item()` versus keeping loss tensors, measured with the allocation
// meter (kd::memory::allocated_bytes(): bytes of tensor storage alive right now).
#include "common.hpp"

namespace {
double megabytes(std::size_t bytes) { return static_cast<double>(bytes) / 1048576.0; }
}  // namespace

int main() {
  kd::manual_seed(0);
  auto train_set = fashion(kd::data::Split::Train);
  // 200 batches are enough to see the trend.
  kd::data::Subset<kd::data::FashionMNIST> part(train_set, [] {
    std::vector<std::int64_t> idx(6400);
    for (std::int64_t i = 0; i < 6400; ++i) idx[i] = i;
    return idx;
  }());
  kd::data::DataLoader loader(part, {.batch_size = 32});
  SimpleNet model;
  kd::optim::Adam optimizer(model.parameters(), {.lr = 1e-3});
  kd::nn::CrossEntropyLoss criterion;

  // [snippet: item]
  double total = 0;              // a plain number
  std::vector<kd::Tensor> kept;  // the anti-pattern: loss tensors
  for (auto& [images, labels] : loader) {
    optimizer.zero_grad();
    kd::Tensor loss = criterion(model(images), labels);
    loss.backward();
    optimizer.step();
    total += loss.item<double>();  // one float out: the tensor and graph can die
    kept.push_back(loss);          // keeps the tensor and its grad_fn chain alive
  }
  // [end]
  std::printf("training, %lld steps: mean loss %.4f\n",
              static_cast<long long>(loader.size()), total / loader.size());
  std::printf("  kept %zu loss tensors: %.4f MB of storage (backward already freed"
              " their saved activations)\n",
              kept.size(), megabytes(kept.size() * sizeof(float)));
  kept.clear();

  // Where it really hurts: keeping outputs of a loop that never calls backward — an
  // evaluation loop without NoGradGuard. Every output holds its whole graph (inputs,
  // activations).
  // [snippet: eval-graphs]
  std::vector<kd::Tensor> outputs;
  const std::size_t before = kd::memory::allocated_bytes();
  for (auto& [images, labels] : loader)
    outputs.push_back(model(images));  // graphs kept!
  const std::size_t with_graph = kd::memory::allocated_bytes() - before;
  outputs.clear();
  {
    kd::NoGradGuard no_grad;
    for (auto& [images, labels] : loader)
      outputs.push_back(model(images));  // just [32, 10] each
  }
  const std::size_t without_graph = kd::memory::allocated_bytes() - before;
  // [end]
  std::printf("keeping %zu outputs of an eval pass:\n", outputs.size());
  std::printf(
      "  without NoGradGuard: %8.2f MB alive (each output holds its input batch and "
      "activations)\n",
      megabytes(with_graph));
  std::printf("  with NoGradGuard:    %8.2f MB alive (just the [32, 10] logits)\n",
              megabytes(without_graph));
  return 0;
}
