#pragma once
/// @file
/// GradScaler (`torch.cuda.amp.GradScaler`): loss scaling, so that float16 gradients do not
/// underflow to zero.
///
/// A float16 gradient smaller than 2^-24 (6e-8) is zero. Multiplying the loss by a large scale S
/// multiplies every gradient by S (backward is linear), lifting small gradients into float16's
/// range; unscale_() divides them back in float32 before the optimizer sees them. A scale that is
/// too large makes some gradient overflow to inf: the step is then skipped and S halved. After
/// `growth_interval` steps without overflow S is doubled again, so S hovers just below overflow.
///
///     kd::amp::GradScaler scaler;
///     for (auto& [x, y] : loader) {
///       optimizer.zero_grad();
///       kd::Tensor loss = criterion(model(x), y);
///       scaler.scale(loss).backward();
///       scaler.step(optimizer);   // unscale_, check for inf/NaN, optimizer.step() unless found
///       scaler.update();          // backoff after an overflow, growth after growth_interval clean steps
///     }
#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "kindling/optim/optimizer.hpp"
#include "kindling/tensor/tensor.hpp"

namespace kindling::amp {

/// PyTorch's defaults.
struct GradScalerOptions {
  double init_scale = 65536.0;  // 2^16
  double growth_factor = 2.0;
  double backoff_factor = 0.5;
  std::int64_t growth_interval = 2000;
  bool enabled = true;
};

class GradScaler {
 public:
  explicit GradScaler(GradScalerOptions options = {});

  /// outputs * scale. The scale is a float32 tensor of shape [1], as in PyTorch: a float16 or
  /// bfloat16 loss becomes float32, and a 0-d loss becomes shape [1]. Disabled: outputs itself.
  Tensor scale(const Tensor& outputs);
  /// Divides the gradients of the optimizer's parameters by the scale, in place, and records
  /// whether any of them is inf or NaN. At most once per optimizer between update()s.
  void unscale_(optim::Optimizer& optimizer);
  /// unscale_ (unless already done), then optimizer.step() unless a gradient was inf/NaN.
  /// Returns whether the step ran.
  bool step(optim::Optimizer& optimizer);
  /// After an overflow: scale *= backoff_factor. After growth_interval clean steps in a row:
  /// scale *= growth_factor (unless that would be inf). `new_scale` sets the scale instead.
  void update(std::optional<double> new_scale = std::nullopt);

  double get_scale() const;
  std::int64_t growth_tracker() const { return growth_tracker_; }
  bool is_enabled() const { return options_.enabled; }
  const GradScalerOptions& options() const { return options_; }

  /// PyTorch's keys: "scale", "growth_factor", "backoff_factor", "growth_interval",
  /// "_growth_tracker" (0-d tensors, so that a checkpoint stores them with the model).
  std::map<std::string, Tensor> state_dict() const;
  void load_state_dict(const std::map<std::string, Tensor>& state);

 private:
  enum class Stage { Ready, Unscaled, Stepped };
  struct PerOptimizer {
    Stage stage = Stage::Ready;
    bool found_inf = false;
    bool checked = false;  // unscale_ saw at least one gradient (PyTorch: found_inf_per_device)
  };
  PerOptimizer& state_of(const optim::Optimizer& optimizer);

  GradScalerOptions options_;
  float scale_;  // float32, like PyTorch's _scale tensor
  std::int64_t growth_tracker_ = 0;
  std::map<std::uint64_t, PerOptimizer> per_optimizer_;  // by Optimizer::id(), never by address
};

}  // namespace kindling::amp
