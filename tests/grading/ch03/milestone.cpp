// Chapter 3's milestone: your modules run a network PyTorch trained. milestone.py wrote PyTorch's
// weights of an MLP (Linear, ReLU, Dropout, a nested Sequential) to weights.safetensors; this program
// builds the same network from your Linear and Sequential, loads the weights with your load_state_dict
// (through your walk of the module tree), and writes its outputs in eval() mode and how it prints.
//
// The outputs need the chapter's Linear and the walk of the module tree, not its other pieces, so the
// program also runs those on the checker's numbers, drawn per run:
//   unexpected.txt   the unexpected keys a non-strict load of extra.safetensors (the weights and keys
//                    of the checker's) reports, one a line (ex5)
//   dropout.npy      Dropout(p) in train() mode on ones, p the checker's (ex3)
//   indexed.npy      model[-j] (a negative index into the Sequential, j the checker's) on h.npy (ex2)
//
//   milestone_ch03 IN_DIR OUT_DIR   (IN_DIR: weights.safetensors, x.npy, extra.safetensors, probe.npy,
//                                    h.npy; writes OUT_DIR/y.npy, repr.txt and the files above)
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

  // The probes. probe.npy: [p, j] -- the dropout probability, the negative index.
  const kd::Tensor probe = kd::load_npy(in + "/probe.npy", kd::kFloat64);
  {
    nn::Sequential copy(nn::Linear(784, 256), nn::ReLU(), nn::Dropout(0.2),
                        nn::Sequential(nn::Linear(256, 64), nn::Tanh()), nn::Linear(64, 10, {.bias = false}));
    const auto extra = copy.load_state_dict(kd::load(in + "/extra.safetensors"), /*strict=*/false);
    std::ofstream listed(out + "/unexpected.txt");
    for (const auto& key : extra.unexpected_keys) listed << key << "\n";
  }
  {
    nn::Dropout drop(probe[0].item<double>());
    drop.train();
    kd::save_npy(drop(kd::ones({4096})), out + "/dropout.npy");
  }
  {
    const auto j = static_cast<std::ptrdiff_t>(probe[1].item<double>());
    kd::save_npy(model[-j](kd::load_npy(in + "/h.npy")), out + "/indexed.npy");
  }
  return 0;
}
