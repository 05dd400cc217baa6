// P11: chapter 12's GPT (bench/peers/p11_gpt_setup.hpp: 4 layers, 4 heads, 128 channels, context 64,
// batches of 12 x 64 tokens, AdamW after clipping) -- its training step against LibTorch 1.13 (peer
// bench/peers/p11_gpt_libtorch.cpp) and PyTorch 1.13 (bench/peers/p11_gpt_pytorch.py), and greedy
// generation with a KV cache (63 tokens after a 1-token prompt) in tokens/s against PyTorch, whose
// model has a KV cache written the way nanoGPT-style code writes one (PyTorch 1.13 has none of its own).
// All sides start from the same weights and train on the same batches, so their losses must agree
// after the warm-up; the generated tokens must be the same.
//
// Timing: interleaved repetitions, CPU time, the median of the paired ratios (peer_process.hpp);
// against the tuned peers, then the peers as installed (bench_util.hpp); the training lines with the
// step's floor (floor.hpp, measured in this run). --quick: a few steps (the CTest smoke test).

#include <cmath>
#include <cstdio>
#include <kindling/text.hpp>
#include <list>
#include <map>
#include <string>

#include "bench_util.hpp"
#include "floor.hpp"
#include "peers/p11_gpt_setup.hpp"

namespace kd = kindling;

#ifndef KINDLING_P11_PEER
#define KINDLING_P11_PEER ""
#endif
#ifndef KINDLING_BENCH_PEERS
#define KINDLING_BENCH_PEERS ""
#endif
#ifndef KINDLING_PYTHON
#define KINDLING_PYTHON "/usr/bin/python3"
#endif

namespace {

/// The step's matrix products for the floor (floor.hpp). Attention's batched products (one per
/// sequence and head) are counted as one product of the same shape stacked B x heads times.
bench::StepModel gpt_step() {
  const std::int64_t B = p11::kBatch, T = p11::kContext, C = p11::kChannels, V = p11::kVocab;
  const std::int64_t BT = B * T, hs = C / p11::kHeads, BHT = B * p11::kHeads * T;
  bench::StepModel m;
  static std::list<std::string> names;  // GemmShape holds a const char*: the names live here
  auto add = [&](const std::string& name, std::int64_t M, std::int64_t N, std::int64_t K, bool ta, bool tb) {
    names.push_back(name);
    m.gemms.push_back({names.back().c_str(), M, N, K, ta, tb});
  };
  auto linear = [&](const std::string& name, std::int64_t in, std::int64_t out) {
    add(name + " forward", BT, out, in, false, true);
    add(name + " weight grad", out, in, BT, true, false);
    add(name + " input grad", BT, in, out, false, false);
  };
  for (std::int64_t l = 0; l < p11::kLayers; ++l) {
    const std::string h = "h." + std::to_string(l) + ".";
    linear(h + "c_attn", C, 3 * C);
    add(h + "q k^T", BHT, T, hs, false, true);
    add(h + "weights v", BHT, hs, T, false, false);
    add(h + "d weights = dy v^T", BHT, T, hs, false, true);
    add(h + "dv = weights^T dy", BHT, hs, T, true, false);
    add(h + "dq = ds k", BHT, hs, T, false, false);
    add(h + "dk = ds^T q", BHT, hs, T, true, false);
    linear(h + "attn.c_proj", C, C);
    linear(h + "mlp.c_fc", C, 4 * C);
    linear(h + "mlp.c_proj", 4 * C, C);
  }
  linear("lm_head (tied)", C, V);
  for (const auto& p : p11::params()) {
    double n = 1;
    for (auto d : p.shape) n *= static_cast<double>(d);
    m.parameters += n;
  }
  m.input_bytes = 2.0 * static_cast<double>(BT) * 8;  // int64 inputs and targets
  return m;
}

}  // namespace

