// Two losses that will not go down on 512 Fashion-MNIST images: a detach() that keeps
// the gradient from the first layer (the gradient report shows a norm of 0 there), and
// exploding gradients from unscaled inputs (norms above 100), fixed by clipping.
#include "common.hpp"

namespace {

kd::nn::CrossEntropyLoss criterion;

// SimpleNet with a mistake in forward: the hidden activations are detached.
struct DetachedNet : SimpleNet {
  // [snippet: detached]
  kd::Tensor forward(const kd::Tensor& x) override {
    kd::Tensor h = relu(fc1(x.view({x.size(0), 784})));
    return fc2(h.detach());  // the mistake: no gradient flows back into fc1
  }
  // [end]
};

}  // namespace

int main() {
  auto train_set = fashion_subset(kd::data::Split::Train, 512);
  kd::data::DataLoader loader(train_set, {.batch_size = 512});
  auto [images, labels] = *loader.begin();

  std::printf("1. a detach() in forward\n");
  {
    kd::manual_seed(0);
    DetachedNet model;
    kd::optim::SGD opt(model.parameters(), {.lr = 0.1});
    opt.zero_grad();
    criterion(model(images), labels).backward();
    // [snippet: grad-report]
    std::printf("%s", dbg::grad_report(model).to_string().c_str());
    // [end]
  }

  std::printf("2. unscaled inputs (pixels 0-255): exploding gradients\n");
  kd::Tensor raw = images * 0.3530 + 0.2860;  // undo Normalize: [0, 1]
  raw = raw * 255.0;                          // and ToTensor: [0, 255]
  for (double clip : {0.0, 1.0}) {
    kd::manual_seed(0);
    SimpleNet model;
    kd::optim::SGD opt(model.parameters(), {.lr = 0.01});
    std::printf("   %s\n",
                clip > 0 ? "with clip_grad_norm_(params, 1.0)" : "no clipping");
    for (int step = 0; step <= 30; ++step) {
      opt.zero_grad();
      kd::Tensor loss = criterion(model(raw), labels);
      loss.backward();
      // [snippet: clip]
      // the total norm before clipping: what to watch (and to log)
      const double norm =
          kd::nn::utils::clip_grad_norm_(model.parameters(), clip > 0 ? clip : INFINITY)
              .item<double>();
      // [end]
      if (step % 6 == 0)
        std::printf(
            "   step %2d: loss %10.4g  gradient norm %10.4g  accuracy %5.1f %%\n", step,
            loss.item<double>(), norm, accuracy(model, raw, labels));
      opt.step();
    }
  }
}
