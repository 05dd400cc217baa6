#pragma once
/// @file
/// The optimizer interface: parameter groups, zero_grad, step, and a state dict for checkpoints.
///
/// Every optimizer keeps its parameters in groups, each with its own options (a learning rate per
/// group is how fine-tuning uses a small lr for a pretrained backbone and a larger one for a new head).
/// Schedulers change `lr` through the type-erased Optimizer interface.
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "kindling/tensor/tensor.hpp"

namespace kindling::optim {

/// Flat, name-keyed state: "state.<param index>.<buffer>" tensors plus "group.<i>.<option>" 0-d
/// tensors. Flat names make it trivial to store in a safetensors checkpoint next to the model.
using OptimizerState = std::map<std::string, Tensor>;

class Optimizer {
 public:
  virtual ~Optimizer() = default;
  /// One update of every parameter that has a gradient.
  virtual void step() = 0;
  /// Clears the gradients of every parameter (PyTorch 1.13's default: fill with zeros; with
  /// set_to_none the .grad becomes undefined, which saves memory and a kernel).
  void zero_grad(bool set_to_none = false);

  std::size_t num_param_groups() const { return params_.size(); }
  const std::vector<Tensor>& params(std::size_t group) const { return params_.at(group); }
  virtual double lr(std::size_t group = 0) const = 0;
  virtual void set_lr(double lr, std::size_t group) = 0;
  /// Sets the learning rate of every group.
  void set_lr(double lr);

  /// Everything needed to resume: per-parameter buffers, step counts and each group's options.
  virtual OptimizerState state_dict() const = 0;
  /// Restores a state_dict() of an optimizer of the same kind over the same parameter shapes.
  virtual void load_state_dict(const OptimizerState& state) = 0;

  /// Each group's lr when the first scheduler was attached (PyTorch's param_group["initial_lr"]);
  /// empty until then. Schedulers take their base lr from it, so a second scheduler on the same
  /// optimizer (the parts of a SequentialLR) starts from the original lr, not from the first one's.
  std::vector<double> initial_lr;

  /// A number no other optimizer of this process has (PyTorch's `id(optimizer)` while it lives, and
  /// never reused): what GradScaler keys its per-optimizer state by, so that a new optimizer built
  /// where a destroyed one was is a new optimizer to it. A copy gets its own.
  std::uint64_t id() const { return id_.value; }

 protected:
  /// One list of parameters per group. Checks they are floating-point leaves that require grad.
  void add_param_group_tensors(std::vector<Tensor> params, const char* optimizer_name);
  std::vector<std::vector<Tensor>> params_;

 private:
  struct InstanceId {
    std::uint64_t value = next();
    InstanceId() = default;
    InstanceId(const InstanceId&) : value(next()) {}
    InstanceId& operator=(const InstanceId&) { return *this; }  // an object keeps its own
    static std::uint64_t next();
  };
  InstanceId id_;
};

/// Helpers shared by the concrete optimizers' state_dict implementations.
namespace detail {
Tensor scalar_state(double value);
double read_scalar(const OptimizerState& state, const std::string& key, const char* optimizer);
/// A whole-number counter (Adam's step) from a state dict, range-checked before any integer cast.
std::int64_t read_count(const OptimizerState& state, const std::string& key, const char* optimizer);
/// Throws ValueError "<optimizer>: invalid <name> <value>" unless lo <= value <= hi (< hi when hi_open);
/// NaN always fails.
void check_hyper(const char* optimizer, const char* name, double value, double lo, double hi, bool hi_open = false);
Tensor read_buffer(const OptimizerState& state, const std::string& key, const Tensor& like,
                   const char* optimizer);
}  // namespace detail

}  // namespace kindling::optim
