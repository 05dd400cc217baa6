#pragma once
/// @file
/// nn::Flatten: [N, C, H, W] → [N, C·H·W] (by default keeps the batch dimension).
#include <cstdint>
#include <string>

#include "kindling/nn/module.hpp"

namespace kindling::nn {

class Flatten : public Module {
 public:
  explicit Flatten(std::int64_t start_dim = 1, std::int64_t end_dim = -1)
      : start_dim(start_dim), end_dim(end_dim) {}
  Tensor forward(const Tensor& x) override;
  std::string type_name() const override { return "Flatten"; }
  std::string extra_repr() const override {
    return "start_dim=" + std::to_string(start_dim) + ", end_dim=" + std::to_string(end_dim);
  }
  std::int64_t start_dim, end_dim;
};

}  // namespace kindling::nn
