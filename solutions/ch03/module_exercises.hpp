#pragma once
/// @file
/// Chapter 3's exercises: build the pieces of kindling::nn yourself, on top of the library's Module base
/// and its differentiable tensor ops. Each class or function behaves like its library counterpart (named
/// in its comment); the graded tests run both on the same inputs and compare outputs, gradients,
/// registered names and running statistics.
///
/// Write your answers in the matching .cpp files of this folder, then run `make grade CH=03`.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <kindling/nn.hpp>

namespace kindling::exercises::ch03 {

// ---- ex1: a Linear layer from autograd ops ---------------------------------------------------------

/// y = x·Wᵀ + b for x: [*, in_features] → [*, out_features], built from tensor ops (matmul, t, +) so
/// autograd differentiates it. The constructor registers "weight" [out, in] (and "bias" [out] when
/// `bias` is true) and initialises them like PyTorch: weight with kaiming_uniform_(a = √5), which is
/// U(-1/√in, 1/√in), bias with U(-1/√in, 1/√in). Draw from the global generator (kd::manual_seed).
/// Library counterpart: kindling::nn::Linear.
class Linear : public nn::Module {
 public:
  Linear(std::int64_t in_features, std::int64_t out_features, bool bias = true);
  /// Draws fresh weight (and bias) values from the default initialisation.
  void reset_parameters();
  Tensor forward(const Tensor& x) override;
  std::string type_name() const override { return "Linear"; }

  std::int64_t in_features, out_features;
  Tensor weight;  ///< [out_features, in_features]
  Tensor bias;    ///< [out_features]; undefined when bias is false
};

// ---- ex2: a Sequential container -------------------------------------------------------------------

/// Runs its children in order: forward(x) = child_n(...child_1(child_0(x))); an empty Sequential returns
/// x. Each child is owned (through a std::shared_ptr) and registered under its position: "0", "1", ...
/// so that parameters, state_dict, train()/eval() and printing see it. Library counterpart:
/// kindling::nn::Sequential.
class Sequential : public nn::Module {
 public:
  /// Appends `module` as the next child (registered under the name std::to_string(size())).
  Sequential& push_back(std::shared_ptr<nn::Module> module);
  /// Convenience: append a module given by value, `seq.append(kd::nn::ReLU())`.
  template <class M>
  Sequential& append(M module) {
    return push_back(std::make_shared<M>(std::move(module)));
  }
  Tensor forward(const Tensor& x) override;
  /// The number of children.
  std::size_t size() const;
  /// The i-th child (0-based); throws kindling::IndexError when i >= size().
  nn::Module& operator[](std::size_t i) const;
  std::string type_name() const override { return "Sequential"; }

 private:
  std::vector<std::shared_ptr<nn::Module>> layers_;  ///< the children, in order
};

// ---- ex3: Dropout with train/eval --------------------------------------------------------------------

/// In training mode, zeroes each element of x independently with probability p and multiplies the
/// survivors by 1/(1-p) ("inverted dropout": the expected value is unchanged); with p = 1 the output is
/// all zeros. In eval mode (or with p = 0) it returns x unchanged. Differentiable (build it from tensor
/// ops). Random numbers from the global generator. Library counterpart: kindling::nn::Dropout.
class Dropout : public nn::Module {
 public:
  /// Throws kindling::ValueError unless 0 <= p <= 1.
  explicit Dropout(double p = 0.5);
  Tensor forward(const Tensor& x) override;
  std::string type_name() const override { return "Dropout"; }
  double p;
};

// ---- ex4: walking the module tree ----------------------------------------------------------------------

/// Every parameter of `module` and of all its descendants, with dotted names ("fc1.weight",
/// "encoder.0.bias"), in registration order: a module's own parameters first, then each child's, depth
/// first. `prefix` (if not empty) is prepended as "prefix.name". A tensor shared by two modules, or a
/// module registered twice, is listed once (under the first name met). Use only
/// module.named_parameters(..., /*recurse=*/false) and module.named_children().
/// Library counterpart: module.named_parameters(prefix).
std::vector<std::pair<std::string, Tensor>> collect_named_parameters(const nn::Module& module,
                                                                     const std::string& prefix = "");

/// The number of parameter elements (each shared tensor counted once); with only_trainable, only those
/// that require grad. Library counterpart: module.num_parameters(only_trainable).
std::int64_t count_parameters(const nn::Module& module, bool only_trainable = false);

// ---- ex5: a two-branch module --------------------------------------------------------------------------

/// The seed's "two paths fused" network:
///
///     x [N, in] ─ branch_a: Linear(in, hidden) → ReLU ─┐
///               └ branch_b: Linear(in, hidden) → Tanh ─┴ cat(dim 1) [N, 2·hidden] → head: Linear(2·hidden, out)
///
/// The constructor creates the three layers (kindling::nn::Linear) and registers them, in this order,
/// as "branch_a", "branch_b" and "head".
class TwoBranchNet : public nn::Module {
 public:
  TwoBranchNet(std::int64_t in_features, std::int64_t hidden, std::int64_t out_features);
  Tensor forward(const Tensor& x) override;  // x: [N, in] → [N, out]

  std::shared_ptr<nn::Linear> branch_a, branch_b, head;
};

// ---- ex6: BatchNorm1d and its running statistics ---------------------------------------------------------

/// Batch normalisation of x: [N, C] (any other rank throws kindling::ShapeError) per feature c:
///   training: y = (x - mean_batch) / sqrt(var_batch + eps) · weight + bias, with the *biased* batch
///             variance; then, without recording autograd history and in place,
///             running_mean = (1 - momentum)·running_mean + momentum·mean_batch,
///             running_var  = (1 - momentum)·running_var  + momentum·(the *unbiased* batch variance),
///             num_batches_tracked += 1.
///   eval:     y = (x - running_mean) / sqrt(running_var + eps) · weight + bias; nothing is updated.
/// Registers parameters "weight" (ones) and "bias" (zeros), and buffers "running_mean" (zeros),
/// "running_var" (ones) and "num_batches_tracked" (a 0-d int64 zero), in this order.
/// Library counterpart: kindling::nn::BatchNorm1d.
class BatchNorm1d : public nn::Module {
 public:
  explicit BatchNorm1d(std::int64_t num_features, double eps = 1e-5, double momentum = 0.1);
  Tensor forward(const Tensor& x) override;
  std::string type_name() const override { return "BatchNorm1d"; }

  std::int64_t num_features;
  double eps, momentum;
  Tensor weight, bias;                                     ///< parameters [C]
  Tensor running_mean, running_var, num_batches_tracked;  ///< buffers [C], [C], []
};

}  // namespace kindling::exercises::ch03
