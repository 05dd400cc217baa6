// SGD: p -= lr * d, where d is the gradient, optionally with weight decay and (Nesterov) momentum.
// The update of one parameter is chapter 5's exercise 1 (train/pieces.hpp: detail::sgd_step); this file
// holds the parameter groups, the momentum buffers and the checkpoint state around it.
#include "kindling/optim/sgd.hpp"

#include <limits>

#include "tensor/internal.hpp"
#include "train/pieces.hpp"

#include "kindling/autograd/grad_mode.hpp"
#include "kindling/tensor/autocast_mode.hpp"
#include "kindling/tensor/creation.hpp"
#include "train/optim/state_archive.hpp"

namespace kindling::optim {

SGD::SGD(std::vector<Tensor> params, SGDOptions options) { add_param_group(std::move(params), options); }

namespace {
// The same checks for options given in code and options read back from a state dict (NaN fails both).
void validate(const SGDOptions& o) {
  constexpr double inf = std::numeric_limits<double>::infinity();
  detail::check_hyper("SGD", "learning rate", o.lr, 0, inf, true);
  detail::check_hyper("SGD", "momentum", o.momentum, 0, inf, true);
  detail::check_hyper("SGD", "dampening", o.dampening, -inf, inf, true);
  detail::check_hyper("SGD", "weight_decay", o.weight_decay, 0, inf, true);
  if (o.nesterov && (o.momentum <= 0 || o.dampening != 0)) {
    throw ValueError("SGD: Nesterov momentum requires a momentum > 0 and zero dampening.");
  }
}
}  // namespace

void SGD::add_param_group(std::vector<Tensor> params, SGDOptions options) {
  validate(options);
  const std::size_t n = params.size();
  add_param_group_tensors(std::move(params), "SGD");
  options_.push_back(options);
  momentum_buffer_.emplace_back(n);
}

// [snippet: sgd-step]
void SGD::step() {
  NoGradGuard no_grad;
  for (std::size_t gi = 0; gi < params_.size(); ++gi) {
    const SGDOptions& o = options_[gi];
    for (std::size_t i = 0; i < params_[gi].size(); ++i) {
      Tensor& p = params_[gi][i];
      Tensor g = p.grad();
      // Parameters without a gradient are skipped, like PyTorch.
      if (!g.defined()) continue;
      g = g.to(p.dtype()).contiguous();
      // The update reads p through host pointers: a device parameter is refused.
      kindling::detail::check_cpu(p, "SGD.step");
      Tensor& buf = momentum_buffer_[gi][i];
      const bool first = o.momentum != 0 && !buf.defined();
      if (first) buf = empty_like(p);
      // Chapter 5's exercise 1 (train/pieces.hpp). Chapter 6: when autocast keeps a
      // bfloat16 copy of p, the update runs chunk by chunk and each chunk is cast
      // into the copy while it is in cache, not cast again at the next forward.
      auto update = [&](std::int64_t b, std::int64_t e) {
        using kindling::detail::flat_range;
        detail::sgd_step(flat_range(p, b, e), flat_range(g, b, e),
                         flat_range(buf, b, e), o, first);
      };
      if (!kindling::detail::update_refreshing_autocast_copy(p, update)) {
        detail::sgd_step(p, g, buf, o, first);
        p.storage()->bump_version();
      }
    }
  }
}
// [end]

// The state of a group and of one parameter, as torch.optim.SGD's state_dict names them.
namespace {
template <class Archive> void sgd_group(Archive& ar, SGDOptions& o) {
  ar.scalar("lr", o.lr);
  ar.scalar("momentum", o.momentum);
  ar.scalar("dampening", o.dampening);
  ar.scalar("weight_decay", o.weight_decay);
  ar.flag("nesterov", o.nesterov);
  ar.flag("maximize", o.maximize);
}
// The momentum buffer appears at the first step with momentum > 0.
template <class Archive> void sgd_param(Archive& ar, Tensor& buffer, const Tensor& p, const SGDOptions&) {
  ar.buffer("momentum_buffer", buffer, p);
}
}  // namespace

OptimizerState SGD::state_dict() const {
  return detail::save_state(
      params_, options_, momentum_buffer_, [](auto& ar, SGDOptions& o) { sgd_group(ar, o); },
      [](auto& ar, Tensor& b, const Tensor& p, const SGDOptions& o) { sgd_param(ar, b, p, o); }, "SGD");
}

void SGD::load_state_dict(const OptimizerState& in) {
  detail::load_state(
      in, params_, options_, momentum_buffer_, [](auto& ar, SGDOptions& o) { sgd_group(ar, o); },
      [](auto& ar, Tensor& b, const Tensor& p, const SGDOptions& o) { sgd_param(ar, b, p, o); },
      [](const SGDOptions& o) { validate(o); }, "SGD");
}

}  // namespace kindling::optim
