#pragma once
/// @file
/// Activation layers: stateless modules that apply one function elementwise (or along `dim`).
#include <cstdint>
#include <string>

#include "kindling/nn/module.hpp"

namespace kindling::nn {

/// max(x, 0).
///
/// `inplace` is PyTorch's flag (torchvision builds `ReLU(inplace=True)`): it is kept so that a model
/// prints as PyTorch prints it, but the result is always a new tensor. The values are the same; what
/// is not reproduced is PyTorch's memory saving, and with it the risk of overwriting a tensor that
/// an earlier op saved for backward.
class ReLU : public Module {
 public:
  ReLU() = default;
  explicit ReLU(bool inplace) : inplace(inplace) {}
  Tensor forward(const Tensor& x) override;
  std::string type_name() const override { return "ReLU"; }
  std::string extra_repr() const override { return inplace ? "inplace=True" : ""; }
  bool inplace = false;
};

/// min(max(x, 0), 6) (MobileNetV2's activation). `inplace` as for ReLU.
class ReLU6 : public Module {
 public:
  ReLU6() = default;
  explicit ReLU6(bool inplace) : inplace(inplace) {}
  Tensor forward(const Tensor& x) override;
  std::string type_name() const override { return "ReLU6"; }
  std::string extra_repr() const override { return inplace ? "inplace=True" : ""; }
  bool inplace = false;
};

/// x·relu6(x + 3)/6 (MobileNetV3's activation). `inplace` as for ReLU.
class Hardswish : public Module {
 public:
  Hardswish() = default;
  explicit Hardswish(bool inplace) : inplace(inplace) {}
  Tensor forward(const Tensor& x) override;
  std::string type_name() const override { return "Hardswish"; }
  // PyTorch's Hardswish keeps the flag but prints none: "Hardswish()" either way.
  bool inplace = false;
};

/// 1 / (1 + e^-x).
class Sigmoid : public Module {
 public:
  Tensor forward(const Tensor& x) override;
  std::string type_name() const override { return "Sigmoid"; }
};

class Tanh : public Module {
 public:
  Tensor forward(const Tensor& x) override;
  std::string type_name() const override { return "Tanh"; }
};

/// x·Φ(x); `approximate` is "none" (exact, with erf) or "tanh".
class GELU : public Module {
 public:
  explicit GELU(std::string approximate = "none");
  Tensor forward(const Tensor& x) override;
  std::string type_name() const override { return "GELU"; }
  std::string extra_repr() const override { return "approximate='" + approximate + "'"; }
  std::string approximate;
};

/// x for x > 0, negative_slope·x otherwise.
class LeakyReLU : public Module {
 public:
  explicit LeakyReLU(double negative_slope = 0.01) : negative_slope(negative_slope) {}
  Tensor forward(const Tensor& x) override;
  std::string type_name() const override { return "LeakyReLU"; }
  std::string extra_repr() const override;
  double negative_slope;
};

/// x·σ(x) (EfficientNet's activation). `inplace` as for ReLU.
class SiLU : public Module {
 public:
  SiLU() = default;
  explicit SiLU(bool inplace) : inplace(inplace) {}
  Tensor forward(const Tensor& x) override;
  std::string type_name() const override { return "SiLU"; }
  std::string extra_repr() const override { return inplace ? "inplace=True" : ""; }
  bool inplace = false;
};

/// x for x > 0, alpha·(eˣ - 1) otherwise.
class ELU : public Module {
 public:
  explicit ELU(double alpha = 1.0) : alpha(alpha) {}
  Tensor forward(const Tensor& x) override;
  std::string type_name() const override { return "ELU"; }
  std::string extra_repr() const override;
  double alpha;
};

/// log(1 + e^(β·x)) / β, and x itself where β·x > threshold.
class Softplus : public Module {
 public:
  explicit Softplus(double beta = 1.0, double threshold = 20.0) : beta(beta), threshold(threshold) {}
  Tensor forward(const Tensor& x) override;
  std::string type_name() const override { return "Softplus"; }
  std::string extra_repr() const override;
  double beta, threshold;
};

/// exp(x) / sum(exp(x)) along `dim`.
class Softmax : public Module {
 public:
  explicit Softmax(std::int64_t dim) : dim(dim) {}
  Tensor forward(const Tensor& x) override;
  std::string type_name() const override { return "Softmax"; }
  std::string extra_repr() const override { return "dim=" + std::to_string(dim); }
  std::int64_t dim;
};

/// log(softmax(x)) along `dim`, computed stably.
class LogSoftmax : public Module {
 public:
  explicit LogSoftmax(std::int64_t dim) : dim(dim) {}
  Tensor forward(const Tensor& x) override;
  std::string type_name() const override { return "LogSoftmax"; }
  std::string extra_repr() const override { return "dim=" + std::to_string(dim); }
  std::int64_t dim;
};

}  // namespace kindling::nn
