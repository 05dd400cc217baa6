// functional::layer_norm: forward and a fused backward, as one autograd::Function
// (NativeLayerNormBackward0).
//
// x: [*, D₁…Dₖ] viewed as rows [R, D] (D = D₁·…·Dₖ = normalized_shape's numel). Each row is
// normalised with its own mean and biased variance; weight and bias ([D₁…Dₖ]) scale and shift.
//   backward per row, with ĝ = g·w:  dx = invstd/D · (D·ĝ - Σĝ - x̂·Σ(ĝ·x̂));  dw = Σ_rows g·x̂;  db = Σ_rows g.
#include <cmath>

#include "kindling/nn/functional.hpp"
#include "kindling/tensor/creation.hpp"
#include "nn/checks.hpp"
#include "kindling/autograd/function.hpp"
#include "tensor/dispatch.hpp"
#include "tensor/op_helpers.hpp"

namespace kindling::nn::functional {

namespace {

// Σ f(i) for i < n in double, in 8 interleaved partial sums: one running sum is a chain of
// dependent additions the CPU cannot overlap (and the compiler may not reorder); eight are
// independent, and vectorise.
template <class F> double lane_sum(std::int64_t n, F f) {
  double acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  std::int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    for (int j = 0; j < 8; ++j) acc[j] += f(i + j);
  double total = ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]));
  for (; i < n; ++i) total += f(i);
  return total;
}

struct NativeLayerNorm : autograd::Function<NativeLayerNorm> {
  static constexpr const char* name = "NativeLayerNormBackward0";
  std::int64_t rows_ = 0, d_ = 0;
  Shape w_shape_;
  double eps_ = 1e-5;

  // create_graph (a gradient penalty): the same formulas written with recorded ops on the saved
  // input and weight, so that the gradients can be differentiated again.
  autograd::Grads backward_with_graph(autograd::Context& ctx, const Tensor& g) {
    const Tensor x = ctx.saved(0).reshape({rows_, d_}), w = ctx.saved(1);
    const Tensor g2 = g.reshape({rows_, d_});
    const Tensor centred = x - x.mean(1, true);
    const Tensor invstd = 1.0 / ((centred * centred).mean(1, true) + eps_).sqrt();
    const Tensor xhat = centred * invstd;
    const Tensor gh = w.defined() ? g2 * w.reshape({d_}) : g2;
    const Tensor dx = invstd * (gh - gh.mean(1, true) - xhat * (gh * xhat).mean(1, true));
    return {dx.reshape(ctx.saved(0).shape()), w.defined() ? (g2 * xhat).sum(0).reshape(w_shape_) : Tensor(),
            ctx.needs_input_grad(2) ? g2.sum(0).reshape(w_shape_) : Tensor()};
  }

  Tensor forward(autograd::Context& ctx, const Tensor& input, const Tensor& weight, const Tensor& bias,
                 const Shape& normalized_shape, double eps);

  autograd::Grads backward(autograd::Context& ctx, const autograd::Grads& grads) {
    if (kindling::detail::grad_mode_enabled()) return backward_with_graph(ctx, grads[0]);
    const Tensor x = kindling::detail::contiguous_copy(ctx.saved(0));
    const Tensor w = ctx.saved(1);
    const Tensor mean_ = ctx.saved(2), invstd_ = ctx.saved(3);  // float64 [rows]
    const Tensor wc = w.defined() ? kindling::detail::contiguous_copy(w) : Tensor();
    const Tensor go = kindling::detail::contiguous_copy(grads[0].to(x.dtype()));
    Tensor dx = ctx.needs_input_grad(0) ? kindling::detail::make_tensor(x.shape(), x.dtype()) : Tensor();
    Tensor dw = ctx.needs_input_grad(1) ? zeros(w_shape_, {.dtype = x.dtype()}) : Tensor();
    Tensor db = ctx.needs_input_grad(2) ? zeros(w_shape_, {.dtype = x.dtype()}) : Tensor();
    kindling::detail::dispatch_floating(x.dtype(), name, [&](auto tag) {
      using T = typename decltype(tag)::type;
      const T* xp = x.data_ptr<T>();
      const T* gp = go.data_ptr<T>();
      const T* wp = wc.defined() ? wc.data_ptr<T>() : nullptr;
      const double* mean = mean_.data_ptr<double>();
      const double* invstd = invstd_.data_ptr<double>();
      const double d = static_cast<double>(d_);
      T* dwp = dw.defined() ? dw.data_ptr<T>() : nullptr;
      T* dbp = db.defined() ? db.data_ptr<T>() : nullptr;
      T* dxp = dx.defined() ? dx.data_ptr<T>() : nullptr;
      for (std::int64_t r = 0; r < rows_; ++r) {
        const T* xr = xp + r * d_;
        const T* gr = gp + r * d_;
        const double mu = mean[r], is = invstd[r];
        auto gh = [&](std::int64_t i) { return gr[i] * (wp ? static_cast<double>(wp[i]) : 1.0); };
        const double sum_gh = lane_sum(d_, gh);                                               // Σĝ
        const double sum_ghx = lane_sum(d_, [&](std::int64_t i) { return gh(i) * ((xr[i] - mu) * is); });  // Σĝ·x̂
        if (dwp)
          for (std::int64_t i = 0; i < d_; ++i) dwp[i] += static_cast<T>(gr[i] * ((xr[i] - mu) * is));
        if (dbp)
          for (std::int64_t i = 0; i < d_; ++i) dbp[i] += gr[i];
        if (!dxp) continue;
        T* dxr = dxp + r * d_;
        for (std::int64_t i = 0; i < d_; ++i)
          dxr[i] = static_cast<T>(is / d * (d * gh(i) - sum_gh - (xr[i] - mu) * is * sum_ghx));
      }
    });
    return {dx, dw, db};
  }
};

}  // namespace

