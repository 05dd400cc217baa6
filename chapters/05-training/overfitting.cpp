// Overfitting on purpose, then one regulariser at a time. A 1,000-image training slice
// and a 5,000-image validation slice of Fashion-MNIST's training set (split at random,
// checked first), a wide MLP, Adam, 30 epochs: baseline, + weight decay (AdamW), +
// Dropout. The losses per epoch go to ch05_overfitting.csv (the book plots them). The
// full run is 30 epochs; the book's own run is shorter.
// book: run-args --epochs 8
#include <fstream>

#include "common.hpp"

namespace {

struct WideNet : kd::nn::Module {
  kd::nn::Linear fc1{784, 512};
  kd::nn::Linear fc2{512, 512};
  kd::nn::Linear fc3{512, 10};
  kd::nn::ReLU relu;
  kd::nn::Dropout drop;
  explicit WideNet(double p) : drop(p) {
    register_module("fc1", fc1);
    register_module("fc2", fc2);
    register_module("fc3", fc3);
    register_module("relu", relu);
    register_module("drop", drop);
  }
  kd::Tensor forward(const kd::Tensor& x) override {
    kd::Tensor h = drop(relu(fc1(x.view({x.size(0), 784}))));
    return fc3(drop(relu(fc2(h))));
  }
};

// How many samples of each class a dataset holds.
template <class D>
std::vector<std::int64_t> class_counts(const D& data) {
  std::vector<std::int64_t> counts(10, 0);
  for (std::int64_t i = 0; i < data.size(); ++i)
    ++counts[data.get(i).target.template item<std::int64_t>()];
  return counts;
}

}  // namespace

int main(int argc, char** argv) {
  const int epochs = int_flag(argc, argv, "epochs", 30);
  auto full = fashion(kd::data::Split::Train);
  kd::Generator split_gen(42);
  auto parts =
      kd::data::random_split(full, {1000, 5000, full.size() - 6000}, &split_gen);
  auto& train_set = parts[0];
  auto& val_set = parts[1];

  // [snippet: check-split]
  // Before tuning anything: do training and validation data look alike?
  const auto train_counts = class_counts(train_set), val_counts = class_counts(val_set);
  std::printf("class        train %%   val %%\n");
  for (int c = 0; c < 10; ++c) {
    std::printf("%-12s %6.1f  %6.1f\n", kd::data::FashionMNIST::classes()[c].c_str(),
                100.0 * train_counts[c] / train_set.size(),
                100.0 * val_counts[c] / val_set.size());
  }
  // [end]

  struct Variant {
    const char* name;
    double weight_decay, dropout;
  };
  const Variant variants[] = {{"baseline", 0.0, 0.0},
                              {"+ weight decay 0.1", 0.1, 0.0},
                              {"+ dropout 0.5", 0.0, 0.5}};
  kd::data::DataLoader val_loader(val_set, {.batch_size = 500});
  std::ofstream csv("ch05_overfitting.csv");
  csv << "variant,epoch,train_loss,val_loss,val_accuracy\n";
  for (const Variant& v : variants) {
    kd::manual_seed(0);
    kd::data::DataLoader train_loader(train_set, {.batch_size = 32, .shuffle = true});
    WideNet model(v.dropout);
    // AdamW with weight_decay 0 is exactly Adam.
    kd::optim::AdamW optimizer(model.parameters(),
                               {.lr = 1e-3, .weight_decay = v.weight_decay});
    kd::nn::CrossEntropyLoss criterion;
    double best_val = 1e9;
    int best_epoch = 0;
    EvalResult last{};
    double last_train = 0;
    for (int epoch = 1; epoch <= epochs; ++epoch) {
      model.train();
      kd::train::RunningMean train_loss;
      for (auto& [images, labels] : train_loader) {
        optimizer.zero_grad();
        kd::Tensor loss = criterion(model(images), labels);
        loss.backward();
        optimizer.step();
        train_loss.add(loss.item<double>(), labels.size(0));
      }
      last = evaluate(model, val_loader);
      last_train = train_loss.mean();
      if (last.loss < best_val) best_val = last.loss, best_epoch = epoch;
      csv << v.name << "," << epoch << "," << last_train << "," << last.loss << ","
          << last.accuracy << "\n";
    }
    std::printf("%-19s train %.4f | val: best %.4f (epoch %2d), last %.4f",
                v.name, last_train, best_val, best_epoch, last.loss);
    std::printf(" | acc %.2f %%\n", 100 * last.accuracy);
  }
  return 0;
}
