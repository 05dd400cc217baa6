// Chapter 3's milestone: your modules run a network PyTorch trained. milestone.py wrote PyTorch's
// weights of an MLP (Linear, ReLU, Dropout, a nested Sequential) to weights.safetensors; this program
// builds the same network from your Linear and Sequential, loads the weights with your load_state_dict
// (through your walk of the module tree), and writes its outputs in eval() mode and how it prints.
//
//   milestone_ch03 IN_DIR OUT_DIR   (IN_DIR: weights.safetensors, x.npy; writes OUT_DIR/y.npy, repr.txt)
#include <kindling/nn.hpp>

#include <cstdio>
#include <fstream>
#include <string>

namespace kd = kindling;
namespace nn = kindling::nn;

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s IN_DIR OUT_DIR\n", argv[0]);
    return 2;
  }
  const std::string in = argv[1], out = argv[2];
  nn::Sequential model(nn::Linear(784, 256), nn::ReLU(), nn::Dropout(0.2),
                       nn::Sequential(nn::Linear(256, 64), nn::Tanh()), nn::Linear(64, 10, {.bias = false}));
  const auto result = model.load_state_dict(kd::load(in + "/weights.safetensors"));
  model.eval();
  kd::NoGradGuard no_grad;
  const kd::Tensor y = model(kd::load_npy(in + "/x.npy"));  // [512, 784] -> [512, 10]
  kd::save_npy(y, out + "/y.npy");
  std::ofstream(out + "/repr.txt") << model.to_string();
  std::printf("%zu parameters loaded (%zu missing, %zu unexpected); outputs %s\n", model.parameters().size(),
              result.missing_keys.size(), result.unexpected_keys.size(), kd::shape_str(y.shape()).c_str());
  return 0;
}