Tensor layer_norm(const Tensor& input, const Shape& normalized_shape, const Tensor& weight, const Tensor& bias,
                  double eps) {
  const char* op = "layer_norm";
  detail::check_same_device(op, {{"input", &input}, {"weight", &weight}, {"bias", &bias}});
  kindling::detail::check_cpu(input, op);
  detail::check_floating(op, "input", input);
  detail::check_same_dtype(op, {{"input", &input}, {"weight", &weight}, {"bias", &bias}});
  if (detail::computes_in_float32(input)) {  // float32 statistics, the result rounded once
    return layer_norm(detail::widened(input), normalized_shape, detail::widened(weight), detail::widened(bias), eps)
        .to(input.dtype());
  }
  const std::size_t k = normalized_shape.size();
  bool ok = k >= 1 && static_cast<std::size_t>(input.dim()) >= k;
  for (std::size_t i = 0; ok && i < k; ++i) ok = input.shape()[input.shape().size() - k + i] == normalized_shape[i];
  if (!ok) {
    throw ShapeError(std::string(op) + ": normalized_shape " + shape_str(normalized_shape) +
                     " must match the last dimensions of the input, but the input has shape " + shape_str(input.shape()) +
                     ". Hint: LayerNorm(d) normalises over a last dimension of size d.");
  }
  for (const auto& [name, t] : {std::pair<const char*, const Tensor*>{"weight", &weight}, {"bias", &bias}}) {
    if (t->defined() && t->shape() != normalized_shape) {
      throw ShapeError(std::string(op) + ": " + name + " must have shape " + shape_str(normalized_shape) + " but has " +
                       shape_str(t->shape()));
    }
  }
  return NativeLayerNorm::apply(input, weight, bias, normalized_shape, eps);
}

namespace {
Tensor NativeLayerNorm::forward(autograd::Context& ctx, const Tensor& input, const Tensor& weight, const Tensor& bias,
                                const Shape& normalized_shape, double eps) {
  const char* op = "layer_norm";
  const std::int64_t d = numel_of(normalized_shape);
  const std::int64_t rows = d == 0 ? 0 : input.numel() / d;
  rows_ = rows;
  d_ = d;
  w_shape_ = normalized_shape;
  eps_ = eps;
  const Tensor x = kindling::detail::contiguous_copy(input);
  const Tensor w = weight.defined() ? kindling::detail::contiguous_copy(weight) : Tensor();
  const Tensor b = bias.defined() ? kindling::detail::contiguous_copy(bias) : Tensor();
  Tensor mean = kindling::detail::make_tensor({rows}, kFloat64), invstd = kindling::detail::make_tensor({rows}, kFloat64);
  Tensor out = kindling::detail::make_tensor(x.shape(), x.dtype());
  kindling::detail::dispatch_floating(x.dtype(), op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* wp = w.defined() ? w.data_ptr<T>() : nullptr;
    const T* bp = b.defined() ? b.data_ptr<T>() : nullptr;
    for (std::int64_t r = 0; r < rows; ++r) {
      const T* xr = x.data_ptr<T>() + r * d;
      T* yr = out.data_ptr<T>() + r * d;
      const double mu = lane_sum(d, [&](std::int64_t i) { return static_cast<double>(xr[i]); }) /
                        static_cast<double>(d);
      const double sq = lane_sum(d, [&](std::int64_t i) { return (xr[i] - mu) * (xr[i] - mu); });
      const double is = 1.0 / std::sqrt(sq / static_cast<double>(d) + eps);
      mean.data_ptr<double>()[r] = mu;
      invstd.data_ptr<double>()[r] = is;
      for (std::int64_t i = 0; i < d; ++i) {
        double y = (xr[i] - mu) * is;
        if (wp) y *= wp[i];
        if (bp) y += bp[i];
        yr[i] = static_cast<T>(y);
      }
    }
  });
  ctx.save_for_backward({input, weight, mean, invstd});
  return out;
}
}  // namespace

}  // namespace kindling::nn::functional
