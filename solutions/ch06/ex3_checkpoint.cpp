// ch06.ex3 — activation checkpointing's backward: recompute the segment, then backpropagate through it.
//
// utils::detail::checkpoint_backward (lib/src/amp/pieces.hpp), the backward of PyTorch 1.13's reentrant
// torch.utils.checkpoint. utils::checkpoint ran the segment with grad mode off and kept only its
// inputs (and the default generator's state); when backward reaches the checkpoint's node, the library
// calls this piece with those inputs and the gradients of the segment's outputs.
#include <string>
#include <vector>

#include "amp/pieces.hpp"
#include "kindling/autograd/engine.hpp"
#include "kindling/autograd/grad_mode.hpp"
#include "kindling/autograd/reentrant.hpp"
#include "kindling/tensor/error.hpp"
#include "kindling/tensor/random.hpp"

namespace kindling::utils::detail {

autograd::Grads checkpoint_backward(const CheckpointFn& fn, const autograd::Grads& saved,
                                    const std::vector<bool>& needs_grad, const std::string* rng_state,
                                    const autograd::Grads& grad) {
  // BEGIN SOLUTION ex3: fresh leaves, the segment again (recorded, same random numbers), a backward through it
  // 1. The inputs again, as fresh leaves: the recomputed graph ends at them.
  std::vector<Tensor> leaves;
  for (std::size_t i = 0; i < saved.size(); ++i) {
    Tensor leaf = saved[i].detach();
    if (needs_grad[i]) leaf.requires_grad_();
    leaves.push_back(leaf);
  }
  // 2. The segment again, recorded, with the random numbers of the first time.
  std::vector<Tensor> outputs;
  {
    const std::string now = rng_state ? default_generator().get_state() : std::string();
    if (rng_state) default_generator().set_state(*rng_state);
    struct Restore {  // the generator goes on from where it was, even if fn throws
      const std::string& state;
      bool on;
      ~Restore() {
        if (on) default_generator().set_state(state);
      }
    } restore{now, rng_state != nullptr};
    EnableGradGuard enable_grad;
    outputs = fn(leaves);
  }
  if (outputs.size() != grad.size()) {
    throw AutogradError("checkpoint: the segment returned " + std::to_string(outputs.size()) +
                        " tensors when recomputed, " + std::to_string(grad.size()) +
                        " the first time. Hint: it must compute the same thing twice.");
  }
  // 3. Its backward, inside this one: gradients reach the leaves above and, accumulated into .grad,
  //    the parameters the segment used.
  std::vector<Tensor> roots, root_grads;
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    if (outputs[i].requires_grad() && grad[i].defined()) {
      roots.push_back(outputs[i]);
      root_grads.push_back(grad[i]);
    }
  }
  if (!roots.empty()) {
    autograd::detail::ReentrantBackwardGuard allow;
    autograd::backward(roots, root_grads);
  }
  autograd::Grads result;
  for (const Tensor& leaf : leaves) result.push_back(leaf.requires_grad() ? leaf.grad() : Tensor());
  return result;
  // END SOLUTION
}

}  // namespace kindling::utils::detail
