// Chapter 1 — a softmax that does not overflow: subtract the max before exp.
#include <kindling/tensor.hpp>

#include <iostream>

namespace kd = kindling;

int main() {
  // [snippet: softmax]
  kd::Tensor logits = kd::tensor({1000.0f, 1001.0f, 1002.0f});
  kd::Tensor naive = logits.exp() / logits.exp().sum();  // inf / inf = nan
  kd::Tensor m = logits.max();
  kd::Tensor stable = (logits - m).exp() / (logits - m).exp().sum();  // exp(0) at most
  // [end]
  std::cout << "logits.exp() = " << logits.exp() << "\nnaive softmax  = " << naive
            << "\nstable softmax = " << stable
            << "\nkd::softmax    = " << kd::softmax(logits, 0)
            << "\nlog_softmax    = " << kd::log_softmax(logits, 0) << "\n";
}
