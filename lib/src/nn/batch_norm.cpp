// functional::batch_norm: forward and a fused backward, as one autograd::Function
// (NativeBatchNormBackward0).
//
// x: [N, C, *] viewed as [N, C, S]; every statistic is per channel c over M = N·S values.
//   train: mean_c, var_c (biased, /M) of the batch;  running = (1-momentum)·running + momentum·stat,
//          where the running variance gets the *unbiased* var_c·M/(M-1).
//   eval:  mean_c, var_c = running_mean_c, running_var_c.
//   y = (x - mean_c) · invstd_c · weight_c + bias_c,  invstd_c = 1/√(var_c + eps).
#include <cmath>
#include <vector>

#include "kindling/autograd/grad_mode.hpp"
#include "kindling/nn/functional.hpp"
#include "kindling/tensor/creation.hpp"
#include "nn/checks.hpp"
#include "kindling/autograd/function.hpp"
#include "tensor/dispatch.hpp"
#include "tensor/op_helpers.hpp"

namespace kindling::nn::functional {

namespace {

// Σ f(i) for i in [0, n) (f reads a contiguous span), in double, in eight running sums: one sum alone waits for each
// addition to finish before the next (a double add's latency, ~4 cycles per element), and the compiler
// may not reorder a floating-point sum by itself; eight independent ones fill a vector register. Still
// float64 sums of float32 values, so the statistics agree with PyTorch's to float32's precision (which
// sums in yet another order).
template <class F> double span_sum(std::int64_t n, F f) {
  double acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  std::int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    for (int k = 0; k < 8; ++k) acc[k] += f(i + k);
  for (; i < n; ++i) acc[i % 8] += f(i);
  return ((acc[0] + acc[4]) + (acc[1] + acc[5])) + ((acc[2] + acc[6]) + (acc[3] + acc[7]));
}

struct BNGeom {
  std::int64_t n, c, s;  // x viewed as [n, c, s]
  std::int64_t m() const { return n * s; }
};

/// The running statistics a training forward updates in place: state, not inputs of the graph
/// (so they get no edge -- NativeBatchNormBackward0 has three inputs, like PyTorch's).
struct RunningStats {
  Tensor mean, var;
};

struct NativeBatchNorm : autograd::Function<NativeBatchNorm> {
  static constexpr const char* name = "NativeBatchNormBackward0";
  BNGeom g_{};
  bool training_ = false;
  double eps_ = 1e-5;

  // create_graph (a gradient penalty): the formulas below written with recorded ops on the saved
  // input and weight (in training the batch statistics recomputed from the input, so that their
  // dependence on it is differentiated too), so that the gradients can be differentiated again.
  autograd::Grads backward_with_graph(autograd::Context& ctx, const Tensor& grad) {
    const Tensor& input = ctx.saved(0);
    const Tensor x = input.reshape({g_.n, g_.c, g_.s}), w = ctx.saved(1);
    const Tensor g = grad.reshape({g_.n, g_.c, g_.s});
    const std::vector<std::int64_t> dims{0, 2};
    Tensor centred, invstd;
    if (training_) {
      centred = x - x.mean(dims, true);
      invstd = 1.0 / ((centred * centred).mean(dims, true) + eps_).sqrt();
    } else {  // the running statistics: constants
      centred = x - ctx.saved(2).to(x.dtype()).reshape({1, g_.c, 1});
      invstd = ctx.saved(3).to(x.dtype()).reshape({1, g_.c, 1});
    }
    const Tensor xhat = centred * invstd;
    const Tensor gw = w.defined() ? g * w.reshape({1, g_.c, 1}) : g;
    const Tensor dx = training_ ? invstd * (gw - gw.mean(dims, true) - xhat * (gw * xhat).mean(dims, true))
                                : gw * invstd;
    return {dx.reshape(input.shape()), w.defined() ? (g * xhat).sum(dims) : Tensor(),
            ctx.needs_input_grad(2) ? g.sum(dims) : Tensor()};
  }

  Tensor forward(autograd::Context& ctx, const Tensor& input, const Tensor& weight, const Tensor& bias,
                 const RunningStats& running, bool training, double momentum, double eps);

