// kd::compile one step at a time on one block of BENCH P9's MLP: the trace and its IR,
// each pass and what it changed, the C++ the code generator writes for the fused
// region, the compiled graph checked against eager, and what `explain` says about a
// graph break.
#include <filesystem>
#include <sstream>

#include "common.hpp"

namespace jit = kd::jit;

void save(const std::string& path, const std::string& text) {
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (f == nullptr) throw std::runtime_error("cannot write " + path);
  std::fputs(text.c_str(), f);
  std::fclose(f);
}

int main() {
  kd::manual_seed(0);
  Block block(128);
  const kd::Tensor x = kd::randn({64, 128});  // x: [batch 64, width 128]

  // [snippet: trace]
  jit::Graph g = jit::trace(block, x);  // one forward, recorded
  std::printf("%s", g.str().c_str());
  // [end]
  std::printf("kernels: %zu\n\n", g.num_kernels());
  save("ch10_ir_before.dot", g.dot());

  // [snippet: passes]
  const int dead = jit::eliminate_dead_code(g);  // nodes no output needs
  const int folded = jit::fold_constants(g);     // nodes of constants only
  const int fused = jit::fuse_elementwise(g);    // elementwise regions
  const int norms = jit::fuse_layer_norm(g);     // LayerNorms into their regions
  const int epilogues = jit::fuse_epilogues(g);  // regions in place over a GEMM
  // [end]
  std::printf("dead code removed: %d, folded: %d, fused regions: %d, LayerNorms: %d, "
              "epilogues: %d\n", dead, folded, fused, norms, epilogues);
  std::printf("%s", g.str().c_str());
  std::printf("kernels: %zu; intermediate bytes not written: %lld\n\n", g.num_kernels(),
              static_cast<long long>(jit::bytes_avoided(g)));
  save("ch10_ir_after.dot", g.dot());

  // [snippet: fold]
  Block frozen(128);
  frozen.requires_grad_(false);  // no parameter trains: each is a constant now
  jit::Graph g2 = jit::trace(frozen, x);
  std::printf("frozen block: fold_constants folded %d node(s)\n",
              jit::fold_constants(g2));
  // [end]
  for (const jit::Node& n : g2.nodes) std::printf("  %s", n.op.c_str());
  std::printf("\n\n");

  // [snippet: codegen]
  const std::string source = jit::generate_cpp(g);  // forward only
  // [end]
  save("ch10_kernels.cpp", source);
  std::printf("generated C++: %zu lines, in ch10_kernels.cpp\n",
              static_cast<std::size_t>(std::count(source.begin(), source.end(), '\n')));
  // The helpers every file starts with are left out here: the fused region's function.
  std::printf("%s", source.substr(source.find("\n// %") + 1).c_str());

  // [snippet: run]
  std::filesystem::remove_all("ch10_trace_cache");
  jit::CompileStats stats;
  jit::compile_kernels(g, {.cache_dir = "ch10_trace_cache"}, &stats);  // g++, dlopen
  auto compiled = std::make_shared<const jit::Graph>(std::move(g));
  kd::NoGradGuard no_grad;
  const kd::Tensor fast = jit::run(compiled, {x}).front();
  const kd::Tensor eager = block(x);
  // [end]
  std::printf(
      "\ncompiler runs: %d (%.2f s); compiled vs eager: max |difference| %.2g\n\n",
      stats.compiled, stats.compile_seconds, (fast - eager).abs().max().item<double>());
  if (!kd::allclose(fast, eager, 1e-5, 1e-5)) return 1;

  // [snippet: explain]
  kd::nn::Sequential net(std::make_shared<Block>(128), kd::nn::Dropout(0.1),
                         std::make_shared<Block>(128));
  net.train();  // Dropout draws a new mask each call: the trace cannot keep it
  std::ostringstream why;
  auto fast_net = kd::compile(
      net, {.explain = true, .explain_stream = &why, .cache_dir = "ch10_trace_cache"});
  (*fast_net)(x);
  // [end]
  // The end of what explain wrote: the graph breaks and what fusion did.
  const std::string said = why.str();
  std::printf("%s", said.substr(said.rfind("== graph breaks")).c_str());
}
