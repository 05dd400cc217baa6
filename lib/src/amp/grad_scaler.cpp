// GradScaler: PyTorch 1.13's torch.cuda.amp.GradScaler, step for step -- the same stages per
// optimizer (ready -> unscaled -> stepped), the same float32 arithmetic on the scale, the same
// rules for skipping a step and for growth and backoff (its _amp_update_scale_ kernel).
#include "kindling/amp/grad_scaler.hpp"

#include "amp/pieces.hpp"

#include <cmath>

#include "kindling/autograd/grad_mode.hpp"
#include "kindling/tensor/creation.hpp"
#include "kindling/tensor/error.hpp"
#include "tensor/device_ops.hpp"

namespace kindling::amp {
namespace {

// A scale the loss can be multiplied by: positive and finite once rounded to float32, the dtype the
// scale lives in (1e-50 would round to 0, 1e39 to inf; NaN compares false).
bool valid_scale(double v) {
  const auto f = static_cast<float>(v);
  return f > 0.0f && std::isfinite(f);
}

void check_options(const GradScalerOptions& o) {
  auto bad = [](const std::string& what) {
    throw ValueError("GradScaler: " + what + ". Hint: PyTorch's defaults are init_scale = 65536, "
                     "growth_factor = 2, backoff_factor = 0.5, growth_interval = 2000.");
  };
  if (!valid_scale(o.init_scale))
    bad("init_scale must be a positive, finite float32 value, got " + std::to_string(o.init_scale));
  // An infinite factor would make every growth give an inf scale, which the update then refuses to
  // keep: the scale could never grow again.
  if (!(o.growth_factor > 1.0) || !std::isfinite(o.growth_factor))
    bad("growth_factor must be finite and > 1, got " + std::to_string(o.growth_factor));
  if (!(o.backoff_factor > 0.0 && o.backoff_factor < 1.0))
    bad("backoff_factor must be in (0, 1), got " + std::to_string(o.backoff_factor));
  if (o.growth_interval <= 0) bad("growth_interval must be > 0, got " + std::to_string(o.growth_interval));
}

}  // namespace

GradScaler::GradScaler(GradScalerOptions options)
    : options_(options), scale_(static_cast<float>(options.init_scale)) {
  if (options_.enabled) check_options(options_);
}

GradScaler::PerOptimizer& GradScaler::state_of(const optim::Optimizer& optimizer) {
  return per_optimizer_[optimizer.id()];
}

Tensor GradScaler::scale(const Tensor& outputs) {
  if (!options_.enabled) return outputs;
  // A float32 tensor of shape [1] on the outputs' device, as PyTorch keeps it: the product is
  // float32 even for a float16 loss (a float16 65536 would already be inf).
  return outputs * full({1}, static_cast<double>(scale_), {.dtype = kFloat32}).to(outputs.device());
}

void GradScaler::unscale_(optim::Optimizer& optimizer) {
  if (!options_.enabled) return;
  PerOptimizer& st = state_of(optimizer);
  if (st.stage == Stage::Unscaled) {
    throw AutogradError("GradScaler.unscale_: unscale_() has already been called on this optimizer since "
                        "the last update(). Hint: call it once per step, before step().");
  }
  if (st.stage == Stage::Stepped) {
    throw AutogradError("GradScaler.unscale_: unscale_() is being called after step(). Hint: call "
                        "update() to start the next iteration first.");
  }
  // PyTorch: the reciprocal in float64, then rounded to float32.
  const float inv_scale = static_cast<float>(1.0 / static_cast<double>(scale_));
  NoGradGuard no_grad;
  bool found = false, checked = false;
  for (std::size_t g = 0; g < optimizer.num_param_groups(); ++g) {
    for (const Tensor& p : optimizer.params(g)) {
      Tensor grad = p.grad();
      if (!grad.defined()) continue;
      checked = true;
      if (grad.dtype() == kFloat16) {
        throw DTypeError("GradScaler.unscale_: a float16 gradient (parameter of shape " +
                         shape_str(p.shape()) + "): attempting to unscale FP16 gradients. Hint: keep the "
                         "parameters in float32 and let autocast run the ops in float16.");
      }
      // On a device: its unscale kernel (PyTorch's _amp_foreach_non_finite_check_and_unscale_).
      const auto* dev = kindling::detail::device_ops(grad);
      if (dev && dev->unscale_and_check && grad.dtype() == kFloat32 && grad.is_contiguous()) {
        found |= dev->unscale_and_check(grad, inv_scale);
        grad.storage()->bump_version();  // written in place, as the CPU's unscale does
      } else {
        found |= detail::unscale_and_check(grad, inv_scale);  // ch06.ex1
      }
    }
  }
  st.found_inf = found;
  st.checked = checked;
  st.stage = Stage::Unscaled;
}

bool GradScaler::step(optim::Optimizer& optimizer) {
  if (!options_.enabled) {
    optimizer.step();
    return true;
  }
  PerOptimizer& st = state_of(optimizer);
  if (st.stage == Stage::Stepped) {
    throw AutogradError("GradScaler.step: step() has already been called since the last update(). "
                        "Hint: call update() once per iteration, after step().");
  }
  if (st.stage == Stage::Ready) unscale_(optimizer);
  // Nothing was checked, so nothing says the step is safe: PyTorch refuses rather than step on
  // no evidence (and update() would count it as a clean iteration and grow the scale).
  if (!st.checked) {
    throw AutogradError("GradScaler.step: no inf checks were recorded for this optimizer: none of its "
                        "parameters has a gradient. Hint: call backward() on scaler.scale(loss) before "
                        "step(), and check that the loss depends on the optimizer's parameters.");
  }
  const bool ran = !st.found_inf;
  if (ran) optimizer.step();  // an inf or NaN gradient: this step is skipped
  st.stage = Stage::Stepped;
  return ran;
}

void GradScaler::update(std::optional<double> new_scale) {
  if (!options_.enabled) return;
  if (new_scale) {
    // A NaN, zero or negative scale would silently zero or flip every gradient (or skip every step).
    if (!valid_scale(*new_scale)) {
      throw ValueError("GradScaler.update: new_scale must be a positive, finite float32 value, got " +
                       std::to_string(*new_scale) + ". Hint: pass a scale like 65536.0, or call update() "
                       "without one to let the scaler adjust it.");
    }
    scale_ = static_cast<float>(*new_scale);
  } else {
    bool found_inf = false, checked = false;
    for (const auto& [opt, st] : per_optimizer_) found_inf |= st.found_inf, checked |= st.checked;
    if (!checked) {
      throw AutogradError("GradScaler.update: no inf checks were recorded prior to update(). Hint: call "
                          "step(optimizer) (or unscale_) first, after a backward that reached its "
                          "parameters.");
    }
    // PyTorch's _amp_update_scale_ (ch06.ex2): the scale is a float32 number.
    detail::update_scale(scale_, growth_tracker_, found_inf, options_.growth_factor, options_.backoff_factor,
                         options_.growth_interval);
  }
  per_optimizer_.clear();
}

double GradScaler::get_scale() const { return options_.enabled ? static_cast<double>(scale_) : 1.0; }

std::map<std::string, Tensor> GradScaler::state_dict() const {
  if (!options_.enabled) return {};
  return {{"scale", scalar_tensor(static_cast<double>(scale_), {.dtype = kFloat64})},
          {"growth_factor", scalar_tensor(options_.growth_factor, {.dtype = kFloat64})},
          {"backoff_factor", scalar_tensor(options_.backoff_factor, {.dtype = kFloat64})},
          {"growth_interval", scalar_tensor(options_.growth_interval, {.dtype = kInt64})},
          {"_growth_tracker", scalar_tensor(growth_tracker_, {.dtype = kInt64})}};
}

void GradScaler::load_state_dict(const std::map<std::string, Tensor>& state) {
  if (!options_.enabled) {
    throw ValueError("GradScaler.load_state_dict: this GradScaler is disabled (enabled = false). Hint: "
                     "construct it with {.enabled = true} to resume a scaled run.");
  }
  if (state.empty()) {
    throw ValueError("GradScaler.load_state_dict: the state dict is empty, so it was saved by a disabled "
                     "GradScaler.");
  }
  auto get = [&](const char* key) {
    auto it = state.find(key);
    if (it == state.end() || !it->second.defined() || it->second.numel() != 1) {
      throw ValueError(std::string("GradScaler.load_state_dict: missing or non-scalar entry '") + key +
                       "' (keys: scale, growth_factor, backoff_factor, growth_interval, _growth_tracker).");
    }
    return it->second.item<double>();
  };
  GradScalerOptions o = options_;
  o.init_scale = get("scale");
  o.growth_factor = get("growth_factor");
  o.backoff_factor = get("backoff_factor");
  const double interval = get("growth_interval"), tracker = get("_growth_tracker");
  if (!(interval >= 1 && interval <= 1e15 && interval == std::floor(interval)) ||
      !(tracker >= 0 && tracker < interval && tracker == std::floor(tracker))) {
    throw ValueError("GradScaler.load_state_dict: growth_interval " + std::to_string(interval) +
                     " and _growth_tracker " + std::to_string(tracker) + " must be whole numbers with "
                     "0 <= _growth_tracker < growth_interval.");
  }
  o.growth_interval = static_cast<std::int64_t>(interval);
  check_options(o);
  options_ = o;
  scale_ = static_cast<float>(o.init_scale);
  growth_tracker_ = static_cast<std::int64_t>(tracker);
  per_optimizer_.clear();
}

}  // namespace kindling::amp
