// A character-level GPT trained on Debian's fortunes: 4 layers, 4 heads, 128 channels,
// a context of 64 characters, 12 sequences per step. Prints the training and validation
// losses as it goes (and writes ch12_text_loss.csv for the chapter's figure), samples
// at three temperatures, the KV cache's speed, and saves the model as safetensors with
// GPT-2's parameter names (ch12_gpt.safetensors) for generate.py, PyTorch's side.
//   build/chapters/ch12_train_text [--steps N]
// book: run-args --steps 1200
// book: timeout 600
#include <cstring>
#include <numeric>

#include "common.hpp"

namespace {
// A sample, each of its lines after "  | " (so that it stands out, tabs shown as
// spaces).
void print_sample(const std::string& text) {
  std::string line;
  for (const char c : text + "\n") {
    if (c == '\n') {
      std::printf("  | %s\n", line.c_str());
      line.clear();
    } else {
      line += c == '\t' ? std::string("    ") : std::string(1, c);
    }
  }
}
}  // namespace

int main(int argc, char** argv) {
  int steps = 1200;
  for (int i = 1; i + 1 < argc; ++i)
    if (std::strcmp(argv[i], "--steps") == 0) steps = std::atoi(argv[i + 1]);
  kd::manual_seed(1337);
  // [snippet: data]
  const std::string text = fortunes_corpus();
  const kd::text::CharTokenizer tok(text);
  const std::vector<std::int64_t> ids = tok.encode(text);
  const auto n = static_cast<std::int64_t>(ids.size());
  kd::Tensor data = kd::tensor(ids, {n});
  kd::Tensor train = data.narrow(0, 0, n * 9 / 10);  // the first 90 %
  kd::Tensor val = data.narrow(0, n * 9 / 10, n - n * 9 / 10);
  // [end]
  std::printf("corpus: %lld characters, %lld distinct\n", static_cast<long long>(n),
              static_cast<long long>(tok.vocab_size()));

  // [snippet: model]
  kd::text::GPTConfig config{.vocab_size = tok.vocab_size(),
                             .block_size = 64,
                             .n_layer = 4,
                             .n_head = 4,
                             .n_embd = 128,
                             .dropout = 0.0,
                             .bias = true};
  kd::text::GPT model(config);
  // [end]
  std::int64_t params = 0;
  for (const auto& p : model.parameters()) params += p.numel();
  std::printf("GPT: %lld parameters\n", static_cast<long long>(params));

  const std::int64_t B = 12, T = config.block_size;
  // The validation loss over 16 fixed batches of held-out text.
  kd::Generator val_gen(7);
  const kd::Tensor val_starts =
      kd::randint(0, val.size(0) - T - 1, {16 * B}, {.dtype = kd::kInt64}, &val_gen);
  auto val_loss = [&] {
    kd::NoGradGuard no_grad;
    double sum = 0;
    for (std::int64_t b = 0; b < 16; ++b) {
      auto [x, y] = text_batch(val, val_starts.narrow(0, b * B, B), T);
      sum += model.forward(x, y).second.item<double>();
    }
    return sum / 16;
  };

  std::ofstream csv("ch12_text_loss.csv");
  csv << "step,train_loss,val_loss\n";
  // [snippet: train]
  kd::optim::AdamW opt = make_adamw(model, 3e-3);
  double t0 = now(), running = 0;
  for (int step = 0; step < steps; ++step) {
    opt.set_lr(lr_at(step, steps, /*warmup=*/100, 3e-3));
    kd::Tensor starts = kd::randint(0, train.size(0) - T - 1, {B});
    auto [x, y] = text_batch(train, starts, T);  // [12, 64] each
    auto [logits, loss] = model.forward(x, y);
    opt.zero_grad();
    loss.backward();
    kd::nn::utils::clip_grad_norm_(model.parameters(), 1.0);
    opt.step();
    running += loss.item<double>();
    if ((step + 1) % 100 == 0) {
      const double v = val_loss();
      std::printf("step %4d  train loss %.3f  val loss %.3f  %.1f ms/step\n", step + 1,
                  running / 100, v, 1e3 * (now() - t0) / (step + 1));
      csv << step + 1 << "," << running / 100 << "," << v << "\n";
      running = 0;
    }
  }
  // [end]
  std::printf("trained %d steps in %.0f s\n", steps, now() - t0);

  // [snippet: sample]
  model.eval();
  kd::Tensor prompt = kd::tensor(tok.encode("A "), {1, 2});
  for (const double temperature : {0.5, 0.8, 1.0}) {
    kd::Generator gen(42);
    kd::Tensor out = kd::text::generate(
        model, prompt, 160, {.temperature = temperature, .top_k = 20}, &gen);
    std::printf("--- temperature %.1f, top-k 20:\n", temperature);
    print_sample(tok.decode(out[0].to_vector<std::int64_t>()));
  }
  // [end]

  // Greedy tokens for the PyTorch twin (generate.py) to reproduce from the saved
  // weights.
  kd::Tensor greedy = kd::text::generate(model, prompt, 60, {.temperature = 0.0});
  {
    std::ofstream g("ch12_greedy_ids.txt");
    for (const std::int64_t id : greedy[0].to_vector<std::int64_t>()) g << id << " ";
  }
  // [snippet: save]
  std::vector<std::int64_t> every_id(static_cast<std::size_t>(tok.vocab_size()));
  std::iota(every_id.begin(), every_id.end(), std::int64_t{0});
  // GPT-2's names (transformer.h.0.attn.c_attn.weight, ...), the vocabulary alongside.
  kd::save(model.state_dict(), "ch12_gpt.safetensors",
           {{"vocab", tok.decode(every_id)}});
  // [end]
  std::printf("saved ch12_gpt.safetensors (%zu tensors)\n", model.state_dict().size());

  // [snippet: kv-cache]
  // Tokens per second, generating 60 characters after the 2 of the prompt, with and
  // without the KV cache (the same tokens either way: greedy). The two take turns for
  // 2 s, so that a busy moment of the machine slows both alike.
  double seconds[2] = {0, 0};
  kd::Tensor out[2];
  int rounds = 0;
  for (const double start = now(); now() - start < 2.0; ++rounds) {
    for (const bool cache : {false, true}) {
      const double t = now();
      out[cache] = kd::text::generate(model, prompt, 60,
                                      {.temperature = 0.0, .use_cache = cache});
      seconds[cache] += now() - t;
    }
  }
  for (const bool cache : {false, true}) {
    std::printf("KV cache %-3s: %6.0f tokens/s, same tokens as above: %s\n",
                cache ? "on" : "off", 60.0 * rounds / seconds[cache],
                kd::equal(out[cache], greedy) ? "yes" : "no");
  }
  // [end]
}
