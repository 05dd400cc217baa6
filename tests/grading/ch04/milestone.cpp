// Chapter 4's milestone: your data pipeline — the shuffle, the prefetching workers, ToTensor and Normalize,
// collate — delivers Fashion-MNIST. Two epochs of batches of 100 go through it; for every image the program
// records a fingerprint (its normalized pixels dotted with a fixed vector) and its label, in the order the
// loader gave them. milestone.py checks, from the raw files, that each epoch holds every image exactly once
// with its label, and that the two epochs come in different, shuffled orders.
//
//   milestone_ch04 IN_DIR OUT_DIR   (IN_DIR: an MNIST-format folder and w.npy; writes OUT_DIR/fingerprints.npy
//                                    [2, 60000] float64 and OUT_DIR/labels.npy [2, 60000] int64)
#include <kindling/data.hpp>

#include <cstdio>
#include <string>
#include <vector>

namespace kd = kindling;

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
  return 0;
}
