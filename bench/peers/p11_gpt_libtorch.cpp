// P11 peer: the GPT training step of p11_gpt_setup.hpp in LibTorch 1.13 (1 thread), written the way
// nanoGPT writes it (the parameters by name, functional ops), in the interleaving protocol of
// bench/peer_process.hpp:
//   usage: bench_peer_p11_gpt train <steps per repetition> <warm-up steps>
//   stdout: "ready loss=<loss of the last warm-up step> gemm=<GEMM libraries:ISA> ftz=<on|off>", then per "run":
//           "cpu=<s> wall=<s> loss=<last loss>"
#include <torch/torch.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <iostream>
#include <map>
#include <string>

#include "backend_info.hpp"
#include "p11_gpt_setup.hpp"

namespace {
double clock_s(clockid_t id) {
  timespec ts{};
  clock_gettime(id, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

std::map<std::string, torch::Tensor> P;

torch::Tensor ln(const torch::Tensor& x, const std::string& name) {
  return torch::layer_norm(x, {p11::kChannels}, P[name + ".weight"], P[name + ".bias"], 1e-5);
}
torch::Tensor lin(const torch::Tensor& x, const std::string& name) {
  return torch::nn::functional::linear(x, P[name + ".weight"], P[name + ".bias"]);
}

// idx [B, T] -> mean cross-entropy against targets [B, T]
torch::Tensor loss_of(const torch::Tensor& idx, const torch::Tensor& targets) {
  const std::int64_t B = idx.size(0), T = idx.size(1), C = p11::kChannels, H = p11::kHeads;
  auto x = torch::embedding(P["transformer.wte.weight"], idx) +
           torch::embedding(P["transformer.wpe.weight"], torch::arange(T));
  const auto mask = torch::ones({T, T}, torch::kBool).tril().logical_not();
  for (std::int64_t l = 0; l < p11::kLayers; ++l) {
    const std::string h = "transformer.h." + std::to_string(l) + ".";
    auto qkv = lin(ln(x, h + "ln_1"), h + "attn.c_attn").split(C, 2);
    auto q = qkv[0].view({B, T, H, C / H}).transpose(1, 2);
    auto k = qkv[1].view({B, T, H, C / H}).transpose(1, 2);
    auto v = qkv[2].view({B, T, H, C / H}).transpose(1, 2);
    auto s = torch::matmul(q * (1.0 / std::sqrt(static_cast<double>(C / H))), k.transpose(-2, -1));
    auto y = torch::matmul(s.masked_fill(mask, -INFINITY).softmax(-1), v).transpose(1, 2).reshape({B, T, C});
    x = x + lin(y, h + "attn.c_proj");
    x = x + lin(torch::gelu(lin(ln(x, h + "ln_2"), h + "mlp.c_fc"), "tanh"), h + "mlp.c_proj");
  }
  auto logits = torch::matmul(ln(x, "transformer.ln_f"), P["transformer.wte.weight"].t());
  return torch::nn::functional::cross_entropy(logits.view({-1, p11::kVocab}), targets.reshape({-1}));
}
}  // namespace

int main(int argc, char** argv) {
  peers::flush_denormal_if_asked();  // the tuned setting (backend_info.hpp)
  const int steps = argc > 2 ? std::atoi(argv[2]) : 4;
  const int warmup = argc > 3 ? std::atoi(argv[3]) : 3;
  torch::set_num_threads(1);
  std::vector<torch::Tensor> decay, no_decay;
  const auto specs = p11::params();
  for (std::size_t k = 0; k < specs.size(); ++k) {
    std::vector<float> v = p11::initial(specs[k], static_cast<int>(k));
    P[specs[k].name] = torch::from_blob(v.data(), specs[k].shape, torch::kFloat32).clone().requires_grad_(true);
    (specs[k].shape.size() >= 2 ? decay : no_decay).push_back(P[specs[k].name]);
  }
  std::vector<torch::optim::OptimizerParamGroup> groups;
  groups.emplace_back(decay, std::make_unique<torch::optim::AdamWOptions>(
                                 torch::optim::AdamWOptions(p11::kLr).betas({0.9, 0.95}).weight_decay(p11::kWeightDecay)));
  groups.emplace_back(no_decay, std::make_unique<torch::optim::AdamWOptions>(
                                    torch::optim::AdamWOptions(p11::kLr).betas({0.9, 0.95}).weight_decay(0.0)));
  torch::optim::AdamW optimizer(groups, torch::optim::AdamWOptions(p11::kLr));
  std::vector<torch::Tensor> all = decay;
  all.insert(all.end(), no_decay.begin(), no_decay.end());
  std::int64_t cursor = 0;
  std::vector<std::int64_t> xs, ys;
  auto run = [&](int count) {
    double last = 0;
    for (int s = 0; s < count; ++s, ++cursor) {
      p11::batch(cursor, xs, ys);
      auto x = torch::from_blob(xs.data(), {p11::kBatch, p11::kContext}, torch::kInt64);
      auto y = torch::from_blob(ys.data(), {p11::kBatch, p11::kContext}, torch::kInt64);
      optimizer.zero_grad();
      auto loss = loss_of(x, y);
      loss.backward();
      torch::nn::utils::clip_grad_norm_(all, p11::kClip);
      optimizer.step();
      last = loss.item<double>();
    }
    return last;
  };
  const double warm_loss = run(warmup);
  std::printf("ready loss=%.9g gemm=%s ftz=%s\n", warm_loss, peers::gemm_backends().c_str(), peers::flush_denormal_state());
  std::fflush(stdout);
  std::string line;
  while (std::getline(std::cin, line) && line == "run") {
    const double c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID), w0 = clock_s(CLOCK_MONOTONIC);
    const double loss = run(steps);
    std::printf("cpu=%.9g wall=%.9g loss=%.9g\n", clock_s(CLOCK_PROCESS_CPUTIME_ID) - c0,
                clock_s(CLOCK_MONOTONIC) - w0, loss);
    std::fflush(stdout);
  }
}
