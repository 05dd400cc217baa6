// Four ways to get a NaN (or infinite) loss, each reproduced on 512 Fashion-MNIST
// images, found with a tool of the debug layer, and fixed: a too-large learning rate,
// NaN in the data, log(0) from a hand-written log(softmax), and a bad initialisation.
#include <cmath>
#include <fstream>

#include "common.hpp"

namespace {

kd::nn::CrossEntropyLoss criterion;

// Every step's loss and gradient norm, for the book's plot (ch07_nan_loss.csv), and
// every parameter's own gradient norm (ch07_layer_norms.csv).
std::ofstream history("ch07_nan_loss.csv");
std::ofstream layers("ch07_layer_norms.csv");

// Trains `model` for `steps` SGD/Adam steps on one loader; prints the loss and the
// total gradient norm every few steps of the first `print_steps`, writes every step to
// `history` (as `run`), and stops at the first non-finite loss.
template <class Loader>
void train(SimpleNet& model, kd::optim::Optimizer& opt, Loader& loader, int steps,
           const char* run, int print_steps) {
  int step = 0;
  while (step < steps) {
    for (auto& [images, labels] : loader) {
      opt.zero_grad();
      kd::Tensor loss = criterion(model(images), labels);
      loss.backward();
      // [snippet: norm-watch]
      // max_norm = inf: nothing is clipped, the total norm is returned
      const double norm =
          kd::nn::utils::clip_grad_norm_(model.parameters(), INFINITY).item<double>();
      // [end]
      // [snippet: layer-norms]
      for (const auto& [name, p] : model.named_parameters()) {  // one norm each
        const kd::Tensor g = p.grad();
        layers << run << "," << step << "," << name << "," << g.norm().item<double>()
               << "\n";
      }
      // [end]
      const double l = loss.item<double>();
      history << run << "," << step << "," << l << "," << norm << "\n";
      if (step < print_steps && (step % 4 == 0 || !std::isfinite(l)))
        std::printf("  step %2d: loss %10.4g, gradient norm %10.4g\n", step, l, norm);
      if (!std::isfinite(l)) return;
      opt.step();
      if (++step == steps) return;
    }
  }
}

}  // namespace

int main() {
  auto train_set = fashion_subset(kd::data::Split::Train, 512);
  kd::data::DataLoader loader(train_set, {.batch_size = 64});

  std::printf("1. SGD with lr = 20 (too large)\n");
  {
    kd::manual_seed(0);
    SimpleNet model;
    kd::optim::SGD opt(model.parameters(), {.lr = 20.0});
    history << "run,step,loss,grad_norm\n";
    layers << "run,step,parameter,grad_norm\n";
    train(model, opt, loader, 24, "lr = 20", 24);
    std::printf("   fix: lr = 0.1\n");
    kd::manual_seed(0);
    SimpleNet fixed;
    kd::optim::SGD good(fixed.parameters(), {.lr = 0.1});
    train(fixed, good, loader, 24, "lr = 0.1", 9);  // the plot follows it as long
  }

  std::printf("2. one image holds NaN\n");
  {
    // [snippet: nan-data]
    auto [images, labels] =
        *kd::data::DataLoader(train_set, {.batch_size = 512}).begin();
    images.data_ptr<float>()[100 * 784 + 300] = NAN;  // a corrupt pixel in image 100
    kd::manual_seed(0);
    SimpleNet model;
    std::printf("   loss = %g\n", criterion(model(images), labels).item<double>());
    kd::data::TensorDataset bad(images, labels);
    std::printf("%s", dbg::scan(bad, {.num_classes = 10}).to_string().c_str());
    // [end]
  }

  std::printf("3. log(0): a hand-written cross-entropy on softmax outputs\n");
  {
    kd::manual_seed(0);
    SimpleNet model;
    {
      kd::NoGradGuard no_grad;
      model.fc2.weight.mul_(500.0);  // logits grow large, as after a few bad steps
    }
    auto [images, labels] = *loader.begin();
    // [snippet: log-zero]
    kd::autograd::detect_anomaly anomaly;  // record where every node is made
    kd::Tensor probs = model(images).softmax(1);
    kd::Tensor loss = -probs.log().gather(1, labels.unsqueeze(1)).mean();
    std::printf("   loss = %g\n", loss.item<double>());
    try {
      loss.backward();
    } catch (const kd::autograd::AnomalyError& e) {
      std::printf("%s\n", e.what());
    }
    // [end]
    // [snippet: log-zero-fix]
    kd::Tensor fixed = criterion(model(images), labels);  // log_softmax inside: stable
    std::printf("   fix: CrossEntropyLoss on the logits: loss = %.4f\n",
                fixed.item<double>());
    // [end]
  }

  std::printf("4. a bad initialisation: fc1's weights 300 times too large\n");
  {
    kd::manual_seed(0);
    SimpleNet model;
    {
      kd::NoGradGuard no_grad;
      model.fc1.weight.mul_(300.0);
    }
    auto [images, labels] = *loader.begin();
    // [snippet: doctor-init]
    auto adam = [](const std::vector<kd::Tensor>& params) {
      return std::make_unique<kd::optim::Adam>(params,
                                               kd::optim::AdamOptions{.lr = 1e-3});
    };
    auto report = dbg::doctor(model, criterion, adam, images, labels);
    std::printf("%s", report.to_string().c_str());
    // [end]
  }
}
