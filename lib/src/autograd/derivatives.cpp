// The derivative table: looking an op key up, and the helpers the formulas share.
// The rows themselves live next to each other by family: derivatives_elementwise.cpp,
// derivatives_reductions.cpp, derivatives_views.cpp, derivatives_linalg.cpp.
#include <algorithm>
#include <cstring>
#include <mutex>
#include <string>
#include <unordered_map>

#include "autograd/function.hpp"

namespace kindling::autograd {

namespace {
struct Index {
  std::unordered_map<std::string, const Derivative*> by_name;
  Index() {
    for (DerivativeTable t : {elementwise_derivatives(), reduction_derivatives(), view_derivatives(),
                              linalg_derivatives()}) {
      for (std::size_t i = 0; i < t.size; ++i) by_name.emplace(t.rows[i].op, &t.rows[i]);
    }
  }
};
const Index& index() {
  static const Index idx;
  return idx;
}
}  // namespace

const Derivative* find_derivative(const char* op) {
  // Ops pass string literals, so the same op almost always arrives with the same pointer: a tiny
  // per-thread cache keyed by the pointer avoids hashing the string on every recorded op.
  thread_local const char* last_key = nullptr;
  thread_local const Derivative* last_row = nullptr;
  if (op == last_key) return last_row;
  const auto& idx = index();
  auto it = idx.by_name.find(op);
  const Derivative* row = it == idx.by_name.end() ? nullptr : it->second;
  last_key = op;
  last_row = row;
  return row;
}

Tensor unbroadcast(const Tensor& grad, const Shape& shape) {
  if (grad.shape() == shape) return grad;
  // grad: [..lead.., s0', s1', ...]   input: [s0, s1, ...]  with si == si' or si == 1
  const std::int64_t lead = grad.dim() - static_cast<std::int64_t>(shape.size());
  std::vector<std::int64_t> dims;
  for (std::int64_t d = 0; d < lead; ++d) dims.push_back(d);
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == 1 && grad.size(lead + static_cast<std::int64_t>(i)) != 1) dims.push_back(lead + i);
  }
  Tensor summed = dims.empty() ? grad : grad.sum(dims, /*keepdim=*/true);
  return summed.reshape(shape);  // drops the (now size-1) leading dims
}

Tensor unsqueeze_reduced(const Tensor& grad, std::int64_t input_rank, const std::vector<std::int64_t>& dims,
                         bool keepdim) {
  if (keepdim || input_rank == 0) return grad;
  if (dims.empty()) return grad.reshape(Shape(static_cast<std::size_t>(input_rank), 1));
  std::vector<std::int64_t> wrapped;
  for (auto d : dims) wrapped.push_back(wrap_dim(d, input_rank, "backward"));
  std::sort(wrapped.begin(), wrapped.end());
  Tensor g = grad;
  for (auto d : wrapped) g = g.unsqueeze(d);  // ascending, so earlier insertions do not shift later ones
  return g;
}

std::int64_t reduced_count(const Shape& input_shape, const std::vector<std::int64_t>& dims) {
  if (dims.empty()) return numel_of(input_shape);
  std::int64_t n = 1;
  const auto rank = static_cast<std::int64_t>(input_shape.size());
  std::vector<bool> seen(input_shape.size(), false);
  for (auto d : dims) {
    auto w = wrap_dim(d, rank, "backward");
    if (rank == 0 || seen[w]) continue;
    seen[w] = true;
    n *= input_shape[w];
  }
  return n;
}

}  // namespace kindling::autograd
