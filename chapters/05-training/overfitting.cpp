// Overfitting on purpose, then one regulariser at a time. A 1,000-image training slice
// and a 5,000-image validation slice of Fashion-MNIST's training set (split at random,
// checked first), a wide MLP, Adam, 30 epochs: baseline, + weight decay (AdamW), +
// Dropout.
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
  std::vector<kd::train::PlotSeries> curves;
  for (const Variant& v : variants) {
    kd::manual_seed(0);
    kd::data::DataLoader train_loader(train_set, {.batch_size = 32, .shuffle = true});
    WideNet model(v.dropout);
    // AdamW with weight_decay 0 is exactly Adam.
    kd::optim::AdamW optimizer(model.parameters(),
                               {.lr = 1e-3, .weight_decay = v.weight_decay});
    kd::nn::CrossEntropyLoss criterion;
    kd::train::PlotSeries train_curve{std::string(v.name) + " train", {}, {}};
    kd::train::PlotSeries val_curve{std::string(v.name) + " val", {}, {}};
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
      train_curve.x.push_back(epoch);
      train_curve.y.push_back(last_train);
      val_curve.x.push_back(epoch);
      val_curve.y.push_back(last.loss);
    }
    std::printf(
        "%-20s final train loss %.4f | val loss: best %.4f (epoch %d), final %.4f | "
        "final val acc %.2f %%\n",
        v.name, last_train, best_val, best_epoch, last.loss, 100 * last.accuracy);
    if (curves.empty()) curves.push_back(train_curve);
    curves.push_back(val_curve);
  }
  kd::train::write_svg_plot("ch05_overfitting.svg", "1,000 training images, wide MLP",
                            "epoch", "loss", curves);
  std::printf("wrote ch05_overfitting.svg\n");
  return 0;
}
