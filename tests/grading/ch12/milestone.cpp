// Chapter 12's milestone: your attention trains a small GPT to add two-digit numbers.
// minGPT's "adder": a + b = c with a, b in 0..99 is the 7 tokens a1 a0 b1 b0 c0 c1 c2 (the sum's digits
// reversed, so the model writes the ones digit first, as we add by hand). The model reads the first 6
// and learns to predict the sum's 3 digits (the loss counts positions 3..5 only: the inputs are not
// predictable). Your pieces are all on the path: the causal mask (ex1) and attention (ex2) in every
// block, heads split and merged (ex3); generation of the answers with a KV cache (ex1's offset).
//
// What it writes to OUT_DIR, and what milestone.py does with it:
//   init.<param>.npy      the parameters before training (nanoGPT's initialisation, seeded by the checker)
//   parity.<param>.npy    after the first 20 AdamW steps on the checker's batches -> the checker replays
//                         them with a PyTorch twin of the model from init.* and compares
//   <param>.npy           after training -> the checker's own greedy answers on the 1000 held-out sums
//   answers.npy           the program's greedy answers (generate() with the KV cache) to the held-out
//                         prompts -> must be the twin's answers
//   probe_masks.npy       causal_mask for the checker's (L, S, offset) triples, flattened (ex1)
//   probe_merges.npy      ByteBPE::train's merges on the checker's text, then its encoding of another (ex4)
//   probe_probs.npy       next_token_probs for the checker's logits and settings (ex5)
//
//   milestone_ch12 IN_DIR OUT_DIR   (IN_DIR: probe_*.npy and probe_corpus.txt / probe_text.txt)
#include "milestone_main.hpp"
#include <kindling/kindling.hpp>
#include <kindling/text.hpp>
#include <kindling/text/pieces.hpp>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace kd = kindling;

