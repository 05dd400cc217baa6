// ex5 — the training and evaluation loops.
#include "ch05/training_exercises.hpp"

namespace kindling::exercises::ch05 {

double train_one_epoch(nn::Module& model, Loader& loader, optim::Optimizer& optimizer,
                       const nn::CrossEntropyLoss& criterion) {
  // BEGIN SOLUTION ex5: model.train(); per batch: zero_grad, forward, loss, backward, step; sum loss.item()
  model.train();
  double total = 0;
  for (auto& [inputs, labels] : loader) {
    optimizer.zero_grad();
    Tensor loss = criterion(model(inputs), labels);
    loss.backward();
    optimizer.step();
    total += loss.item<double>();
  }
  return total / static_cast<double>(loader.size());
  // END SOLUTION
}

double evaluate_accuracy(nn::Module& model, Loader& loader) {
  // BEGIN SOLUTION ex5: model.eval(); NoGradGuard; count argmax(1) == labels
  model.eval();
  NoGradGuard no_grad;
  std::int64_t correct = 0, seen = 0;
  for (auto& [inputs, labels] : loader) {
    correct += (model(inputs).argmax(1) == labels).sum().item<std::int64_t>();
    seen += labels.size(0);
  }
  return seen ? static_cast<double>(correct) / static_cast<double>(seen) : 0.0;
  // END SOLUTION
}

}  // namespace kindling::exercises::ch05
