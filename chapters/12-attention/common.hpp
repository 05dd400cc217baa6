#pragma once
// What the chapter-12 programs share: the adder's data, the training recipe (AdamW
// with parameter groups, warm-up and a cosine, gradient clipping), and a clock.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <kindling/kindling.hpp>
#include <kindling/text.hpp>
#include <kindling/text/pieces.hpp>  // your pieces, to call them on their own
#include <sstream>
#include <string>
#include <vector>

namespace kd = kindling;
namespace F = kd::nn::functional;

inline double now() {
  using clock = std::chrono::steady_clock;
  return std::chrono::duration<double>(clock::now().time_since_epoch()).count();
}

inline std::string read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw kd::IOError("cannot read " + path + " (is the package installed?)");
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

// [snippet: adder-data]
// minGPT's adder: a + b (two digits each) is 7 tokens, the sum's digits reversed,
// so that the model writes the ones digit first, as we add by hand.
//   12 + 39 = 51  ->  1 2 3 9 1 5 0
inline std::vector<std::int64_t> render(std::int64_t problem) {  // 0 .. 9999
  const std::int64_t a = problem / 100, b = problem % 100, c = a + b;
  return {a / 10, a % 10, b / 10, b % 10, c % 10, c / 10 % 10, c / 100};
}
// [end]

// Problems `ids` as a [n, 7] int64 tensor.
inline kd::Tensor problems(const std::vector<std::int64_t>& ids) {
  std::vector<std::int64_t> flat;
  for (const std::int64_t i : ids)
    for (const std::int64_t t : render(i)) flat.push_back(t);
  return kd::tensor(flat, {static_cast<std::int64_t>(ids.size()), 7});
}

// [snippet: optimizer]
// AdamW as GPTs are trained: weight decay on the matrices (Linear weights and
// embeddings) only, never on biases and LayerNorm weights.
inline kd::optim::AdamW make_adamw(kd::nn::Module& model, double lr) {
  std::vector<kd::Tensor> decay, no_decay;
  for (auto& [name, p] : model.named_parameters())
    (p.dim() >= 2 ? decay : no_decay).push_back(p);
  kd::optim::AdamW opt(decay, {.lr = lr, .betas = {0.9, 0.95}, .weight_decay = 0.1});
  opt.add_param_group(no_decay, {.lr = lr, .betas = {0.9, 0.95}, .weight_decay = 0.0});
  return opt;
}

// A linear warm-up over `warmup` steps, then a cosine from lr down to lr / 10.
inline double lr_at(int step, int steps, int warmup, double lr) {
  const double warm = std::min(1.0, (step + 1.0) / warmup);
  const double pi = std::acos(-1.0);
  return lr * warm * (0.1 + 0.9 * 0.5 * (1.0 + std::cos(pi * step / steps)));
}
// [end]

// The corpus: seven files of Debian's `fortunes` package (BSD licence), about 500 kB
// of quotations, jokes and proverbs separated by lines holding a single "%".
inline std::string fortunes_corpus() {
  std::string text;
  for (const char* name :
       {"fortunes", "wisdom", "literature", "science", "people", "platitudes", "tao"})
    text += read_file(std::string("/usr/share/games/fortunes/") + name);
  return text;
}

// Rows of `data` (a 1-d tensor of token ids) starting at `starts`, and the same rows
// one token later: the inputs [B, T] and the targets [B, T] of next-token prediction.
inline std::pair<kd::Tensor, kd::Tensor> text_batch(const kd::Tensor& data,
                                                    const kd::Tensor& starts,
                                                    std::int64_t T) {
  std::vector<kd::Tensor> xs, ys;
  for (std::int64_t i = 0; i < starts.size(0); ++i) {
    const std::int64_t s = starts[i].item<std::int64_t>();
    xs.push_back(data.narrow(0, s, T));
    ys.push_back(data.narrow(0, s + 1, T));
  }
  return {kd::stack(xs), kd::stack(ys)};
}
