#pragma once
/// @file
/// Chapter 5's exercises: re-implement the pieces of a training run yourself — the loss, two
/// optimizer updates, the plateau scheduler's logic, and the training and evaluation loops. Each has
/// the semantics of its library counterpart (named in its comment); the graded tests compare the two.
///
/// Write your answers in the matching .cpp files of this folder, then run `make grade CH=05`.
#include <cstdint>
#include <vector>

#include <kindling/train.hpp>

namespace kindling::exercises::ch05 {

// ---- ex1: cross-entropy from log-sum-exp -----------------------------------------------------------

/// Mean cross-entropy of `logits` [batch, classes] against int64 class indices `target` [batch]:
/// mean_i( logsumexp(logits[i]) - logits[i, target[i]] ), computed stably (subtract each row's max
/// before exp) and built from differentiable tensor ops, so backward() works through it.
/// Library counterpart: kd::nn::functional::cross_entropy(logits, target).
Tensor cross_entropy(const Tensor& logits, const Tensor& target);

// ---- ex2: SGD with momentum ------------------------------------------------------------------------

/// One step of SGD with momentum (torch.optim.SGD, no dampening, no Nesterov) for every parameter
/// that has a .grad: d = grad + weight_decay * p; buf = d on the first step (buf undefined), else
/// buf = momentum * buf + d; p -= lr * buf. `buffers` has one entry per parameter (start undefined).
/// Update the parameters in place (under NoGradGuard). Library counterpart: kd::optim::SGD.
void sgd_momentum_step(const std::vector<Tensor>& params, std::vector<Tensor>& buffers, double lr, double momentum,
                       double weight_decay = 0);

// ---- ex3: Adam ----------------------------------------------------------------------------------------

/// Adam's per-parameter state: the step count and the running averages m (of g) and v (of g²).
struct AdamState {
  std::int64_t step = 0;
  Tensor m, v;  // undefined until the first step
};

/// One Adam step for `param` (torch.optim.Adam, no weight decay, no amsgrad), in place:
/// m = b1 m + (1 - b1) g;  v = b2 v + (1 - b2) g²;  m̂ = m / (1 - b1^t);  v̂ = v / (1 - b2^t);
/// p -= lr * m̂ / (sqrt(v̂) + eps). Does nothing when param has no .grad. Library: kd::optim::Adam.
void adam_step(const Tensor& param, AdamState& state, double lr = 1e-3, double beta1 = 0.9, double beta2 = 0.999,
               double eps = 1e-8);

// ---- ex4: ReduceLROnPlateau ------------------------------------------------------------------------------

/// The plateau logic of ReduceLROnPlateau(mode='min', threshold_mode='rel', cooldown=0, min_lr=0):
/// an epoch improves when metric < best * (1 - threshold); after more than `patience` epochs without
/// improvement the lr is multiplied by `factor` (unless that changes it by less than 1e-8, PyTorch's
/// `eps`: the lr is then left alone) and the count restarts.
class Plateau {
 public:
  Plateau(double factor = 0.1, std::int64_t patience = 10, double threshold = 1e-4);
  /// Feeds one epoch's metric and returns the (possibly reduced) learning rate `lr`.
  double step(double metric, double lr);
  std::int64_t num_bad_epochs() const { return num_bad_epochs_; }

 private:
  // BEGIN SOLUTION ex4
  double factor_, threshold_;
  std::int64_t patience_;
  double best_;
  // STUB
  // // ex4: add the members your step() needs here
  // END SOLUTION
  std::int64_t num_bad_epochs_ = 0;
};

// ---- ex5: the training and evaluation loops ----------------------------------------------------------

using Loader = data::DataLoader<data::TensorDataset>;

/// One epoch of training: model.train(), then for every batch of `loader` the fixed order
/// zero_grad -> forward -> loss -> backward -> step. Returns the mean of loss.item() over batches.
double train_one_epoch(nn::Module& model, Loader& loader, optim::Optimizer& optimizer,
                       const nn::CrossEntropyLoss& criterion);

/// Accuracy (fraction in [0, 1]) of `model` over `loader`: model.eval(), no graph (NoGradGuard),
/// prediction = argmax over the class dimension.
double evaluate_accuracy(nn::Module& model, Loader& loader);

}  // namespace kindling::exercises::ch05
