// minGPT's adder: a GPT of 2 layers learns to add two-digit numbers from 9000 of the
// 10000 possible sums, and is tested on the 1000 it never saw. The recipe of the
// chapter's milestone. Writes ch12_adder_loss.csv for the chapter's figure.
// book: timeout 300
#include "common.hpp"

int main() {
  kd::manual_seed(0);
  // 9000 sums to train on, 1000 held out (never seen in training).
  kd::Tensor perm = kd::randperm(10000);
  std::vector<std::int64_t> order = perm.to_vector<std::int64_t>();
  const kd::Tensor test = problems({order.begin(), order.begin() + 1000});
  const kd::Tensor train = problems({order.begin() + 1000, order.end()});
  kd::text::GPT model({.vocab_size = 10,
                       .block_size = 6,
                       .n_layer = 2,
                       .n_head = 4,
                       .n_embd = 64,
                       .dropout = 0.0,
                       .bias = true});
  const int steps = 1500;
  kd::optim::AdamW opt = make_adamw(model, 2e-3);
  std::ofstream csv("ch12_adder_loss.csv");
  csv << "step,loss\n";
  const double t0 = now();
  // [snippet: adder-train]
  for (int step = 0; step < steps; ++step) {
    opt.set_lr(lr_at(step, steps, /*warmup=*/100, 2e-3));
    kd::Tensor rows = kd::randint(0, train.size(0), {64});
    kd::Tensor batch = train.index_select(0, rows);            // [64, 7]
    kd::Tensor logits = model.forward(batch.narrow(1, 0, 6));  // [64, 6, 10]
    // Positions 3, 4, 5 predict the sum's digits (tokens 4, 5, 6); the first digits
    // are the question, which no model can predict: they are left out of the loss.
    kd::Tensor loss = F::cross_entropy(logits.narrow(1, 3, 3).reshape({-1, 10}),
                                       batch.narrow(1, 4, 3).reshape({-1}));
    opt.zero_grad();
    loss.backward();
    kd::nn::utils::clip_grad_norm_(model.parameters(), 1.0);
    opt.step();
    csv << step + 1 << "," << loss.item<double>() << "\n";  // for the figure
    if ((step + 1) % 250 == 0)
      std::printf("step %4d  loss %.4f\n", step + 1, loss.item<double>());
  }
  // [end]
  const double seconds = now() - t0;
  std::printf("%d steps in %.1f s: %.2f ms per step\n", steps, seconds,
              1e3 * seconds / steps);
  // [snippet: adder-test]
  model.eval();
  kd::Tensor answers = kd::text::generate(model, test.narrow(1, 0, 4).contiguous(), 3,
                                          {.temperature = 0.0});  // greedy, KV cache
  kd::Tensor right = kd::all(answers.narrow(1, 4, 3) == test.narrow(1, 4, 3), 1);
  // [end]
  std::printf("held-out sums answered exactly: %lld of 1000\n",
              static_cast<long long>(right.sum().item<std::int64_t>()));
  for (std::int64_t i = 0; i < 4; ++i) {
    const auto t = test[i].to_vector<std::int64_t>(),
               a = answers[i].to_vector<std::int64_t>();
    std::printf("  %lld%lld + %lld%lld = %lld%lld%lld\n", (long long)t[0],
                (long long)t[1], (long long)t[2], (long long)t[3], (long long)a[6],
                (long long)a[5], (long long)a[4]);
  }
}
