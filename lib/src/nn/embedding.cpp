// functional::embedding (a row lookup) and its backward (EmbeddingBackward0: scatter-add of the
// incoming rows into a zero gradient of the table's shape), plus the nn::Embedding layer.
#include <cstring>

#include "kindling/nn/embedding.hpp"
#include "kindling/nn/functional.hpp"
#include "kindling/nn/init.hpp"
#include "kindling/tensor/creation.hpp"
#include "nn/checks.hpp"
#include "nn/custom_node.hpp"
#include "tensor/dispatch.hpp"
#include "tensor/op_helpers.hpp"

namespace kindling::nn {

namespace {
class EmbeddingBackward0 final : public detail::LayerNode {
 public:
  EmbeddingBackward0(std::vector<autograd::Edge> e, Tensor indices, Shape w_shape, DType dt)
      : LayerNode(1, std::move(e)), indices_(std::move(indices)), w_shape_(std::move(w_shape)), dtype_(dt) {}
  const char* name() const override { return "EmbeddingBackward0"; }
  std::vector<Tensor> apply(std::vector<Tensor>&& grads) override {
    check_not_released();
    if (!grads[0].defined()) return {Tensor()};
    const Tensor go = kindling::detail::contiguous_copy(grads[0].to(dtype_));
    Tensor dw = zeros(w_shape_, {.dtype = dtype_});
    const std::int64_t dim = w_shape_[1];
    kindling::detail::dispatch_floating(dtype_, name(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      const std::int64_t* ip = indices_.data_ptr<std::int64_t>();
      const T* gp = go.data_ptr<T>();
      T* d = dw.data_ptr<T>();
      // A row looked up twice gets both gradients (+=), like any reused value.
      for (std::int64_t i = 0, n = indices_.numel(); i < n; ++i)
        for (std::int64_t j = 0; j < dim; ++j) d[ip[i] * dim + j] += gp[i * dim + j];
    });
    return {dw};
  }
  void release_saved() override {
    indices_ = Tensor();
    released_ = true;
  }

 private:
  Tensor indices_;  // contiguous int64 copy (checked in range)
  Shape w_shape_;
  DType dtype_;
};
}  // namespace

Tensor functional::embedding(const Tensor& indices, const Tensor& weight) {
  detail::check_same_device("embedding", {{"indices", &indices}, {"weight", &weight}});
  kindling::detail::check_cpu(weight, "embedding");
  if (indices.dtype() != kInt64) {
    throw DTypeError(std::string("embedding: indices must be int64 but got ") + dtype_name(indices.dtype()) +
                     ". Hint: convert with indices.to(kd::kInt64) (class ids read from a file are often uint8).");
  }
  if (weight.dim() != 2) throw ShapeError("embedding: weight must be 2-D [num_embeddings, embedding_dim] but has shape " + shape_str(weight.shape()));
  const std::int64_t num = weight.size(0), dim = weight.size(1);
  // A private contiguous copy: the backward must see the same indices even if the caller reuses its tensor.
  Tensor idx = kindling::detail::make_tensor(indices.shape(), kInt64);
  idx.copy_(indices);
  const std::int64_t* ip = idx.data_ptr<std::int64_t>();
  for (std::int64_t i = 0, n = idx.numel(); i < n; ++i) {
    if (ip[i] < 0 || ip[i] >= num) {
      throw IndexError("embedding: index " + std::to_string(ip[i]) + " (at flat position " + std::to_string(i) +
                       " of indices " + shape_str(indices.shape()) + ") is out of range for a table of " +
                       std::to_string(num) + " rows; valid indices are 0.." + std::to_string(num - 1) +
                       ". Hint: num_embeddings must be larger than the largest id.");
    }
  }
  const Tensor w = kindling::detail::contiguous_copy(weight);
  Shape out_shape = indices.shape();
  out_shape.push_back(dim);
  Tensor out = kindling::detail::make_tensor(out_shape, weight.dtype());
  const std::size_t row_bytes = static_cast<std::size_t>(dim) * weight.element_size();
  const char* wp = static_cast<const char*>(w.raw_data_ptr());
  char* op = static_cast<char*>(out.raw_data_ptr());
  for (std::int64_t i = 0, n = idx.numel(); i < n; ++i)
    std::memcpy(op + i * row_bytes, wp + ip[i] * row_bytes, row_bytes);
  if (detail::needs_grad({weight}))
    detail::attach(std::make_shared<EmbeddingBackward0>(detail::edges({weight}), idx, weight.shape(), weight.dtype()), out);
  return out;
}

Embedding::Embedding(std::int64_t num_embeddings, std::int64_t embedding_dim)
    : num_embeddings(num_embeddings), embedding_dim(embedding_dim) {
  if (num_embeddings < 1 || embedding_dim < 1) {
    throw ValueError("Embedding: num_embeddings and embedding_dim must be positive, got " +
                     std::to_string(num_embeddings) + " and " + std::to_string(embedding_dim));
  }
  weight = register_parameter("weight", empty({num_embeddings, embedding_dim}));
  init::normal_(weight);
}

Tensor Embedding::forward(const Tensor& indices) { return functional::embedding(indices, weight); }

}  // namespace kindling::nn
