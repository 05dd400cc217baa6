// Chapter 1's milestone: your tensors classify Fashion-MNIST without learning anything. Each class is
// represented by its mean image; an image gets the class whose mean is nearest. Everything runs on
// your chapter-1 pieces: the strides of every tensor, permute and select, broadcasting, the copy behind
// contiguous(), softmax and sum. The program writes the class means; milestone.py classifies the 10,000
// test images with them (images this program never sees) and judges the accuracy.
//
// The classifier meets the pieces only where they are easy (no empty tensor, no negative index, no
// logits large enough to overflow exp), so the program also runs them on the checker's tensors, drawn
// per run, and writes what they gave; milestone.py computes the same with numpy:
//   probe_strides.npy   the strides of a new tensor of the checker's shape, with a 0 in it (ex1)
//   probe_select.npy    p[-k] of the checker's p (ex2)
//   probe_add.npy       u [n, 1] and v [1, m] expanded to [n, m], made contiguous, added (ex3, ex4)
//   probe_softmax.npy   softmax over the rows of logits in the hundreds (ex5)
//   probe_sum.npy       the sum of every element of p (ex6)
//
//   milestone_ch01 IN_DIR OUT_DIR   (IN_DIR: train_images.npy, train_labels.npy and the checker's probe_*.npy;
//                                    writes OUT_DIR/means.npy, float32 [10, 784], judged by milestone.py,
//                                    and the files above)
#include <kindling/tensor.hpp>

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

  // The probes. probe_shape: a shape with a 0 in it; probe_k: the negative index's distance from the end.
  auto load = [&](const char* name) { return kd::load_npy(in + "/probe_" + name + ".npy"); };
  const kd::Tensor shape_t = load("shape");
  std::vector<std::int64_t> shape;
  for (std::int64_t i = 0; i < shape_t.numel(); ++i) shape.push_back(shape_t[i].item<std::int64_t>());
  const kd::Tensor empty = kd::empty(shape);
  std::vector<std::int64_t> strides(empty.strides().begin(), empty.strides().end());
  kd::save_npy(kd::tensor(strides, {static_cast<std::int64_t>(strides.size())}), out + "/probe_strides.npy");
  const kd::Tensor p = load("p");  // [r, c]
  kd::save_npy(p[-load("k").item<std::int64_t>()].contiguous(), out + "/probe_select.npy");
  const kd::Tensor u = load("u"), v = load("v");  // [r, 1], [1, c]: each stretched by expand (ex3)
  kd::save_npy(u.expand({u.size(0), v.size(1)}).contiguous() + v.expand({u.size(0), v.size(1)}).contiguous(),
               out + "/probe_add.npy");
  kd::save_npy(kd::softmax(load("logits"), 1), out + "/probe_softmax.npy");
  kd::save_npy(p.sum(), out + "/probe_sum.npy");
  return 0;
}
