// The fixed order of a training step, measured: zero_grad -> forward -> loss ->
// backward -> step. (1) Loss curves of SimpleNet with and without zero_grad(), for SGD
// and Adam (ch05_zero_grad.csv; the book plots them). (2) zero_grad() called between
// backward() and step(): how far does one step still move the weights, for SGD,
// SGD with momentum and Adam?
#include <fstream>

#include "common.hpp"

namespace {

kd::data::Subset<kd::data::FashionMNIST> first_images(std::int64_t n) {
  std::vector<std::int64_t> idx(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) idx[static_cast<std::size_t>(i)] = i;
  return {fashion(kd::data::Split::Train), idx};
}

// The largest change of any weight of `model` since `before` (a state_dict clone).
double largest_change(SimpleNet& model, const std::vector<kd::Tensor>& before) {
  double out = 0;
  auto params = model.parameters();
  for (std::size_t i = 0; i < params.size(); ++i)
    out = std::max(out, (params[i] - before[i]).abs().max().item<double>());
  return out;
}

std::vector<kd::Tensor> snapshot(SimpleNet& model) {
  std::vector<kd::Tensor> out;
  for (const kd::Tensor& p : model.parameters()) out.push_back(p.detach().clone());
  return out;
}

}  // namespace

// (2): 20 correct steps, then one with zero_grad() in the wrong place.
double wrong_order_step(
    kd::optim::Optimizer& optimizer, SimpleNet& model,
    kd::data::DataLoader<kd::data::Subset<kd::data::FashionMNIST>>& loader) {
  kd::nn::CrossEntropyLoss criterion;
  int step = 0;
  for (auto& [images, labels] : loader) {
    if (++step > 20) break;
    optimizer.zero_grad();
    criterion(model(images), labels).backward();
    optimizer.step();
  }
  const auto before = snapshot(model);
  auto [images, labels] = *loader.begin();
  // [snippet: wrong-order]
  kd::Tensor loss = criterion(model(images), labels);
  loss.backward();
  optimizer.zero_grad();  // too late: this step's gradients are thrown away
  optimizer.step();       // ... but momentum and Adam's averages still move weights
  // [end]
  return largest_change(model, before);
}

int main() {
  auto data = first_images(6400);  // 200 steps of 32 images
  kd::nn::CrossEntropyLoss criterion;
  std::ofstream csv("ch05_zero_grad.csv");
  csv << "optimizer,variant,step,loss\n";
  std::printf("mean loss over the last 50 of 200 steps:\n");
  for (const char* opt : {"SGD lr 0.1", "Adam lr 1e-3"}) {
    for (bool zero : {true, false}) {
      kd::manual_seed(0);  // the same weights and batches for every run
      kd::data::DataLoader loader(data, {.batch_size = 32, .shuffle = true});
      SimpleNet model;
      std::unique_ptr<kd::optim::Optimizer> optimizer;
      if (opt[0] == 'S')
        optimizer = std::make_unique<kd::optim::SGD>(model.parameters(),
                                                     kd::optim::SGDOptions{.lr = 0.1});
      else
        optimizer = std::make_unique<kd::optim::Adam>(
            model.parameters(), kd::optim::AdamOptions{.lr = 1e-3});
      std::vector<double> losses;
      // [snippet: forgot]
      for (auto& [images, labels] : loader) {
        if (zero) optimizer->zero_grad();  // without it, .grad sums every step so far
        kd::Tensor loss = criterion(model(images), labels);
        loss.backward();
        optimizer->step();
        losses.push_back(loss.item<double>());
      }
      // [end]
      double last50 = 0;
      for (std::size_t i = 0; i < losses.size(); ++i) {
        csv << opt << "," << (zero ? "with zero_grad" : "without zero_grad") << ","
            << i + 1 << "," << losses[i] << "\n";
        if (i >= losses.size() - 50) last50 += losses[i] / 50;
      }
      std::printf("  %-13s %-18s %.4f\n", opt,
                  zero ? "with zero_grad:" : "without:", last50);
    }
  }

  std::printf("\nzero_grad() between backward() and step(), after 20 correct steps:\n");
  for (const char* name : {"SGD", "SGD, momentum 0.9", "Adam"}) {
    kd::manual_seed(0);
    kd::data::DataLoader loader(data, {.batch_size = 32});
    SimpleNet model;
    double moved = 0;
    if (name[0] == 'A') {
      kd::optim::Adam adam(model.parameters(), {.lr = 1e-3});
      moved = wrong_order_step(adam, model, loader);
    } else {
      kd::optim::SGD sgd(model.parameters(),
                         {.lr = 0.01, .momentum = name[3] == ',' ? 0.9 : 0.0});
      moved = wrong_order_step(sgd, model, loader);
    }
    std::printf("  %-18s the step moved a weight by up to %.2e\n", name, moved);
  }
  return 0;
}
