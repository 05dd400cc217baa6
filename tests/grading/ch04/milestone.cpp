// Chapter 4's milestone: your data pipeline — the shuffle, the prefetching workers, ToTensor and Normalize,
// collate — delivers Fashion-MNIST. Two epochs of batches of 100 go through it; for every image the program
// records a fingerprint (its normalized pixels dotted with a fixed vector) and its label, in the order the
// loader gave them. milestone.py checks, from the raw files, that each epoch holds every image exactly once
// with its label, and that the two epochs come in different, shuffled orders.
//
// Every image once an epoch is met by pieces that are wrong where this pipeline does not go (a biased
// shuffle, samples that are views, a flip, workers that finish out of order), so the program also runs
// each piece on the checker's numbers, drawn per run, and writes what it gave:
//   probe_perms.npy     many random_permutation(3) from the checker's seed: uniform over the 6 orders (ex1)
//   probe_collate.npy   collate_tensors of the columns of the checker's matrix (strided views) (ex2)
//   probe_flip.npy      hflip of the checker's image (ex3)
//   probe_order.npy     the samples 4 workers load (the earlier ones slower) in the order the loader
//                       hands them out: 0, 1, 2, ... (ex4)
//
//   milestone_ch04 IN_DIR OUT_DIR   (IN_DIR: an MNIST-format folder, w.npy and probe_*.npy; writes
//                                    OUT_DIR/fingerprints.npy [2, 60000] float64, OUT_DIR/labels.npy
//                                    [2, 60000] int64 and the files above)
#include <kindling/data.hpp>

#include <chrono>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

namespace kd = kindling;

namespace {
/// Samples 0..n-1 whose loading takes longer the earlier they come (sample i: (n - i) ms), so that
/// workers finish them out of order: the loader must still hand them out in order.
struct SlowFirst {
  std::int64_t n;
  std::int64_t size() const { return n; }
  kd::data::Example get(std::int64_t i) const {
    std::this_thread::sleep_for(std::chrono::milliseconds(n - i));
    return {kd::full({1}, static_cast<double>(i)), kd::scalar_tensor(i)};
  }
};
}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s IN_DIR OUT_DIR\n", argv[0]);
    return 2;
  }
  const std::string in = argv[1], out = argv[2];
  kd::manual_seed(0);
  namespace T = kd::data::transforms;
  kd::data::MNIST train(in, kd::data::Split::Train, T::Compose({T::ToTensor(), T::Normalize({0.2860}, {0.3530})}));
  kd::data::DataLoader loader(train, {.batch_size = 100, .shuffle = true, .num_workers = 2});
  const kd::Tensor w = kd::load_npy(in + "/w.npy").to(kd::kFloat64).view({784, 1});  // [784, 1]
  std::vector<kd::Tensor> prints, labels;
  for (int epoch = 0; epoch < 2; ++epoch) {
    for (auto& [images, y] : loader) {  // images [100, 1, 28, 28], y [100]
      prints.push_back(images.to(kd::kFloat64).view({images.size(0), 784}).matmul(w).view({images.size(0)}));
      labels.push_back(y);
    }
  }
  const std::int64_t n = train.size();
  kd::save_npy(kd::cat(prints, 0).view({2, n}), out + "/fingerprints.npy");
  kd::save_npy(kd::cat(labels, 0).view({2, n}), out + "/labels.npy");
  std::printf("two epochs of %lld images in %lld batches each\n", static_cast<long long>(n),
              static_cast<long long>(loader.size()));

  // The probes. probe_config: [seed, draws].
  const kd::Tensor config = kd::load_npy(in + "/probe_config.npy", kd::kInt64);
  {
    kd::Generator gen(static_cast<std::uint64_t>(config[0].item<std::int64_t>()));
    const std::int64_t draws = config[1].item<std::int64_t>();
    std::vector<std::int64_t> flat;
    for (std::int64_t k = 0; k < draws; ++k) {
      const auto p = kd::data::random_permutation(3, gen);
      flat.insert(flat.end(), p.begin(), p.end());
    }
    kd::save_npy(kd::tensor(flat, {draws, 3}), out + "/probe_perms.npy");
  }
  {
    const kd::Tensor q = kd::load_npy(in + "/probe_q.npy", kd::kFloat32);  // [r, c]
    std::vector<kd::Tensor> columns;
    for (std::int64_t i = 0; i < q.size(1); ++i) columns.push_back(q.select(1, i));  // strided views
    kd::save_npy(kd::data::collate_tensors(columns), out + "/probe_collate.npy");
  }
  kd::save_npy(kd::data::transforms::functional::hflip(kd::load_npy(in + "/probe_image.npy", kd::kFloat32)),
               out + "/probe_flip.npy");
  {
    SlowFirst slow{24};
    kd::data::DataLoader order(slow, {.batch_size = 1, .num_workers = 4});
    std::vector<kd::Tensor> got;
    for (auto& [x, y] : order) got.push_back(y.reshape({1}));
    kd::save_npy(kd::cat(got, 0).to(kd::kInt64), out + "/probe_order.npy");
  }
  return 0;
}
