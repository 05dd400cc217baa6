// Chapter 1's milestone: your tensors classify Fashion-MNIST without learning anything. Each class is
// represented by its mean image; an image gets the class whose mean is nearest. Everything runs on
// your chapter-1 pieces: the strides of every tensor, permute and select, broadcasting, the copy behind
// contiguous(), softmax and sum. The program writes the class means; milestone.py classifies the 10,000
// test images with them (images this program never sees) and judges the accuracy.
//
//   milestone_ch01 IN_DIR OUT_DIR   (IN_DIR: train_images.npy, train_labels.npy;
//                                    writes OUT_DIR/means.npy, float32 [10, 784], judged by milestone.py)
#include <kindling/tensor.hpp>

#include <cstdio>
#include <string>

namespace kd = kindling;

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s IN_DIR OUT_DIR\n", argv[0]);
    return 2;
  }
  const std::string in = argv[1], out = argv[2];
  const kd::Tensor train_images = kd::load_npy(in + "/train_images.npy");  // uint8 [60000, 28, 28]
  const kd::Tensor train_labels = kd::load_npy(in + "/train_labels.npy");  // int64 [60000]

  // Pixels as float rows in [0, 1]. The images go through a transposed view and back to row-major
  // (permute, then the strided copy); transposing every image the same way changes no distance.
  auto rows = [](const kd::Tensor& images) {
    const std::int64_t n = images.size(0);
    return images.permute({0, 2, 1}).contiguous().reshape({n, 28 * 28}).to(kd::kFloat32) / 255.0;
  };
  const kd::Tensor x = rows(train_images);  // [60000, 784]
  const kd::Tensor t = x.narrow(0, 0, 10000);  // [10000, 784]: the first training images, classified below

  // One-hot labels by broadcasting [60000, 1] against [1, 10]; class means = onehotᵀ x / counts.
  const kd::Tensor onehot = (train_labels.unsqueeze(1) == kd::arange(10).unsqueeze(0)).to(kd::kFloat32);  // [60000, 10]
  const kd::Tensor counts = onehot.sum(0);                                                  // [10]
  const kd::Tensor means = onehot.t().matmul(x) / counts.unsqueeze(1);                     // [10, 784]

  // Squared distances ‖t‖² - 2 t·m + ‖m‖², [10000, 10], then a softmax over classes of -distance: the
  // most probable class is the nearest mean.
  const kd::Tensor d2 = (t * t).sum(1, /*keepdim=*/true) - 2.0 * t.matmul(means.t()) + (means * means).sum(1).unsqueeze(0);
  const kd::Tensor probs = kd::softmax(-d2 / 10.0, 1);
  const kd::Tensor pred = probs.argmax(1);  // int64 [10000]
  // The means (in the transposed pixel order of `rows`) are what the grader judges, on the test images.
  kd::save_npy(means.to(kd::kFloat32).contiguous(), out + "/means.npy");
  const double train_acc = (pred == train_labels.narrow(0, 0, 10000)).to(kd::kFloat64).mean().item<double>();
  std::printf("nearest class mean: %lld training images in %lld classes; %.2f %% of the first 10,000 training "
              "images classified correctly; means written for the grader\n",
              static_cast<long long>(x.size(0)), static_cast<long long>(means.size(0)), 100 * train_acc);
  return 0;
}