namespace {

constexpr std::int64_t kBatch = 64;
constexpr int kParitySteps = 20;
constexpr int kSteps = 1500;
constexpr double kLr = 2e-3;
constexpr int kWarmup = 100;

/// The chapter's schedule: linear warm-up, then a cosine from kLr down to kLr / 10.
double lr_at(int step) {
  const double warm = std::min(1.0, (step + 1.0) / kWarmup);
  const double pi = std::acos(-1.0);
  return kLr * warm * (0.1 + 0.9 * 0.5 * (1.0 + std::cos(pi * step / kSteps)));
}

/// The 7 tokens of problem i (a = i / 100, b = i % 100).
std::vector<std::int64_t> render(std::int64_t i) {
  const std::int64_t a = i / 100, b = i % 100, c = a + b;
  return {a / 10, a % 10, b / 10, b % 10, c % 10, c / 10 % 10, c / 100};
}

/// The problems `ids` as a [n, 7] int64 tensor.
kd::Tensor problems(const std::vector<std::int64_t>& ids) {
  std::vector<std::int64_t> flat;
  for (const std::int64_t i : ids)
    for (const std::int64_t t : render(i)) flat.push_back(t);
  return kd::tensor(flat, {static_cast<std::int64_t>(ids.size()), 7});
}

std::vector<std::int64_t> ints(const kd::Tensor& t) {
  const kd::Tensor c = t.to(kd::kInt64).contiguous().reshape({-1});
  return c.to_vector<std::int64_t>();
}

std::string read_text(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

void save_params(kd::text::GPT& m, const std::string& dir, const std::string& prefix) {
  for (auto& [name, p] : m.named_parameters()) kd::save_npy(p.detach().to(kd::kFloat32), dir + "/" + prefix + name + ".npy");
}

void probes(const std::string& in, const std::string& out) {
  namespace detail = kd::text::detail;
  {  // ex1: rows (L, S, offset)
    const auto t = ints(kd::load_npy(in + "/probe_masks.npy", kd::kInt64));
    std::vector<kd::Tensor> masks;
    for (std::size_t i = 0; i + 2 < t.size(); i += 3)
      masks.push_back(detail::causal_mask(t[i], t[i + 1], t[i + 2]).to(kd::kInt64).reshape({-1}));
    kd::save_npy(kd::cat(masks, 0), out + "/probe_masks.npy");
  }
  {  // ex4: train on the corpus, then encode the text; the merges (2 ids each), -1, the encoding
    const std::int64_t vocab = ints(kd::load_npy(in + "/probe_vocab.npy", kd::kInt64))[0];
    const auto bpe = kd::text::ByteBPE::train(read_text(in + "/probe_corpus.txt"), vocab);
    std::vector<std::int64_t> all;
    for (const auto& [a, b] : bpe.merges()) all.insert(all.end(), {a, b});
    all.push_back(-1);
    for (const std::int64_t id : bpe.encode(read_text(in + "/probe_text.txt"))) all.push_back(id);
    kd::save_npy(kd::tensor(all, {static_cast<std::int64_t>(all.size())}), out + "/probe_merges.npy");
  }
  {  // ex5: every row of probe_logits under every (temperature, top_k, top_p) of probe_settings
    const kd::Tensor logits = kd::load_npy(in + "/probe_logits.npy", kd::kFloat64);
    const kd::Tensor settings = kd::load_npy(in + "/probe_settings.npy", kd::kFloat64);
    std::vector<double> all;
    for (std::int64_t r = 0; r < logits.size(0); ++r) {
      const auto row = logits[r].contiguous().to_vector<double>();
      for (std::int64_t s = 0; s < settings.size(0); ++s) {
        const auto st = settings[s].contiguous().to_vector<double>();
        for (const double p : detail::next_token_probs(row, st[0], static_cast<std::int64_t>(st[1]), st[2]))
          all.push_back(p);
      }
    }
    kd::save_npy(kd::tensor(all, {static_cast<std::int64_t>(all.size())}), out + "/probe_probs.npy");
  }
}

int run(const std::string& in, const std::string& out) {
  const auto seed = static_cast<std::uint64_t>(ints(kd::load_npy(in + "/probe_seed.npy", kd::kInt64))[0]);
  const auto train_ids = ints(kd::load_npy(in + "/probe_train.npy", kd::kInt64));
  const auto test_ids = ints(kd::load_npy(in + "/probe_test.npy", kd::kInt64));
  const kd::Tensor parity_batches = kd::load_npy(in + "/probe_parity_batches.npy", kd::kInt64);  // [20, 64]
  kd::manual_seed(seed);
  kd::text::GPT model(kd::text::GPTConfig{.vocab_size = 10, .block_size = 6, .n_layer = 2, .n_head = 4,
                                          .n_embd = 64, .dropout = 0.0, .bias = true});
  save_params(model, out, "init.");

  // AdamW as practitioners use it: weight decay on the matrices only, not on biases, LayerNorms.
  std::vector<kd::Tensor> decay, no_decay;
  for (auto& [name, p] : model.named_parameters()) (p.dim() >= 2 ? decay : no_decay).push_back(p);
  kd::optim::AdamW opt(decay, {.lr = kLr, .betas = {0.9, 0.95}, .weight_decay = 0.1});
  opt.add_param_group(no_decay, {.lr = kLr, .betas = {0.9, 0.95}, .weight_decay = 0.0});
  const kd::Tensor train = problems(train_ids);  // [n_train, 7]
  kd::Generator gen(seed + 1);
  const auto t0 = std::chrono::steady_clock::now();
  for (int step = 0; step < kSteps; ++step) {
    opt.set_lr(lr_at(step));
    // The checker's batches first (rows of `train`), then the program's own draws.
    const kd::Tensor rows = step < kParitySteps
                                ? parity_batches[step]
                                : kd::randint(0, train.size(0), {kBatch}, {.dtype = kd::kInt64}, &gen);
    const kd::Tensor batch = train.index_select(0, rows);                // [64, 7]
    const kd::Tensor logits = model.forward(batch.narrow(1, 0, 6));     // [64, 6, 10]
    // Only the sum's digits are predicted: positions 3, 4, 5 predict tokens 4, 5, 6.
    const kd::Tensor loss = kd::nn::functional::cross_entropy(logits.narrow(1, 3, 3).reshape({-1, 10}),
                                                     batch.narrow(1, 4, 3).reshape({-1}));
    opt.zero_grad();
    loss.backward();
    kd::nn::utils::clip_grad_norm_(model.parameters(), 1.0);
    opt.step();
    if (step + 1 == kParitySteps) save_params(model, out, "parity.");
    if ((step + 1) % 250 == 0) {
      const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      std::printf("step %4d  loss %.4f  %.1f s\n", step + 1, loss.item<double>(), s);
      std::fflush(stdout);
    }
  }
  save_params(model, out, "");

  // The held-out sums, answered greedily with the KV cache: prompt a1 a0 b1 b0, 3 new tokens.
  model.eval();
  const kd::Tensor test = problems(test_ids);
  const kd::Tensor answers =
      kd::text::generate(model, test.narrow(1, 0, 4).contiguous(), 3, {.temperature = 0.0, .use_cache = true});
  kd::save_npy(answers.narrow(1, 4, 3).contiguous(), out + "/answers.npy");
  const double exact = kd::all(answers.narrow(1, 4, 3) == test.narrow(1, 4, 3), 1).to(kd::kFloat64).mean().item<double>();
  std::printf("held-out sums exact: %.1f %% of %lld\n", 100.0 * exact, static_cast<long long>(test.size(0)));
  probes(in, out);
  return 0;
}

}  // namespace

int main(int argc, char** argv) { return milestone::main_of(argc, argv, run); }
