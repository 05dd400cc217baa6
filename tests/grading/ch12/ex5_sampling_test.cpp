// ch12.ex5 — detail::next_token_probs, the distribution generate() draws from: every token's
// probability for the twin's logits and settings, against torch.sort, softmax and cumsum.
#include "ch12_grading.hpp"

using namespace ch12_grading;

namespace {

/// A list of probabilities as a float64 [V] tensor.
kd::Tensor probs_tensor(const std::vector<double>& p) {
  return kd::tensor(p, kd::Shape{static_cast<std::int64_t>(p.size())});
}

/// Every row of "logits" under every (temperature, top_k, top_p) row of "settings".
void rows() {
  const kd::Tensor logits = grading::input("logits"), settings = grading::input("settings");
  for (std::int64_t r = 0; r < logits.size(0); ++r) {
    const auto row = doubles_of(logits[r]);
    for (std::int64_t i = 0; i < settings.size(0); ++i) {
      const auto s = doubles_of(settings[i]);
      grading::expect("row " + std::to_string(r) + ", setting " + std::to_string(i),
                      probs_tensor(detail::next_token_probs(row, s[0], static_cast<std::int64_t>(s[1]), s[2])));
    }
  }
}

kd::Tensor probs(const std::string& name, double t, std::int64_t k, double p) {
  return probs_tensor(detail::next_token_probs(doubles_of(grading::input(name)[0]), t, k, p));
}

}  // namespace

TEST_CASE("sampling: temperature and top-k", "[ch12][ex5][pts=4]") { rows(); }

TEST_CASE("sampling: top-p after temperature and top-k", "[ch12][ex5][pts=4]") { rows(); }

TEST_CASE("sampling: ties, and a vocabulary of one", "[ch12][ex5][pts=2]") {
  grading::expect("ties, T=1 k=2 p=1", probs("logits", 1.0, 2, 1.0));
  grading::expect("ties, T=0.5 k=0 p=0.5", probs("logits", 0.5, 0, 0.5));
  grading::expect("V=1, T=1 k=0 p=0.3", probs("one", 1.0, 0, 0.3));
}
