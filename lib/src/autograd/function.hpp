#pragma once
// Internal to the autograd layer: the derivative table's types and the generic node (OpNode) that
// every table entry becomes. A forward op hands the recorder an OpRecord; the recorder finds the
// op's Derivative and builds an OpNode that keeps exactly what that formula needs.
#include <cstdint>
#include <vector>

#include "kindling/autograd/node.hpp"
#include "kindling/tensor/autograd_hooks.hpp"

namespace kindling::autograd {

class OpNode;

/// A tensor kept for backward, with the storage version it had when it was saved. Saving an
/// *output* keeps an alias without autograd meta: output -> grad_fn -> saved output would
/// otherwise be a reference cycle (PyTorch's SavedVariable does the same trick).
class SavedTensor {
 public:
  SavedTensor() = default;
  SavedTensor(const Tensor& t, bool is_output, std::uint32_t output_nr, const char* producer);
  /// The tensor, after checking it was not modified in place since it was saved.
  Tensor unpack(const OpNode& owner, std::size_t slot) const;
  const Tensor& peek() const { return data_; }
  void release() { data_ = Tensor(); }

 private:
  Tensor data_;
  std::uint64_t version_ = 0;
  const char* producer_ = nullptr;  // grad_fn name of the saved tensor, for the error message
  std::uint32_t output_nr_ = 0;
};

/// What a backward formula sees: incoming gradients, saved tensors, the op's arguments.
class BackwardContext {
 public:
  BackwardContext(const OpNode& node, std::vector<Tensor>& grad_outputs)
      : node_(node), grads_(grad_outputs) {}
  /// Gradient w.r.t. output i (may be undefined for multi-output ops).
  const Tensor& grad(std::size_t i = 0) const { return grads_[i]; }
  /// Saved forward input i (only inputs listed in the entry's `save` mask).
  Tensor input(std::size_t i) const;
  /// Saved forward output i (only if the entry saves outputs).
  Tensor output(std::size_t i = 0) const;
  const Shape& input_shape(std::size_t i) const;
  DType input_dtype(std::size_t i) const;
  std::size_t num_inputs() const;
  /// False when input i does not require grad: the formula may skip it.
  bool needs_input_grad(std::size_t i) const;
  const std::vector<std::int64_t>& ints() const;
  const std::vector<double>& scalars() const;
  bool flag() const;

 private:
  const OpNode& node_;
  std::vector<Tensor>& grads_;
};

using BackwardFn = std::vector<Tensor> (*)(const BackwardContext& ctx);
/// Picks the node name when it depends on the arguments (sum() vs sum(dim), matmul ranks...).
using NameFn = const char* (*)(const detail::OpRecord& rec, const std::vector<Tensor>& outputs);

// What an entry keeps for backward: bit i = forward input i; kSaveOutputs = every output.
constexpr std::uint32_t kSaveNothing = 0;
constexpr std::uint32_t kSaveInput0 = 1u << 0;
constexpr std::uint32_t kSaveInput1 = 1u << 1;
constexpr std::uint32_t kSaveInput2 = 1u << 2;
constexpr std::uint32_t kSaveAllInputs = 0xFFFFu;
constexpr std::uint32_t kSaveOutputs = 1u << 16;

/// One row of the derivative table.
struct Derivative {
  const char* op;         // key used by the forward op in detail::record ("mul")
  const char* name;       // PyTorch's node name ("MulBackward0")
  BackwardFn backward;    // grad_outputs -> grad_inputs
  std::uint32_t save;     // which tensors the formula needs
  NameFn name_fn = nullptr;  // overrides `name` when set
};

/// The generic node: one table entry + the saved state of one forward call.
class OpNode final : public Node {
 public:
  OpNode(const Derivative& d, const char* name, detail::OpRecord&& rec, const std::vector<Tensor>& outputs,
         std::vector<Edge> edges);
  const char* name() const override { return name_; }
  std::vector<Tensor> apply(std::vector<Tensor>&& grad_outputs) override;
  void release_saved() override;
  std::vector<Tensor> saved_tensors() const override;

 private:
  friend class BackwardContext;
  friend class SavedTensor;
  struct InputMeta {
    Shape shape;
    DType dtype;
  };
  const Derivative& derivative_;
  const char* name_;
  std::vector<InputMeta> inputs_;
  std::vector<SavedTensor> saved_inputs_;   // indexed like the inputs (undefined if not saved)
  std::vector<SavedTensor> saved_outputs_;
  std::vector<std::int64_t> ints_;
  std::vector<double> scalars_;
  bool flag_ = false;
  bool has_saved_ = false;
  bool released_ = false;
};

// ---- the table, one part per op family (derivatives_*.cpp) ---------------------------------------
struct DerivativeTable {
  const Derivative* rows;
  std::size_t size;
};
DerivativeTable elementwise_derivatives();
DerivativeTable reduction_derivatives();
DerivativeTable view_derivatives();
DerivativeTable linalg_derivatives();
/// The entry for `op`, or nullptr.
const Derivative* find_derivative(const char* op);

// ---- helpers shared by the formulas --------------------------------------------------------------
/// Sums a broadcast gradient back to `shape` (leading dims summed away, size-1 dims kept):
/// grad [4, 3, 5] -> shape [3, 1] sums dim 0, then dim 2 with keepdim.
Tensor unbroadcast(const Tensor& grad, const Shape& shape);
/// Re-inserts reduced dims of size 1 so a reduced gradient broadcasts against the input:
/// grad [2, 4] (x [2, 3, 4] summed over dim 1) -> [2, 1, 4]. `dims` empty = all dims.
Tensor unsqueeze_reduced(const Tensor& grad, std::int64_t input_rank, const std::vector<std::int64_t>& dims,
                         bool keepdim);
/// How many elements were reduced into each output element.
std::int64_t reduced_count(const Shape& input_shape, const std::vector<std::int64_t>& dims);

}  // namespace kindling::autograd
