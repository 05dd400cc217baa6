// P4 — autograd overhead: a chain of 10,000 tiny ops on a 16-element tensor, alternating
// y = y * w and y = tanh(y), then y.sum().backward(); Kindling vs PyTorch 1.13 (1 thread, in the
// same run: bench/peers/p4_pytorch.py). With 16 numbers per op the arithmetic is nothing: what is
// timed is the framework — allocating each result, recording a node (saved tensors, edges), then the
// engine's walk of 10,000 nodes and one backward formula per node. Goal: ratio >= 6. The same against
// LibTorch 1.13 C++ (bench/peers/p4_libtorch.cpp, built by the target bench_peers): the framework
// without Python's interpreter. Each peer tuned, then as installed (bench_util.hpp: PeerSettings).
//
// Repetitions alternate between Kindling and PyTorch; the ratio is the median of the paired CPU-time
// ratios (peer_process.hpp). The program also counts heap allocations per op: every operator new,
// the blocks the small-object pool (small_object_pool.hpp) had to take from malloc, and how many
// tensor storages were made (most of which the caching allocator and the pool serve without malloc).
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <new>
#include <string>
#include <vector>

#include <kindling/autograd.hpp>
#include <kindling/tensor/small_object_pool.hpp>

#include "bench_util.hpp"
#include "peer_process.hpp"

#ifndef KINDLING_P4_PEER
#define KINDLING_P4_PEER ""
#endif

namespace kd = kindling;

// ---- counting allocations ------------------------------------------------------------------------
namespace {
std::atomic<std::uint64_t> g_news{0};
}  // namespace
void* operator new(std::size_t n) {
  g_news.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}
void* operator new(std::size_t n, std::align_val_t a) {
  g_news.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::aligned_alloc(static_cast<std::size_t>(a), (n + static_cast<std::size_t>(a) - 1) &
                                                                    ~(static_cast<std::size_t>(a) - 1)))
    return p;
  throw std::bad_alloc();
}
// Not inlined: inlined next to an inlined `new`, GCC 12 takes the replaced operator new's pointer for one
// that free() must not get (a false -Wmismatched-new-delete; both sides are malloc/free here).
[[gnu::noinline]] void operator delete(void* p) noexcept { std::free(p); }
[[gnu::noinline]] void operator delete(void* p, std::size_t) noexcept { std::free(p); }
[[gnu::noinline]] void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
[[gnu::noinline]] void operator delete(void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }

namespace {

/// The measured work: forward chain + backward. Returns w.grad().sum() so both sides can be compared.
double chain_fwd_bwd(const kd::Tensor& x, const kd::Tensor& w, int ops) {
  kd::Tensor y = x;
  for (int i = 0; i < ops; ++i) y = (i % 2 == 0) ? y * w : y.tanh();  // y: [16]
  y.sum().backward();
  return w.grad().sum().item<double>();
}

}  // namespace

int main(int argc, char** argv) {
  const bench::Options opt = bench::parse(argc, argv);
  bench::process_settings();
  kd::manual_seed(0);
  const int ops = opt.quick ? 1000 : 10000;
  const int reps = opt.quick ? 3 : 21;

  // The inputs as PyTorch will see them: values rounded to the 6 decimals sent on its stdin.
  auto rounded = [](const kd::Tensor& t) {
    std::vector<float> v = t.to_vector<float>();
    for (float& f : v) f = std::stof(std::to_string(f));
    return kd::tensor(v, {static_cast<std::int64_t>(v.size())}).requires_grad_();
  };
  kd::Tensor x = rounded(kd::randn({16}));
  kd::Tensor w = rounded(kd::rand({16}) * 0.5 + 0.75);  // |w| near 1: the chain neither dies nor blows up

  const double grad_w_sum = chain_fwd_bwd(x, w, ops);  // warm-up, and the answer to compare
  auto run_kindling = [&] {
    x.set_grad(kd::Tensor());
    w.set_grad(kd::Tensor());
    chain_fwd_bwd(x, w, ops);
  };

  // Allocations of one repetition, per op of the chain (forward and backward together).
  run_kindling();
  const std::uint64_t news0 = g_news.load();
  const std::size_t storages0 = kd::memory::allocation_count(), refills0 = kd::detail::pool_refills();
  run_kindling();
  const double news_per_op = static_cast<double>(g_news.load() - news0) / ops;
  const double refills_per_op = static_cast<double>(kd::detail::pool_refills() - refills0) / ops;
  const double storages_per_op = static_cast<double>(kd::memory::allocation_count() - storages0) / ops;

  const std::string what = "autograd chain " + std::to_string(ops / 1000) + "k ops fwd+bwd";
  std::string values;
  for (const kd::Tensor& t : {x, w})
    for (float v : t.to_vector<float>()) values += std::to_string(v) + " ";  // %f: 6 decimals, same on both sides
  struct Peer {
    const char* name;   // on the line
    std::vector<std::string> argv;
    const char* title;  // after `what`
  };
  std::vector<Peer> peers = {
      {"pytorch-1.13", {"/usr/bin/python3", KINDLING_BENCH_PEERS "/p4_pytorch.py", std::to_string(ops)}, ""}};
  if (std::string(KINDLING_P4_PEER).empty() || !bench::file_exists(KINDLING_P4_PEER))
    std::fprintf(stderr, "autograd_chain: the LibTorch C++ peer is not built (`make bench` builds it: target "
                         "bench_peers); no P4 line against LibTorch\n");
  else
    peers.push_back({"libtorch", {KINDLING_P4_PEER, std::to_string(ops)}, " vs LibTorch C++"});
  bool printed_detail = false;
  for (const Peer& peer : peers)
    for (const bench::PeerSettings& ps : bench::both_peer_settings()) {
      bench::PeerProcess proc;
      if (!proc.start(peer.argv, values, ps.env)) {
        if (peer.argv[0] == "/usr/bin/python3") {
          std::printf("BENCH P4 %s: skipped (no /usr/bin/python3 with torch)\n", what.c_str());
          break;
        }
        return 1;
      }
      // Same computation on both sides? float32 through 10,000 ops: compare loosely.
      const double peer_grad = std::stod(bench::ready_value(proc.ready_line(), "grad_w_sum"));
      if (!(std::fabs(peer_grad - grad_w_sum) <= 1e-3 * std::max(1.0, std::fabs(grad_w_sum)))) {
        std::fprintf(stderr, "autograd_chain bench: w.grad.sum() differs: kindling %.9g, %s %.9g\n", grad_w_sum,
                     peer.name, peer_grad);
        return 1;
      }
      const auto paired = bench::interleave(run_kindling, proc, reps);
      if (!paired) {
        std::fprintf(stderr, "autograd_chain bench: the %s peer failed\n", peer.name);
        return 1;
      }
      auto sides = bench::Sides::peer(ps, proc.ready_line(), ops, "op");
      sides.kindling_gemm = false, sides.peer_gemm = "";  // no product in the chain
      bench::report_paired("P4", bench::titled(what + peer.title, ps), *paired, "kindling",
                           bench::peer_name(peer.name, ps), sides);
      if (!printed_detail) {
        std::printf("  (%d interleaved repetitions, CPU time; wall-clock medians: kindling %s, %s %s; "
                    "per op: %.2f operator new + %.2f small-object pool refills from malloc; %.2f tensor "
                    "storages made)\n",
                    paired->reps, bench::fmt_time(paired->kindling_wall_s).c_str(), peer.name,
                    bench::fmt_time(paired->peer_wall_s).c_str(), news_per_op, refills_per_op, storages_per_op);
        printed_detail = true;
      }
    }
  return 0;
}
