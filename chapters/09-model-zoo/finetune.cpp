// Pretrain, then fine-tune: a small ResNet learns Fashion-MNIST's classes 0-4
// (T-shirt/top ... Coat), gets a new head, and learns classes 5-9 (Sandal ... Ankle
// boot) from 100 images per class, then from 20 - against the same network trained from
// scratch on those images, and against the pretrained backbone frozen with only the
// head trained. Accuracy on all the held-out test images of classes 5-9. Writes
// ch09_finetune.csv (the learning curves). `--init K` starts the random generator at K
// (another initialisation, other batches).
// book: timeout 300
#include <fstream>

#include "common.hpp"

namespace {

constexpr std::int64_t kPretrainPerClass = 1000;  // 5000 images of classes 0-4
constexpr int kPretrainEpochs = 2;
constexpr std::int64_t kBatch = 50;
constexpr int kSteps = 150;     // every run of the new task: 150 batches of 50
constexpr int kEvalEvery = 10;  // a point of the learning curve every 10 steps

// Draws batches of `data` in a random order, a fresh order each time it is used up.
class Batches {
 public:
  explicit Batches(const Images& data) : data_(data) {}
  std::pair<kd::Tensor, kd::Tensor> next() {
    const std::int64_t n = data_.x.size(0);
    if (pos_ + kBatch > n) {
      order_ = kd::randperm(n);
      pos_ = 0;
    }
    kd::Tensor idx = order_.narrow(0, pos_, kBatch);
    pos_ += kBatch;
    return {kd::index_select(data_.x, 0, idx), kd::index_select(data_.y, 0, idx)};
  }

 private:
  const Images& data_;
  kd::Tensor order_;
  std::int64_t pos_ = 1 << 30;
};

// [snippet: train-step]
// One step. `frozen`: the backbone stays in eval() (BatchNorm uses and keeps its
// running statistics), only the head is in training mode.
double train_step(SmallResNet& model, kd::optim::Optimizer& optimizer, Batches& batches,
                  bool frozen) {
  model.train();
  if (frozen) {
    model.eval();
    model.fc->train();
  }
  auto [x, y] = batches.next();  // [50, 1, 28, 28], [50]
  kd::Tensor loss = kd::nn::CrossEntropyLoss()(model(x), y);
  optimizer.zero_grad();
  loss.backward();
  optimizer.step();
  return loss.item<double>();
}
// [end]

struct Curves {
  const Images& train;      // the little data of classes 5-9
  const Images& curve_set;  // 500 test images, for the curve
  const Images& test;       // all 5000 test images of classes 5-9, for the result
  std::ofstream& csv;
};

struct Result {
  double after_10 = 0;  // on the 500 test images of the curve
  double final = 0;     // on all 5000
};

// 150 steps; the curve's points on 500 test images, the result on all of them.
Result run(const std::string& name, SmallResNet& model, kd::optim::Optimizer& optimizer,
           bool frozen, Curves& c) {
  Result r;
  Batches batches(c.train);
  const std::int64_t per_class = c.train.x.size(0) / 5;
  double loss = 0;
  for (int step = 1; step <= kSteps; ++step) {
    loss += train_step(model, optimizer, batches, frozen);
    if (step % kEvalEvery == 0) {
      const double acc = accuracy(model, c.curve_set);
      if (step == kEvalEvery) r.after_10 = acc;
      c.csv << per_class << ',' << name << ',' << step << ',' << loss / kEvalEvery
            << ',' << acc << '\n';
      loss = 0;
    }
  }
  r.final = accuracy(model, c.test);
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  const int init =
      argc == 3 && std::string(argv[1]) == "--init" ? std::stoi(argv[2]) : 0;
  kd::manual_seed(static_cast<std::uint64_t>(init));
  using kd::data::Split;
  const Images pretrain = fashion_classes(Split::Train, 0, kPretrainPerClass);
  const Images pretest = fashion_classes(Split::Test, 0, 200);
  const Images curve_set = fashion_classes(Split::Test, 5, 100);
  const Images test = fashion_classes(Split::Test, 5, -1);  // every test image of 5-9
  std::printf("pretraining: %lld images of classes 0-4, %d epochs\n",
              static_cast<long long>(pretrain.x.size(0)), kPretrainEpochs);
  std::printf("new task: classes 5-9, %d steps of batches of %lld per run\n", kSteps,
              static_cast<long long>(kBatch));
  std::printf("test: %lld held-out images of classes 5-9\n",
              static_cast<long long>(test.x.size(0)));
  std::ofstream csv("ch09_finetune.csv");
  csv << "per_class,run,step,train_loss,test_accuracy\n";

  // [snippet: pretrain]
  SmallResNet pretrained(5);
  {
    kd::optim::Adam adam(pretrained.parameters(), {.lr = 2e-3});
    Batches batches(pretrain);
    const int steps = kPretrainEpochs * static_cast<int>(pretrain.x.size(0) / kBatch);
    for (int step = 1; step <= steps; ++step)
      train_step(pretrained, adam, batches, false);
  }
  std::printf("pretrained: accuracy on 1000 test images of classes 0-4 %.1f %%\n\n",
              accuracy(pretrained, pretest));
  const kd::StateDict backbone = pretrained.state_dict();  // with fc for classes 0-4
  // [end]

  std::printf("%-10s %5s %13s %13s %16s\n", "per class", "steps", "fine-tuned",
              "from scratch", "frozen backbone");
  for (std::int64_t per_class : {100, 20}) {
    const Images little = fashion_classes(Split::Train, 5, per_class);
    Curves c{little, curve_set, test, csv};
    Result acc[3];
    {
      // [snippet: finetune]
      SmallResNet model(5);
      model.load_state_dict(backbone);
      model.fc = kd::nn::Linear(64, 5);  // a new head for classes 5-9
      // Two parameter groups: the pretrained layers move slowly, the new head fast.
      std::vector<kd::Tensor> body, head = model.fc->parameters();
      for (auto& [name, p] : model.named_parameters())
        if (name.rfind("fc.", 0) != 0) body.push_back(p);
      kd::optim::Adam adam(body, {.lr = 5e-4});
      adam.add_param_group(head, {.lr = 2e-3});
      // [end]
      acc[0] = run("fine-tuned", model, adam, false, c);
    }
    {
      SmallResNet model(5);  // the same network, from its random initialisation
      kd::optim::Adam adam(model.parameters(), {.lr = 2e-3});
      acc[1] = run("from scratch", model, adam, false, c);
    }
    {
      // [snippet: frozen]
      SmallResNet model(5);
      model.load_state_dict(backbone);
      model.requires_grad_(false);       // the backbone: no gradients, no updates
      model.fc = kd::nn::Linear(64, 5);  // a new module trains
      kd::optim::Adam adam(model.fc->parameters(), {.lr = 1e-2});
      // [end]
      acc[2] = run("frozen backbone", model, adam, true, c);
    }
    std::printf("%-10lld %5d %11.1f %% %11.1f %% %14.1f %%\n",
                static_cast<long long>(per_class), kEvalEvery, acc[0].after_10,
                acc[1].after_10, acc[2].after_10);
    std::printf("%-10lld %5d %11.1f %% %11.1f %% %14.1f %%\n",
                static_cast<long long>(per_class), kSteps, acc[0].final, acc[1].final,
                acc[2].final);
  }
  std::printf("(after %d steps: on %lld of the test images; after %d: on all %lld)\n",
              kEvalEvery, static_cast<long long>(curve_set.x.size(0)), kSteps,
              static_cast<long long>(test.x.size(0)));
}
