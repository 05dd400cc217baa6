// functional::embedding (a row lookup) and its backward (EmbeddingBackward0: scatter-add of the
// incoming rows into a zero gradient of the table's shape), plus the nn::Embedding layer.
#include <cstring>

#include "kindling/nn/embedding.hpp"
#include "kindling/nn/functional.hpp"
#include "kindling/nn/init.hpp"
#include "kindling/tensor/creation.hpp"
#include "nn/checks.hpp"
#include "kindling/autograd/function.hpp"
#include "tensor/dispatch.hpp"
#include "tensor/op_helpers.hpp"

namespace kindling::nn {

namespace {
// out[i, :] = weight[indices[i], :]        d weight[r, :] = Σ over i with indices[i] == r of g[i, :]
struct EmbeddingLookup : autograd::Function<EmbeddingLookup> {
  static constexpr const char* name = "EmbeddingBackward0";
  Shape w_shape;
  DType dtype = kFloat32;

  Tensor forward(autograd::Context& ctx, const Tensor& weight, const autograd::NonDifferentiable& indices) {
    const Tensor& idx = indices.tensor;  // contiguous int64, checked in range
    w_shape = weight.shape();
    dtype = weight.dtype();
    const std::int64_t dim = weight.size(1);
    const Tensor w = kindling::detail::contiguous_copy(weight);
    Shape out_shape = idx.shape();
    out_shape.push_back(dim);
    Tensor out = kindling::detail::make_tensor(out_shape, weight.dtype());
    const std::size_t row_bytes = static_cast<std::size_t>(dim) * weight.element_size();
    const char* wp = static_cast<const char*>(w.raw_data_ptr());
    char* op = static_cast<char*>(out.raw_data_ptr());
    const std::int64_t* ip = idx.data_ptr<std::int64_t>();
    for (std::int64_t i = 0, n = idx.numel(); i < n; ++i)
      std::memcpy(op + i * row_bytes, wp + ip[i] * row_bytes, row_bytes);
    ctx.save_for_backward({idx});
    return out;
  }

  autograd::Grads backward(autograd::Context& ctx, const autograd::Grads& grads) {
    const Tensor indices = ctx.saved(0);
    if (kindling::detail::grad_mode_enabled()) {
      // create_graph: the same scatter-add written as a recorded op, so that the table's gradient can
      // be differentiated again (it is linear in the incoming rows; PyTorch's
      // EmbeddingBackwardBackward0 looks them up again).
      const std::int64_t dim = w_shape[1];
      const Tensor rows = grads[0].reshape({-1, dim});                            // [n, dim]
      const Tensor index = indices.reshape({-1, 1}).expand({rows.size(0), dim});  // [n, dim]
      return {zeros(w_shape, {.dtype = grads[0].dtype()}).scatter_add(0, index, rows).to(dtype)};
    }
    // float16/bfloat16: the sums of a row looked up several times accumulate in float32 and are
    // rounded once at the end.
    const DType wide = kindling::detail::compute_dtype_of(dtype);
    const Tensor go = kindling::detail::contiguous_copy(kindling::detail::cast(grads[0], wide));
    Tensor dw = zeros(w_shape, {.dtype = wide});
    const std::int64_t dim = w_shape[1], rows = w_shape[0];
    kindling::detail::dispatch_floating(wide, name, [&](auto tag) {
      using T = typename decltype(tag)::type;
      const std::int64_t* ip = indices.data_ptr<std::int64_t>();
      const T* gp = go.data_ptr<T>();
      T* d = dw.data_ptr<T>();
      // A row looked up twice gets both gradients (+=), like any reused value.
      for (std::int64_t i = 0, n = indices.numel(); i < n; ++i) {
        if (ip[i] < 0 || ip[i] >= rows) throw IndexError("EmbeddingBackward0: saved index out of range");
        for (std::int64_t j = 0; j < dim; ++j) d[ip[i] * dim + j] += gp[i * dim + j];
      }
    });
    return {kindling::detail::cast(dw, dtype)};
  }
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
  (void)dim;
  return EmbeddingLookup::apply(weight, autograd::NonDifferentiable{idx});
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
