// Chapter 3 — why initialisation matters: push a batch through ten Linear+ReLU layers
// and watch the spread (standard deviation) of the activations with three ways of
// drawing the weights.
#include <kindling/nn.hpp>

#include <cmath>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

namespace kd = kindling;
namespace init = kd::nn::init;

int main() {
  kd::manual_seed(0);
  // [snippet: deep]
  const int depth = 10, width = 256;
  kd::nn::Sequential deep;
  for (int i = 0; i < depth; ++i)
    deep.append(kd::nn::Linear(width, width)).append(kd::nn::ReLU());
  kd::Tensor x = kd::randn({512, width});

  // Re-draw every Linear's weight with `draw`, zero the biases, and print the
  // activations' spread.
  auto report = [&](const std::string& label,
                    const std::function<void(kd::Tensor&)>& draw) {
    for (std::size_t i = 0; i < deep.size(); i += 2) {
      auto& fc = deep.at<kd::nn::Linear>(static_cast<std::ptrdiff_t>(i));
      draw(fc.weight);
      init::zeros_(fc.bias);
    }
    std::printf("%-28s", label.c_str());
    kd::NoGradGuard no_grad;
    kd::Tensor h = x;
    for (std::size_t i = 0; i < deep.size(); ++i) {
      h = deep[static_cast<std::ptrdiff_t>(i)](h);
      if (i % 4 == 3)
        std::printf(" %9.3g", h.std().item<double>());  // after ReLU 2, 4, 6, ...
    }
    std::printf("\n");
  };
  // [end]

  // [snippet: compare]
  std::printf("%-28s %9s %9s %9s %9s %9s\n", "std of activations after", "layer 2",
              "layer 4", "layer 6", "layer 8", "layer 10");
  report("normal_(w, 0, 1)", [](kd::Tensor& w) { init::normal_(w, 0.0, 1.0); });
  report("normal_(w, 0, 0.01)", [](kd::Tensor& w) { init::normal_(w, 0.0, 0.01); });
  report("default (kaiming a=sqrt 5)",
         [](kd::Tensor& w) { init::kaiming_uniform_(w, std::sqrt(5.0)); });
  report("kaiming_normal_ (relu)", [](kd::Tensor& w) {
    init::kaiming_normal_(w, 0.0, init::FanMode::FanIn, "relu");
  });
  // [end]
}
