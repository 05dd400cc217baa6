#pragma once
// P11: the shared set-up of the GPT benchmarks, used by Kindling's side (bench/gpt_train.cpp) and
// LibTorch's (bench/peers/p11_gpt_libtorch.cpp); bench/peers/p11_gpt_pytorch.py computes the same
// numbers in Python. Chapter 12's character model: vocabulary 65, context 64, 4 layers, 4 heads,
// 128 channels, GPT-2's block (pre-LayerNorm, GELU (tanh), tied output layer), batches of 12 x 64
// tokens; AdamW (lr 1e-3, betas 0.9/0.95, weight decay 0.1 on the matrices only) after clipping the
// gradients' norm to 1. The initial weights and the tokens come from formulas (no random generator
// to match across libraries), so all sides train the same model on the same batches.
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace p11 {

constexpr std::int64_t kVocab = 65, kContext = 64, kLayers = 4, kHeads = 4, kChannels = 128, kBatch = 12;
constexpr double kLr = 1e-3, kWeightDecay = 0.1, kClip = 1.0;
constexpr std::int64_t kNewTokens = 63;  // generation: 1 prompt token, then fill the context

struct Param {
  std::string name;
  std::vector<std::int64_t> shape;
};

/// Every parameter, with nanoGPT's (GPT-2's) names; lm_head is tied to transformer.wte.weight.
inline std::vector<Param> params() {
  const std::int64_t C = kChannels;
  std::vector<Param> p = {{"transformer.wte.weight", {kVocab, C}}, {"transformer.wpe.weight", {kContext, C}}};
  for (std::int64_t l = 0; l < kLayers; ++l) {
    const std::string h = "transformer.h." + std::to_string(l) + ".";
    for (Param q : std::vector<Param>{{"ln_1.weight", {C}},          {"ln_1.bias", {C}},
                                      {"attn.c_attn.weight", {3 * C, C}}, {"attn.c_attn.bias", {3 * C}},
                                      {"attn.c_proj.weight", {C, C}},     {"attn.c_proj.bias", {C}},
                                      {"ln_2.weight", {C}},          {"ln_2.bias", {C}},
                                      {"mlp.c_fc.weight", {4 * C, C}},    {"mlp.c_fc.bias", {4 * C}},
                                      {"mlp.c_proj.weight", {C, 4 * C}},  {"mlp.c_proj.bias", {C}}}) {
      q.name = h + q.name;
      p.push_back(q);
    }
  }
  p.push_back({"transformer.ln_f.weight", {C}});
  p.push_back({"transformer.ln_f.bias", {C}});
  return p;
}

/// Parameter number k's initial values: LayerNorm weights near 1, everything else small (GPT-2's
/// 0.02 scale), a different sine for each parameter.
inline std::vector<float> initial(const Param& p, int k) {
  std::int64_t n = 1;
  for (auto d : p.shape) n *= d;
  const bool gain = p.name.find(".ln_") != std::string::npos && p.name.size() > 7 &&
                    p.name.compare(p.name.size() - 7, 7, ".weight") == 0;
  std::vector<float> v(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) {
    const double s = std::sin(0.7 * static_cast<double>(i) * (k + 1) + k);
    v[static_cast<std::size_t>(i)] = static_cast<float>(gain ? 1.0 + 0.1 * s : 0.035 * s);
  }
  return v;
}

/// Token i of sequence b of step `step` (i = 0 .. 64: the inputs are 0 .. 63, the targets 1 .. 64).
inline std::int64_t token(std::int64_t step, std::int64_t b, std::int64_t i) {
  const std::uint64_t n = static_cast<std::uint64_t>((step * kBatch + b) * (kContext + 1) + i);
  return static_cast<std::int64_t>(((n * 2654435761ULL) % 4294967296ULL) >> 8) % kVocab;
}

/// A step's inputs and targets, row-major [kBatch, kContext] each.
inline void batch(std::int64_t step, std::vector<std::int64_t>& x, std::vector<std::int64_t>& y) {
  x.resize(kBatch * kContext), y.resize(kBatch * kContext);
  for (std::int64_t b = 0; b < kBatch; ++b)
    for (std::int64_t t = 0; t < kContext; ++t) {
      x[static_cast<std::size_t>(b * kContext + t)] = token(step, b, t);
      y[static_cast<std::size_t>(b * kContext + t)] = token(step, b, t + 1);
    }
}

/// Relative agreement of two losses after the same steps.
inline bool close(double a, double b, double tol) { return std::abs(a - b) <= tol * std::max(1.0, std::abs(b)); }

}  // namespace p11
