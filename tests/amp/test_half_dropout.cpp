// dropout on float16/bfloat16 input (issue 28): PyTorch 1.13 runs it on the CPU in both dtypes.
// The mask is random, so this checks what a parity case cannot: each element is either 0 or x
// scaled by 1/(1-p) (exact here: p = 0.5 scales by 2), and the gradient is the same mask.
#include <catch2/catch.hpp>

#include <kindling/kindling.hpp>

namespace kd = kindling;
namespace F = kindling::nn::functional;

TEST_CASE("dropout: float16 and bfloat16 inputs keep their dtype, survivors are scaled and gradients follow the mask") {
  for (kd::DType dt : {kd::kFloat16, kd::kBFloat16}) {
    kd::manual_seed(3);
    kd::Tensor x = kd::randn({64, 32}).to(dt).requires_grad_();
    kd::Tensor y = F::dropout(x, 0.5, true);
    CHECK(y.dtype() == dt);
    y.sum().backward();
    const auto xv = x.detach().to(kd::kFloat32).to_vector<float>();
    const auto yv = y.detach().to(kd::kFloat32).to_vector<float>();
    const auto gv = x.grad().to(kd::kFloat32).to_vector<float>();
    std::size_t kept = 0;
    for (std::size_t i = 0; i < xv.size(); ++i) {
      const bool keep = gv[i] != 0.0f;
      kept += keep;
      CHECK(gv[i] == (keep ? 2.0f : 0.0f));
      CHECK(yv[i] == (keep ? 2.0f * xv[i] : 0.0f));
    }
    CHECK(kept > xv.size() / 3);  // about half of 2048 survive; a third is 15 standard deviations away
    CHECK(kept < 2 * xv.size() / 3);
  }
}
