// What every optimizer shares: parameter groups, zero_grad, and state-dict helpers.
#include "kindling/optim/optimizer.hpp"

#include <atomic>
#include <cstdio>
#include <unordered_set>

#include "kindling/autograd/autograd_meta.hpp"
#include "kindling/autograd/grad_mode.hpp"
#include "kindling/tensor/checked.hpp"
#include "kindling/tensor/creation.hpp"

namespace kindling::optim {

void Optimizer::add_param_group_tensors(std::vector<Tensor> params, const char* name) {
  if (params.empty()) {
    throw ValueError(std::string(name) + ": got an empty parameter list. Hint: pass model.parameters() "
                     "after the model's layers are registered.");
  }
  for (std::size_t i = 0; i < params.size(); ++i) {
    const Tensor& p = params[i];
    if (!p.defined() || !p.is_floating_point()) {
      throw DTypeError(std::string(name) + ": parameter " + std::to_string(i) +
                       " is not a floating-point tensor; only float32/float64 tensors can be optimized.");
    }
    if (!p.is_leaf() || !p.requires_grad()) {
      throw ValueError(std::string(name) + ": parameter " + std::to_string(i) + " (shape " + shape_str(p.shape()) +
                       ") is not a leaf tensor that requires grad, so it would never get a .grad. Hint: "
                       "optimize model.parameters(), or call requires_grad_() on your own tensors.");
    }
    if (!p.is_contiguous()) {
      throw ValueError(std::string(name) + ": parameter " + std::to_string(i) +
                       " is not contiguous; optimizers update parameters in place with one fused loop.");
    }
  }
  // A parameter in two groups would be updated twice per step (PyTorch refuses it too).
  std::unordered_set<const void*> seen;
  for (const auto& group : params_)
    for (const Tensor& q : group) seen.insert(q.impl());
  for (std::size_t i = 0; i < params.size(); ++i) {
    if (seen.count(params[i].impl())) {
      throw ValueError(std::string(name) + ": some parameters appear in more than one parameter group (parameter " +
                       std::to_string(i) + " of the new group, shape " + shape_str(params[i].shape()) +
                       "). Hint: give each parameter to one group only, e.g. split model.named_parameters().");
    }
  }
  params_.push_back(std::move(params));
}

std::uint64_t Optimizer::InstanceId::next() {
  static std::atomic<std::uint64_t> counter{0};
  return ++counter;
}

void Optimizer::zero_grad(bool set_to_none) {
  NoGradGuard no_grad;
  for (auto& group : params_) {
    for (auto& p : group) {
      if (set_to_none) p.set_grad(Tensor());
      else autograd::zero_grad_in_place(p);  // zeroes .grad, and lets the next backward write it
    }
  }
}

void Optimizer::set_lr(double lr) {
  for (std::size_t g = 0; g < num_param_groups(); ++g) set_lr(lr, g);
}

namespace detail {
Tensor scalar_state(double value) { return scalar_tensor(value, {.dtype = kFloat64}); }

double read_scalar(const OptimizerState& state, const std::string& key, const char* optimizer) {
  auto it = state.find(key);
  if (it == state.end()) {
    throw ValueError(std::string(optimizer) + ".load_state_dict: missing \"" + key +
                     "\". Was this state saved by a different optimizer or parameter grouping?");
  }
  if (!it->second.defined() || it->second.numel() != 1) {
    throw ValueError(std::string(optimizer) + ".load_state_dict: \"" + key + "\" must hold one number, got " +
                     (it->second.defined() ? shape_str(it->second.shape()) : std::string("an undefined tensor")) + ".");
  }
  // Hyper-parameters and counters are finite numbers; a NaN lr would silently turn every weight NaN.
  return checked::finite(it->second.item<double>(), std::string(optimizer) + ".load_state_dict: \"" + key + "\"");
}

std::int64_t read_count(const OptimizerState& state, const std::string& key, const char* optimizer) {
  // A step count of 1e158 once went through an undefined double -> int64 cast (and Adam's bias
  // correction then turned the parameters NaN); a count must be a whole number from 0 to 2^53.
  return checked::to_int64(read_scalar(state, key, optimizer),
                           std::string(optimizer) + ".load_state_dict: \"" + key + "\"", 0, std::int64_t{1} << 53);
}

void check_hyper(const char* optimizer, const char* name, double value, double lo, double hi, bool hi_open) {
  if (!(value >= lo) || (hi_open ? !(value < hi) : !(value <= hi))) {
    // PyTorch's wording ("Invalid momentum value: -1"), then the range and the optimizer's name.
    const std::string what = std::string(name) == "learning rate" ? name : std::string(name) + " value";
    char buf[160];
    std::snprintf(buf, sizeof buf, "%s: Invalid %s: %g (expected a value in [%g, %g%s).", optimizer, what.c_str(),
                  value, lo, hi, hi_open ? ")" : "]");
    throw ValueError(std::string(buf) + " Hint: torch.optim." + optimizer + " refuses it too; the default is "
                     "usually a safe start.");
  }
}

Tensor read_buffer(const OptimizerState& state, const std::string& key, const Tensor& like,
                   const char* optimizer) {
  auto it = state.find(key);
  if (it == state.end()) return Tensor();
  if (it->second.shape() != like.shape()) {
    throw ShapeError(std::string(optimizer) + ".load_state_dict: \"" + key + "\" has shape " +
                     shape_str(it->second.shape()) + " but the parameter has shape " + shape_str(like.shape()) +
                     ". Hint: load optimizer state only into an optimizer over the same model.");
  }
  return it->second.to(like.dtype()).contiguous().clone();
}
}  // namespace detail

}  // namespace kindling::optim
