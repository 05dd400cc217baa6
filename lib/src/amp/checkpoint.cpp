// Activation checkpointing: one autograd::Function whose forward runs the segment unrecorded and
// whose backward recomputes it recorded and runs a backward through it (a reentrant backward, like
// PyTorch's default torch.utils.checkpoint).
#include "kindling/amp/checkpoint.hpp"

#include "amp/pieces.hpp"

#include <string>
#include <utility>

#include "kindling/amp/autocast.hpp"
#include "kindling/autograd/function.hpp"
#include "kindling/autograd/grad_mode.hpp"
#include "kindling/tensor/creation.hpp"
#include "kindling/tensor/error.hpp"
#include "kindling/tensor/random.hpp"

namespace kindling::utils {
namespace {

struct CheckpointFunction : autograd::Function<CheckpointFunction> {
  static constexpr const char* name = "CheckpointFunctionBackward";  // PyTorch's node name
  static constexpr bool once_differentiable = true;  // the recomputed graph is not kept

  CheckpointFn fn;
  bool preserve_rng_state = true;
  std::string rng_state;  // the default generator before the forward, replayed in backward
  // This thread's autocast regions during the forward, per device type (torch.utils.checkpoint
  // keeps both too): the recompute must run each op in the dtype it ran in the first time, or a
  // bfloat16 segment would get its gradients from a float32 recompute.
  amp::AutocastOptions autocast_cpu, autocast_cuda;

  // inputs: the segment's tensors. Runs with grad mode off (Function::apply): nothing inside the
  // segment is kept, only the inputs, in ctx.
  std::vector<Tensor> forward(autograd::Context& ctx, const std::vector<Tensor>& inputs,
                              const CheckpointFn& segment, bool preserve) {
    fn = segment;
    preserve_rng_state = preserve;
    if (preserve) rng_state = default_generator().get_state();
    autocast_cpu = autocast_options(DeviceType::CPU);
    autocast_cuda = autocast_options(DeviceType::CUDA);
    ctx.save_for_backward(std::span<const Tensor>(inputs.data(), inputs.size()));
    std::vector<Tensor> outputs = fn(inputs);
    for (const Tensor& out : outputs) {
      if (!out.defined()) throw ValueError("checkpoint: the segment returned an undefined tensor.");
    }
    return outputs;
  }

  // [snippet: checkpoint-backward]
  // What the segment's backward needs: its inputs, which of them want
  // a gradient, the generator's state of the first run, and the segment
  // itself wrapped to run under the forward's autocast state. Recomputing
  // the segment and the backward through it are ch06.ex3.
  autograd::Grads backward(autograd::Context& ctx, const autograd::Grads& grad) {
    const autograd::Grads saved = ctx.saved_tensors();
    std::vector<bool> needs_grad;
    for (std::size_t i = 0; i < saved.size(); ++i)
      needs_grad.push_back(ctx.needs_input_grad(i));
    const std::string* rng = preserve_rng_state ? &rng_state : nullptr;
    return detail::checkpoint_backward(recompute(), saved, needs_grad, rng, grad);
  }
  // [end]

  static amp::AutocastOptions autocast_options(DeviceType device_type) {
    const kindling::detail::AutocastState s = kindling::detail::autocast_state(device_type);
    return {.device_type = device_type, .dtype = s.dtype, .enabled = s.enabled, .cache_enabled = s.cache_enabled};
  }

  // The segment as the piece recomputes it: under the forward's autocast state (an enabled region
  // or a disabled one, whatever surrounds the backward). Only the recompute: the backward through
  // it runs outside, as every backward does.
  CheckpointFn recompute() const {
    return [this](const std::vector<Tensor>& xs) {
      amp::AutocastGuard cpu(autocast_cpu), cuda(autocast_cuda);
      return fn(xs);
    };
  }
};

}  // namespace

std::vector<Tensor> checkpoint(CheckpointFn fn, const std::vector<Tensor>& inputs, CheckpointOptions options) {
  if (!fn) throw ValueError("checkpoint: no segment to run (an empty function).");
  bool any = false;
  for (const Tensor& t : inputs) {
    if (!t.defined()) throw ValueError("checkpoint: input tensors must be defined.");
    any = any || t.requires_grad();
  }
  if (!is_grad_enabled()) return fn(inputs);  // nothing would be kept anyway
  if (any) return CheckpointFunction::apply(inputs, fn, options.preserve_rng_state);
  // No input requires grad (the first segment's input is the data): Function::apply would make
  // no node, and the parameters inside would get no gradient. An empty leaf that requires grad
  // gives the segment its node (its gradient is never computed: backward returns none for it).
  std::vector<Tensor> with_leaf = inputs;
  with_leaf.push_back(empty({0}).requires_grad_());
  auto segment = [fn = std::move(fn)](const std::vector<Tensor>& xs) {
    return fn(std::vector<Tensor>(xs.begin(), xs.end() - 1));
  };
  return CheckpointFunction::apply(with_leaf, CheckpointFn(segment), options.preserve_rng_state);
}

Tensor checkpoint(std::function<Tensor(const Tensor&)> fn, const Tensor& input, CheckpointOptions options) {
  if (!fn) throw ValueError("checkpoint: no segment to run (an empty function).");
  auto segment = [fn = std::move(fn)](const std::vector<Tensor>& xs) { return std::vector<Tensor>{fn(xs[0])}; };
  return checkpoint(segment, std::vector<Tensor>{input}, options)[0];
}

}  // namespace kindling::utils
