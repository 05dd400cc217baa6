// Saving weights vs a resumable checkpoint. Train 4 epochs straight; then train 2, save
// a checkpoint, throw everything away, rebuild fresh objects, load the checkpoint and
// train 2 more: the losses are bit-for-bit the same. Then load the weights for
// inference and classify a few test images.
#include "common.hpp"

namespace {

// A small slice of Fashion-MNIST so the demonstration runs in seconds.
kd::data::Subset<kd::data::FashionMNIST> first(const kd::data::FashionMNIST& data,
                                               std::int64_t n) {
  std::vector<std::int64_t> idx(n);
  for (std::int64_t i = 0; i < n; ++i) idx[i] = i;
  return kd::data::Subset<kd::data::FashionMNIST>(data, idx);
}

struct Run {
  SimpleNet model;
  kd::optim::Adam optimizer{model.parameters(), {.lr = 1e-3}};
  kd::optim::StepLR scheduler{optimizer, 1, 0.5};
};

template <class Loader>
double train_epoch(Run& r, Loader& loader) {
  r.model.train();
  kd::nn::CrossEntropyLoss criterion;
  double total = 0;
  for (auto& [images, labels] : loader) {
    r.optimizer.zero_grad();
    kd::Tensor loss = criterion(r.model(images), labels);
    loss.backward();
    r.optimizer.step();
    total += loss.item<double>();
  }
  r.scheduler.step();
  return total / loader.size();
}

}  // namespace

int main() {
  auto train_set = fashion(kd::data::Split::Train);
  auto subset = first(train_set, 3200);
  kd::data::DataLoader loader(subset, {.batch_size = 32, .shuffle = true});

  kd::manual_seed(0);
  std::vector<double> straight;
  {
    Run r;
    for (int e = 0; e < 4; ++e) straight.push_back(train_epoch(r, loader));
  }

  kd::manual_seed(0);
  std::vector<double> resumed;
  {
    Run r;
    for (int e = 0; e < 2; ++e) resumed.push_back(train_epoch(r, loader));
    // [snippet: checkpoint]
    // clang-format off
    kd::train::save_checkpoint({.model = r.model.state_dict(),
                                .optimizer = r.optimizer.state_dict(),  // m, v, step
                                .scheduler = r.scheduler.state_dict(),  // lr position
                                .epoch = 2,
                                .loss = resumed.back(),
                                .rng_state = kd::default_generator().get_state()},
                               "ch05_resume.safetensors");
    // clang-format on
    // [end]
  }  // everything is destroyed, as if the program had stopped here

  kd::manual_seed(12345);  // a new process would not have the old random state
  {
    // [snippet: resume]
    Run r;  // fresh model, optimizer and scheduler
    kd::train::Checkpoint c = kd::train::load_checkpoint("ch05_resume.safetensors");
    r.model.load_state_dict(c.model);
    r.optimizer.load_state_dict(c.optimizer);
    r.scheduler.load_state_dict(c.scheduler);
    kd::default_generator().set_state(c.rng_state);
    for (std::int64_t e = c.epoch; e < 4; ++e)
      resumed.push_back(train_epoch(r, loader));
    // [end]
    kd::save(r.model.state_dict(), "ch05_resume_weights.safetensors");
  }
  std::printf("epoch   straight run     resumed run      identical\n");
  for (int e = 0; e < 4; ++e) {
    std::printf("%5d   %.12f   %.12f   %s%s\n", e + 1, straight[e], resumed[e],
                straight[e] == resumed[e] ? "yes" : "NO",
                e >= 2 ? "  (after the reload)" : "");
  }

  // [snippet: inference]
  SimpleNet model;                                                     // 1. build
  model.load_state_dict(kd::load("ch05_resume_weights.safetensors"));  // 2. load
  model.eval();                                                        // 3. eval mode
  kd::NoGradGuard no_grad;
  auto test_set = fashion(kd::data::Split::Test);
  for (std::int64_t i = 0; i < 5; ++i) {
    auto [image, label] = test_set.get(i);
    kd::Tensor probs = model(image.unsqueeze(0)).softmax(1);  // [1, 10]
    const auto k = probs.argmax(1).item<std::int64_t>();
    std::printf("test image %lld: predicted %-12s (%.0f %%), true %s\n",
                static_cast<long long>(i), kd::data::FashionMNIST::classes()[k].c_str(),
                100 * probs[0][k].item<double>(),
                kd::data::FashionMNIST::classes()[label.item<std::int64_t>()].c_str());
  }
  // [end]
  return 0;
}
