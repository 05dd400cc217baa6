#pragma once
// The C++ half of the parity harness: a case computes with Kindling what its twin in the suite's
// .py file computed with PyTorch. See README.md.
//
//   PARITY_CASE("add/broadcast") { return in["a"] + in["b"]; }
//
// `in` holds the inputs the oracle generated (same names as the Python keyword arguments). A case
// returns one tensor, or several as `{values, indices}`.
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <kindling/tensor.hpp>

namespace kd = kindling;

namespace parity {

/// The inputs of one case, by name.
class Inputs {
 public:
  kd::Tensor& operator[](const std::string& name);
  std::map<std::string, kd::Tensor>& all() { return tensors_; }

 private:
  std::map<std::string, kd::Tensor> tensors_;
};

/// What a case returns: one tensor or several.
struct Outputs {
  std::vector<kd::Tensor> tensors;
  Outputs(kd::Tensor t) : tensors{std::move(t)} {}
  Outputs(std::pair<kd::Tensor, kd::Tensor> p) : tensors{std::move(p.first), std::move(p.second)} {}
  Outputs(std::initializer_list<kd::Tensor> ts) : tensors(ts) {}
  Outputs(std::vector<kd::Tensor> ts) : tensors(std::move(ts)) {}
};

using CaseFn = std::function<Outputs(Inputs&)>;
/// Called by PARITY_CASE at static-initialisation time.
bool register_case(const char* name, CaseFn fn);

/// Autograd hooks: parity_grad.cpp (linked into suites of chapter 2 onwards) fills these in, so the
/// chapter-1 suite needs no autograd layer.
struct GradHooks {
  void (*requires_grad)(kd::Tensor& t) = nullptr;
  void (*backward)(const std::vector<kd::Tensor>& outputs, const std::vector<kd::Tensor>& grads) = nullptr;
  kd::Tensor (*grad)(const kd::Tensor& t) = nullptr;
  /// The backward graph below t as JSON, [name, [children...]] with null for an invalid edge.
  std::string (*graph)(const kd::Tensor& t) = nullptr;
};
GradHooks& grad_hooks();

/// The oracle's output folder (the runner's first argument): where a suite's Python side leaves files
/// other than a case's .npy inputs and outputs (chapter 9's model weights and printed trees).
const std::string& oracle_dir();

}  // namespace parity

#define PARITY_CONCAT_(a, b) a##b
#define PARITY_CONCAT(a, b) PARITY_CONCAT_(a, b)
#define PARITY_CASE_IMPL(name, id)                                                            \
  static parity::Outputs PARITY_CONCAT(parity_case_, id)(parity::Inputs & in);               \
  [[maybe_unused]] static const bool PARITY_CONCAT(parity_reg_, id) =                        \
      parity::register_case(name, PARITY_CONCAT(parity_case_, id));                          \
  static parity::Outputs PARITY_CONCAT(parity_case_, id)([[maybe_unused]] parity::Inputs & in)
#define PARITY_CASE(name) PARITY_CASE_IMPL(name, __COUNTER__)