  // x̂ = (x - mean)·invstd;  dw = Σ g·x̂,  db = Σ g,
  // dx = w·invstd/M · (M·g - Σg - x̂·Σ(g·x̂)) in training (the batch statistics depend on x too),
  // dx = w·invstd·g in evaluation (the running statistics are constants).
  autograd::Grads backward(autograd::Context& ctx, const autograd::Grads& grads) {
    if (kindling::detail::grad_mode_enabled()) return backward_with_graph(ctx, grads[0]);
    const Tensor x = kindling::detail::contiguous_copy(ctx.saved(0));
    const Tensor w = ctx.saved(1);
    const Tensor mean_ = ctx.saved(2), invstd_ = ctx.saved(3);
    const Tensor go = kindling::detail::contiguous_copy(grads[0].to(x.dtype()));
    Tensor dx = ctx.needs_input_grad(0) ? kindling::detail::make_tensor(x.shape(), x.dtype()) : Tensor();
    Tensor dw = ctx.needs_input_grad(1) ? kindling::detail::make_tensor({g_.c}, x.dtype()) : Tensor();
    Tensor db = ctx.needs_input_grad(2) ? kindling::detail::make_tensor({g_.c}, x.dtype()) : Tensor();
    const Tensor wc = w.defined() ? kindling::detail::contiguous_copy(w.to(x.dtype())) : Tensor();
    kindling::detail::dispatch_floating(x.dtype(), name, [&](auto tag) {
      using T = typename decltype(tag)::type;
      const T* xp = x.data_ptr<T>();
      const T* gp = go.data_ptr<T>();
      const double* mean = mean_.data_ptr<double>();
      const double* invstd = invstd_.data_ptr<double>();
      const double m = static_cast<double>(g_.m());
      for (std::int64_t c = 0; c < g_.c; ++c) {
        // Σ g and Σ g·x̂ over the channel.
        double sum_g = 0, sum_gx = 0;
        const double mc = mean[c], ic = invstd[c];
        for (std::int64_t n = 0; n < g_.n; ++n) {
          const T* xs = xp + (n * g_.c + c) * g_.s;
          const T* gs = gp + (n * g_.c + c) * g_.s;
          sum_g += span_sum(g_.s, [&](std::int64_t s) { return static_cast<double>(gs[s]); });
          sum_gx += span_sum(g_.s, [&](std::int64_t s) { return gs[s] * ((xs[s] - mc) * ic); });
        }
        if (dw.defined()) dw.data_ptr<T>()[c] = static_cast<T>(sum_gx);
        if (db.defined()) db.data_ptr<T>()[c] = static_cast<T>(sum_g);
        if (!dx.defined()) continue;
        const double scale = (wc.defined() ? static_cast<double>(wc.data_ptr<T>()[c]) : 1.0) * invstd[c];
        T* dxp = dx.data_ptr<T>();
        for (std::int64_t n = 0; n < g_.n; ++n) {
          const std::int64_t base = (n * g_.c + c) * g_.s;
          for (std::int64_t s = 0; s < g_.s; ++s) {
            if (training_) {
              // The batch statistics depend on x too: dx = w·invstd/M · (M·g - Σg - x̂·Σ(g·x̂)).
              const double xhat = (xp[base + s] - mean[c]) * invstd[c];
              dxp[base + s] = static_cast<T>(scale / m * (m * gp[base + s] - sum_g - xhat * sum_gx));
            } else {
              dxp[base + s] = static_cast<T>(scale * gp[base + s]);  // running stats are constants
            }
          }
        }
      }
    });
    return {dx, dw, db};
  }
};

}  // namespace

Tensor batch_norm(const Tensor& input, const Tensor& running_mean, const Tensor& running_var, const Tensor& weight,
                  const Tensor& bias, bool training, double momentum, double eps) {
  const char* op = "batch_norm";
  detail::check_same_device(op, {{"input", &input}, {"running_mean", &running_mean}, {"running_var", &running_var},
                                 {"weight", &weight}, {"bias", &bias}});
  kindling::detail::check_cpu(input, op);
  detail::check_floating(op, "input", input);
  if (detail::computes_in_float32(input)) {
    // bfloat16 activations with float32 parameters and running statistics (a BatchNorm2d under
    // autocast) or bfloat16 ones: PyTorch accepts both, computes in float32, rounds once.
    for (const auto& [name, t] : {std::pair<const char*, const Tensor*>{"weight", &weight}, {"bias", &bias}}) {
      if (t->defined() && t->dtype() != kFloat32 && t->dtype() != input.dtype()) {
        throw DTypeError(std::string(op) + ": a bfloat16 input takes a float32 or bfloat16 " + name + ", but got " +
                         dtype_name(t->dtype()) + ". Hint: convert it with .to(kd::kFloat32).");
      }
    }
    return batch_norm(detail::widened(input), running_mean, running_var, detail::widened(weight),
                      detail::widened(bias), training, momentum, eps)
        .to(input.dtype());
  }
  detail::check_same_dtype(op, {{"input", &input}, {"weight", &weight}, {"bias", &bias}});
  if (input.dim() < 2) {
    throw ShapeError(std::string(op) + ": expected an input with at least 2 dims [N, C, *] but got " +
                     shape_str(input.shape()));
  }
  BNGeom g{input.size(0), input.size(1), input.numel() / std::max<std::int64_t>(1, input.size(0) * input.size(1))};
  for (const auto& [name, t] : {std::pair<const char*, const Tensor*>{"running_mean", &running_mean},
                                {"running_var", &running_var}, {"weight", &weight}, {"bias", &bias}}) {
    if (t->defined() && t->shape() != Shape{g.c}) {
      throw ShapeError(std::string(op) + ": " + name + " should have shape [" + std::to_string(g.c) +
                       "] (one value per channel of input " + shape_str(input.shape()) + ") but has " +
                       shape_str(t->shape()) + ". Hint: num_features must equal the input's dimension 1.");
    }
  }
  if ((running_mean.defined()) != (running_var.defined()))
    throw ValueError(std::string(op) + ": running_mean and running_var must both be given or both be undefined");
  if (!training && !running_mean.defined())
    throw ValueError(std::string(op) + ": evaluation mode needs running_mean and running_var");
  // PyTorch's _verify_batch_size: exactly one value per channel has no variance. An empty batch is
  // allowed: its output is empty, its gradients for weight and bias are zeros, the running statistics
  // stay as they were.
  if (training && g.m() == 1) {
    throw ValueError(std::string(op) + ": expected more than 1 value per channel when training, got input size " +
                     shape_str(input.shape()) + ". Hint: use a batch of more than one sample, or call model.eval().");
  }
  return NativeBatchNorm::apply(input, weight, bias, RunningStats{running_mean, running_var}, training, momentum, eps);
}

namespace {
Tensor NativeBatchNorm::forward(autograd::Context& ctx, const Tensor& input, const Tensor& weight, const Tensor& bias,
                                const RunningStats& running, bool training, double momentum, double eps) {
  const char* op = "batch_norm";
  const Tensor& running_mean = running.mean;
  const Tensor& running_var = running.var;
  const BNGeom g{input.size(0), input.size(1),
                 input.numel() / std::max<std::int64_t>(1, input.size(0) * input.size(1))};
  g_ = g;
  training_ = training;
  eps_ = eps;

  const Tensor x = kindling::detail::contiguous_copy(input);
  Tensor mean = kindling::detail::make_tensor({g.c}, kFloat64), invstd = kindling::detail::make_tensor({g.c}, kFloat64);
  Tensor unbiased_var;  // only for the running update
  double* mp = mean.data_ptr<double>();
  double* ip = invstd.data_ptr<double>();
  if (training) {
    unbiased_var = kindling::detail::make_tensor({g.c}, kFloat64);
    kindling::detail::dispatch_floating(x.dtype(), op, [&](auto tag) {
      using T = typename decltype(tag)::type;
      const T* xp = x.data_ptr<T>();
      for (std::int64_t c = 0; c < g.c; ++c) {
        double sum = 0;
        for (std::int64_t n = 0; n < g.n; ++n) {
          const T* xs = xp + (n * g.c + c) * g.s;
          sum += span_sum(g.s, [&](std::int64_t s) { return static_cast<double>(xs[s]); });
        }
        const double mu = sum / static_cast<double>(g.m());
        double sq = 0;  // two passes: Σ(x - μ)² is exact where Σx² - Mμ² cancels
        for (std::int64_t n = 0; n < g.n; ++n) {
          const T* xs = xp + (n * g.c + c) * g.s;
          sq += span_sum(g.s, [&](std::int64_t s) {
            const double d = xs[s] - mu;
            return d * d;
          });
        }
        mp[c] = mu;
        ip[c] = 1.0 / std::sqrt(sq / static_cast<double>(g.m()) + eps);
        unbiased_var.data_ptr<double>()[c] = sq / static_cast<double>(g.m() - 1);
      }
    });
    if (running_mean.defined() && g.m() > 0) {  // buffers are state, not part of the graph (forward runs without grad)
      Tensor rm = running_mean, rv = running_var;
      rm.mul_(1.0 - momentum).add_(mean.to(rm.dtype()) * momentum);
      rv.mul_(1.0 - momentum).add_(unbiased_var.to(rv.dtype()) * momentum);
    }
  } else {
    const Tensor rm = running_mean.to(kFloat64).contiguous(), rv = running_var.to(kFloat64).contiguous();
    for (std::int64_t c = 0; c < g.c; ++c) {
      mp[c] = rm.data_ptr<double>()[c];
      ip[c] = 1.0 / std::sqrt(rv.data_ptr<double>()[c] + eps);
    }
  }

  Tensor out = kindling::detail::make_tensor(x.shape(), x.dtype());
  const Tensor w = weight.defined() ? kindling::detail::contiguous_copy(weight) : Tensor();
  const Tensor b = bias.defined() ? kindling::detail::contiguous_copy(bias) : Tensor();
  kindling::detail::dispatch_floating(x.dtype(), op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* xp = x.data_ptr<T>();
    T* op_ = out.data_ptr<T>();
    for (std::int64_t c = 0; c < g.c; ++c) {
      // y = (x - mean)·a + b with a = invstd·w (subtracting first keeps float32 exact for large means).
      const double a = ip[c] * (w.defined() ? static_cast<double>(w.data_ptr<T>()[c]) : 1.0);
      const T ta = static_cast<T>(a), tm = static_cast<T>(mp[c]);
      const T tb = b.defined() ? b.data_ptr<T>()[c] : T(0);
      for (std::int64_t n = 0; n < g.n; ++n) {
        const std::int64_t base = (n * g.c + c) * g.s;
        for (std::int64_t s = 0; s < g.s; ++s) op_[base + s] = (xp[base + s] - tm) * ta + tb;
      }
    }
  });
  ctx.save_for_backward({input, weight, mean, invstd});  // mean, invstd: float64 [C], the statistics used
  return out;
}
}  // namespace

}  // namespace kindling::nn::functional
