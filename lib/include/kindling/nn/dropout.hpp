#pragma once
/// @file
/// nn::Dropout: randomly zeroes activations while training (a regulariser); identity in eval().
#include <string>

#include "kindling/nn/module.hpp"

namespace kindling::nn {

/// In train() mode each element is zeroed with probability p and the survivors are scaled by
/// 1/(1-p) ("inverted dropout"), so nothing needs rescaling at evaluation time, where it is the
/// identity. The mask comes from the global generator (kd::manual_seed).
class Dropout : public Module {
 public:
  /// `inplace` is PyTorch's flag, kept for printing (the result is always a new tensor; see ReLU).
  explicit Dropout(double p = 0.5, bool inplace = false);
  Tensor forward(const Tensor& x) override;
  std::string type_name() const override { return "Dropout"; }
  std::string extra_repr() const override;
  double p;
  bool inplace = false;
};

}  // namespace kindling::nn