int main(int argc, char** argv) {
  const bench::Options opt = bench::parse(argc, argv);
  bench::process_settings();
  const int steps = opt.quick ? 1 : 4, warmup = 3, reps = opt.quick ? 3 : 11;

  kd::text::GPT model({.vocab_size = p11::kVocab, .block_size = p11::kContext, .n_layer = p11::kLayers,
                       .n_head = p11::kHeads, .n_embd = p11::kChannels, .dropout = 0.0, .bias = true});
  {
    kd::NoGradGuard no_grad;
    auto named = model.named_parameters();
    std::map<std::string, kd::Tensor> by_name(named.begin(), named.end());
    const auto specs = p11::params();
    if (by_name.size() != specs.size()) throw std::logic_error("gpt_train: parameter count");
    for (std::size_t k = 0; k < specs.size(); ++k)
      by_name.at(specs[k].name).copy_(kd::tensor(p11::initial(specs[k], static_cast<int>(k)), specs[k].shape));
  }
  // Generation first, from the initial weights (the peer generates from the same ones).
  const kd::Tensor prompt = kd::tensor(std::vector<std::int64_t>{p11::token(0, 0, 0)}, {1, 1});
  model.eval();
  kd::Tensor generated;
  auto generate = [&](int count) {
    for (int i = 0; i < count; ++i)
      generated = kd::text::generate(model, prompt, p11::kNewTokens, {.temperature = 0.0, .use_cache = true});
  };
  generate(2);
  std::string tokens;
  for (const std::int64_t t : generated[0].to_vector<std::int64_t>()) tokens += (tokens.empty() ? "" : ",") + std::to_string(t);
  model.train();

  std::vector<kd::Tensor> decay, no_decay;
  for (auto& [name, p] : model.named_parameters()) (p.dim() >= 2 ? decay : no_decay).push_back(p);
  kd::optim::AdamW opt_(decay, {.lr = p11::kLr, .betas = {0.9, 0.95}, .weight_decay = p11::kWeightDecay});
  opt_.add_param_group(no_decay, {.lr = p11::kLr, .betas = {0.9, 0.95}, .weight_decay = 0.0});
  std::int64_t cursor = 0;
  double last = 0;
  std::vector<std::int64_t> xs, ys;
  auto run = [&](int count) {
    for (int s = 0; s < count; ++s, ++cursor) {
      p11::batch(cursor, xs, ys);
      const kd::Tensor x = kd::tensor(xs, {p11::kBatch, p11::kContext});
      const kd::Tensor y = kd::tensor(ys, {p11::kBatch, p11::kContext});
      opt_.zero_grad();
      kd::Tensor loss = model.forward(x, y).second;
      loss.backward();
      kd::nn::utils::clip_grad_norm_(model.parameters(), p11::kClip);
      opt_.step();
      last = loss.item<double>();
    }
  };
  run(warmup);
  const double warm_loss = last;
  const bench::StepModel step_model = gpt_step();
  const bench::Floor floor = bench::measure_floor(step_model, opt.quick);

  const std::string libtorch = KINDLING_P11_PEER;
  const std::string python_peer = std::string(KINDLING_BENCH_PEERS) + "/p11_gpt_pytorch.py";
  const bool have_libtorch = bench::file_exists(libtorch);
  const bool have_python = bench::file_exists(python_peer) && bench::file_exists(KINDLING_PYTHON);
  if (!have_libtorch)
    std::fprintf(stderr, "gpt_train: LibTorch peer not built (%s); `make bench` builds it (target bench_peers)\n",
                 libtorch.empty() ? "LibTorch was not found at configure time" : libtorch.c_str());
  bool ok = true, floor_printed = false;
  for (const bench::PeerSettings& ps : bench::both_peer_settings()) {
    struct Peer {
      const char* who;
      std::vector<std::string> cmd;
    };
    std::vector<Peer> peers;
    const std::vector<std::string> args = {"train", std::to_string(steps), std::to_string(warmup)};
    if (have_libtorch) peers.push_back({"libtorch", {libtorch, args[0], args[1], args[2]}});
    if (have_python) peers.push_back({"pytorch-1.13", {KINDLING_PYTHON, python_peer, args[0], args[1], args[2]}});
    for (const Peer& pe : peers) {
      bench::PeerProcess peer;
      if (!peer.start(pe.cmd, "", ps.env)) {
        std::fprintf(stderr, "gpt_train: the %s peer did not start\n", pe.who);
        return 1;
      }
      const double peer_warm = std::stod(bench::ready_value(peer.ready_line(), "loss"));
      if (!p11::close(warm_loss, peer_warm, 1e-3)) {
        std::fprintf(stderr, "gpt_train: after %d steps Kindling's loss is %.9g, %s's %.9g\n", warmup, warm_loss,
                     pe.who, peer_warm);
        ok = false;
      }
      const std::int64_t kd_start = cursor;
      double peer_last = 0;
      const auto paired = bench::interleave_with(
          [&] { run(steps); },
          [&] {
            auto rep = peer.run();
            if (rep) peer_last = std::stod(rep->extra["loss"]);
            return rep;
          },
          reps);
      if (!paired) return 1;
      if (kd_start == warmup && !p11::close(last, peer_last, 0.02)) {
        std::fprintf(stderr, "gpt_train: after %lld steps Kindling's loss is %.6g, %s's %.6g\n",
                     static_cast<long long>(cursor), last, pe.who, peer_last);
        ok = false;
      }
      auto sides = bench::Sides::peer(ps, peer.ready_line(), steps, "step");
      sides.floor_s = floor.total();
      const std::string vs = std::string(pe.who) == "libtorch" ? "" : " vs PyTorch";
      bench::report_rate("P11", bench::titled("GPT train steps/s" + vs + " (12 x 64 tokens, 1 thread)", ps), *paired,
                         steps, "steps/s", "kindling", bench::peer_name(pe.who, ps), sides);
      if (!floor_printed) {
        bench::print_floor("P11", floor, step_model.gemms.size());
        std::printf("  (%d interleaved repetitions of %d steps, CPU time; losses after %d warm-up steps: kindling "
                    "%.4f, %s %.4f)\n", reps, steps, warmup, warm_loss, pe.who, peer_warm);
        floor_printed = true;
      }
    }
    // Generation against PyTorch.
    if (have_python) {
      const int per_rep = opt.quick ? 1 : 4;
      bench::PeerProcess peer;
      if (!peer.start({KINDLING_PYTHON, python_peer, "generate", std::to_string(per_rep), "2"}, "", ps.env))
        return 1;
      if (bench::ready_value(peer.ready_line(), "tokens") != tokens) {
        std::fprintf(stderr, "gpt_train: greedy generation gives other tokens than PyTorch's:\n  kindling %s\n  "
                     "pytorch  %s\n", tokens.c_str(), bench::ready_value(peer.ready_line(), "tokens").c_str());
        ok = false;
      }
      model.eval();
      const auto paired = bench::interleave_with([&] { generate(per_rep); }, [&] { return peer.run(); }, reps);
      model.train();
      if (!paired) return 1;
      auto sides = bench::Sides::peer(ps, peer.ready_line(), per_rep * p11::kNewTokens, "token");
      bench::report_rate("P11", bench::titled("GPT generate tokens/s with KV cache (greedy, 1 thread)", ps),
                         *paired, per_rep * p11::kNewTokens, "tokens/s", "kindling",
                         bench::peer_name("pytorch-1.13", ps), sides);
    }
  }
  std::fflush(stdout);
  if (!ok) return 1;
  if (!opt.quick && !(have_libtorch && have_python)) return 1;  // a full run needs both peers
  return 0;
}
