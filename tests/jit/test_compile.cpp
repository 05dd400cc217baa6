// kd::compile: trace -> passes -> generated C++ -> dlopen, checked against eager Kindling (outputs and
// every gradient), plus the guards, explain, and the cache's distrust of its own files.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdlib>
#include <limits>
#include <filesystem>
#include <fstream>
#include <atomic>
#include <functional>
#include <sstream>
#include <thread>
#include <unistd.h>

#include "kindling/autograd.hpp"
#include "kindling/jit.hpp"
#include "kindling/tensor/ops.hpp"

namespace kd = kindling;
namespace fs = std::filesystem;

namespace {

/// A fresh cache folder per test (removed when the test ends).
struct TempCache {
  fs::path dir;
  explicit TempCache(const std::string& name)
      : dir(fs::temp_directory_path() / ("kd_compile_" + name + "_" + std::to_string(::getpid()))) {
    fs::remove_all(dir);
  }
  ~TempCache() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
};

struct Result {
  kd::Tensor out, input_grad;
  std::vector<kd::Tensor> grads;
};

/// Runs f on a copy of x that requires grad, backpropagates sum(y * y), collects every gradient.
Result run_with_grads(const std::function<kd::Tensor(const kd::Tensor&)>& f, kd::nn::Module& model,
                      const kd::Tensor& x_in) {
  model.zero_grad(true);
  kd::Tensor x = x_in.detach();  // keeps x_in's strides
  x.requires_grad_(true);
  Result r;
  r.out = f(x);
  (r.out * r.out).sum().backward();
  r.input_grad = x.grad().clone();
  for (const kd::Tensor& p : model.parameters())
    r.grads.push_back(p.grad().defined() ? p.grad().clone() : kd::Tensor());
  return r;
}

/// Compiled against eager, for a gradient: rtol 1e-4, and an absolute tolerance that grows with the
/// gradient's largest entry. A gradient is a sum of products (the matmul's backward); where terms of
/// size ~100 cancel to ~0.1, float32 rounding in a different order (a generated loop with FMA, another
/// erf, another GEMM kernel on another CPU) moves the result by ~1e-5 of the terms, not of the result.
void check_close_grad(const kd::Tensor& compiled, const kd::Tensor& eager, const char* what) {
  const double rtol = 1e-4, atol = 1e-5 + 1e-6 * eager.abs().max().item<double>();
  const kd::Tensor d = (compiled - eager).abs();
  const std::int64_t at = (d - eager.abs() * rtol).flatten().argmax().item<std::int64_t>();
  INFO(what << ": |diff| " << d.flatten()[at].item<double>() << " against " << atol << " + " << rtol
            << " * |eager| at flat index " << at << " (eager " << eager.flatten()[at].item<double>()
            << ", compiled " << compiled.flatten()[at].item<double>() << ")");
  CHECK(kd::allclose(compiled, eager, rtol, atol));
}

void check_same(const Result& eager, const Result& compiled) {
  REQUIRE(eager.out.shape() == compiled.out.shape());
  CHECK(kd::allclose(eager.out, compiled.out, 1e-5, 1e-5));
  check_close_grad(compiled.input_grad, eager.input_grad, "input grad");
  REQUIRE(eager.grads.size() == compiled.grads.size());
  for (std::size_t i = 0; i < eager.grads.size(); ++i) {
    REQUIRE(eager.grads[i].defined() == compiled.grads[i].defined());
    if (eager.grads[i].defined()) check_close_grad(compiled.grads[i], eager.grads[i], "parameter grad");
  }
}

int count_op(const kd::jit::Graph& g, const std::string& op) {
  int n = 0;
  for (const auto& node : g.nodes) n += node.op == op;
  return n;
}

struct MLP : kd::nn::Module {
  kd::nn::Linear fc1{32, 64};
  kd::nn::GELU act;
  kd::nn::LayerNorm norm{kd::Shape{64}};
  kd::nn::Linear fc2{64, 16};
  MLP() {
    register_module("fc1", fc1);
    register_module("act", act);
    register_module("norm", norm);
    register_module("fc2", fc2);
  }
  kd::Tensor forward(const kd::Tensor& x) override { return fc2(norm(act(fc1(x)) * 0.5 + 0.25)); }
};

/// Pure elementwise work with broadcast operands: bias [N] and scale [1, N] over x [B, N].
struct Pointwise : kd::nn::Module {
  kd::Tensor bias, scale;
  explicit Pointwise(std::int64_t n) {
    bias = register_parameter("bias", kd::randn({n}));
    scale = register_parameter("scale", kd::randn({1, n}));
  }
  kd::Tensor forward(const kd::Tensor& x) override {
    const kd::Tensor a = (x + bias).tanh() * scale;
    const kd::Tensor b = (a - x).sigmoid() + kd::relu(x) / (x * x + 1.0);
    return b.exp() - a;  // a is read twice: a diamond inside one region
  }
};

}  // namespace

TEST_CASE("compile: an MLP (Linear, GELU, LayerNorm) gives eager's outputs and gradients") {
  TempCache cache("mlp");
  kd::manual_seed(0);
  MLP model;
  auto fast = kd::compile(model, {.cache_dir = cache.dir});
  const kd::Tensor x = kd::randn({8, 32});
  const Result eager = run_with_grads([&](const kd::Tensor& t) { return model(t); }, model, x);
  const Result compiled = run_with_grads([&](const kd::Tensor& t) { return (*fast)(t); }, model, x);
  check_same(eager, compiled);
  auto g = fast->graph();
  REQUIRE(g);
  CHECK(count_op(*g, "fused") == 1);       // gelu, mul, add and the LayerNorm that reads them
  CHECK(count_op(*g, "layer_norm") == 0);  // fuse_layer_norm took it into the region
  for (const auto& n : g->nodes)
    if (n.op == "fused") CHECK(n.body.back().op == "layer_norm");
  CHECK(count_op(*g, "module") == 0);      // no graph break
  CHECK(fast->stats().compiled == 1);
  CHECK(fast->source().find("kd_gelu(") != std::string::npos);
  // Inference (no grad): the kernel runs without an autograd node, same values.
  kd::NoGradGuard no_grad;
  CHECK(kd::allclose(model(x), (*fast)(x), 1e-5, 1e-5));
  CHECK(fast->stats().traces == 2);  // grad mode is part of the guard key
  // The region reads the GEMM's result only: it runs in place over it (an epilogue).
  for (const auto& n : fast->graph()->nodes)
    if (n.op == "fused") CHECK(n.inplace_input == 0);
  CHECK(fast->graph()->str().find("{epilogue of %") != std::string::npos);
  // fc1's bias moved into the region (addmm -> mm, the region starts with the add); fc2's result is
  // the output, read by no region, and keeps its addmm.
  CHECK(count_op(*fast->graph(), "mm") == 1);
  CHECK(count_op(*fast->graph(), "addmm") == 1);
  for (const auto& n : fast->graph()->nodes)
    if (n.op == "fused") CHECK(n.body.front().op == "add");
}

/// y = f(x @ Wᵀ + b) * 2 through addmm with the given bias, beta and alpha: which biases move into
/// the epilogue region (Linear's: one per column, beta = alpha = 1) and which stay in the addmm.
struct Affine : kd::nn::Module {
  kd::Tensor weight, bias;
  double beta, alpha;
  Affine(const kd::Shape& bias_shape, double b, double a) : beta(b), alpha(a) {
    weight = register_parameter("weight", kd::randn({24, 16}));
    bias = register_parameter("bias", kd::randn(bias_shape));
  }
  kd::Tensor forward(const kd::Tensor& x) override {
    return kd::nn::functional::gelu(kd::addmm(bias, x, weight.t(), beta, alpha)) * 2.0;
  }
};

TEST_CASE("compile: a Linear's bias moves into the elementwise region that reads its product") {
  TempCache cache("bias");
  kd::manual_seed(3);
  const kd::Tensor x = kd::randn({10, 16});
  struct Case {
    kd::Shape bias;
    double beta, alpha;
    bool moves;
  };
  for (const Case& c : {Case{{24}, 1.0, 1.0, true}, Case{{1, 24}, 1.0, 1.0, true}, Case{{10, 24}, 1.0, 1.0, false},
                        Case{{24}, 0.5, 1.0, false}, Case{{24}, 1.0, 2.0, false}}) {
    INFO("bias " << kd::shape_str(c.bias) << ", beta " << c.beta << ", alpha " << c.alpha);
    Affine model(c.bias, c.beta, c.alpha);
    auto fast = kd::compile(model, {.cache_dir = cache.dir});
    const Result eager = run_with_grads([&](const kd::Tensor& t) { return model(t); }, model, x);
    const Result compiled = run_with_grads([&](const kd::Tensor& t) { return (*fast)(t); }, model, x);
    check_same(eager, compiled);  // the bias's gradient included: the region's backward makes it now
    CHECK(count_op(*fast->graph(), "mm") == (c.moves ? 1 : 0));
    CHECK(count_op(*fast->graph(), "addmm") == (c.moves ? 0 : 1));
    kd::NoGradGuard no_grad;
    CHECK(kd::allclose(model(x), (*fast)(x), 1e-5, 1e-5));
    const std::string ir = fast->graph()->str();
    CHECK((ir.find("in place, with its bias") != std::string::npos) == c.moves);
  }
}

namespace {

/// y = LayerNorm(chain(x)) with the chain and the layer's options chosen by the test.
struct NormModel : kd::nn::Module {
  kd::nn::LayerNorm norm;
  kd::Tensor scale;
  std::function<kd::Tensor(NormModel&, const kd::Tensor&)> body;
  NormModel(kd::Shape shape, bool affine, std::function<kd::Tensor(NormModel&, const kd::Tensor&)> f)
      : norm(shape, {.eps = 1e-3, .elementwise_affine = affine}), body(std::move(f)) {
    register_module("norm", norm);
    scale = register_parameter("scale", kd::randn({shape.back()}));
    if (affine) {
      kd::NoGradGuard no_grad;  // not ones and zeros: a wrong weight or bias gradient shows
      norm.weight.copy_(kd::randn(shape));
      norm.bias.copy_(kd::randn(shape));
    }
  }
  kd::Tensor forward(const kd::Tensor& x) override { return body(*this, x); }
};

/// Eager vs compiled (generated backward, and eager backward), outputs and every gradient.
void check_norm_model(NormModel& model, const kd::Tensor& x, const std::string& name) {
  const Result eager = run_with_grads([&](const kd::Tensor& t) { return model(t); }, model, x);
  for (bool generated : {true, false}) {
    INFO(name << (generated ? ", generated backward" : ", eager backward"));
    TempCache cache(name + (generated ? "_gen" : "_eager"));
    auto fast = kd::compile(model, {.generate_backward = generated, .cache_dir = cache.dir});
    check_same(eager, run_with_grads([&](const kd::Tensor& t) { return (*fast)(t); }, model, x));
    kd::NoGradGuard no_grad;
    CHECK(kd::allclose(model(x), (*fast)(x), 1e-5, 1e-5));
  }
}

}  // namespace

TEST_CASE("compile: a LayerNorm joins the elementwise chain that feeds it, forward and backward") {
  kd::manual_seed(3);
  SECTION("a chain with broadcast operands, rows of a 3-d input") {
    NormModel m({48}, true, [](NormModel& s, const kd::Tensor& x) { return s.norm(kd::nn::functional::gelu(x) * s.scale + x); });
    check_norm_model(m, kd::randn({2, 5, 48}) * 3.0 + 1.0, "ln_chain");
    TempCache cache("ln_chain_graph");
    auto fast = kd::compile(m, {.cache_dir = cache.dir});
    (*fast)(kd::randn({2, 5, 48}));
    CHECK(count_op(*fast->graph(), "layer_norm") == 0);
    CHECK(count_op(*fast->graph(), "fused") == 1);
    CHECK(fast->graph()->num_kernels() == 1);
  }
  SECTION("no weight and bias; a row length that is not a multiple of the vector width") {
    NormModel m({37}, false, [](NormModel& s, const kd::Tensor& x) { return s.norm((x * s.scale).tanh()); });
    check_norm_model(m, kd::randn({9, 37}), "ln_plain");
  }
  SECTION("a LayerNorm of the input alone is a generated kernel too") {
    NormModel m({64}, true, [](NormModel& s, const kd::Tensor& x) { return s.norm(x) * s.scale; });
    check_norm_model(m, kd::randn({6, 64}) + 5.0, "ln_alone");
  }
  SECTION("a chain whose result is read again stays a region of its own") {
    NormModel m({16}, true, [](NormModel& s, const kd::Tensor& x) {
      const kd::Tensor h = (x * s.scale).sigmoid() + x;
      return s.norm(h) + h;
    });
    check_norm_model(m, kd::randn({4, 16}), "ln_shared");
  }
  SECTION("a transposed input: the rows are read through their strides") {
    NormModel m({12}, true, [](NormModel& s, const kd::Tensor& x) { return s.norm(x.relu() * s.scale); });
    check_norm_model(m, kd::randn({12, 7}).t(), "ln_transposed");
  }
  SECTION("normalising two dims, or a row longer than the generated kernel takes, stays eager") {
    NormModel two({3, 8}, true, [](NormModel& s, const kd::Tensor& x) { return s.norm(x.exp()); });
    check_norm_model(two, kd::randn({5, 3, 8}), "ln_two_dims");
    NormModel wide({9000}, true, [](NormModel& s, const kd::Tensor& x) { return s.norm(x.abs() + x); });
    check_norm_model(wide, kd::randn({2, 9000}), "ln_wide");
    for (NormModel* m : {&two, &wide}) {
      TempCache cache("ln_eager_graph");
      auto fast = kd::compile(*m, {.cache_dir = cache.dir});
      (*fast)(m == &two ? kd::randn({5, 3, 8}) : kd::randn({2, 9000}));
      CHECK(count_op(*fast->graph(), "layer_norm") == 1);
    }
  }
}

TEST_CASE("compile: an elementwise chain with broadcasting becomes one generated kernel") {
  TempCache cache("pointwise");
  kd::manual_seed(1);
  Pointwise model(24);
  auto fast = kd::compile(model, {.cache_dir = cache.dir});
  const kd::Tensor x = kd::randn({5, 24});
  check_same(run_with_grads([&](const kd::Tensor& t) { return model(t); }, model, x),
             run_with_grads([&](const kd::Tensor& t) { return (*fast)(t); }, model, x));
  const auto& g = *fast->graph();
  CHECK(g.nodes.size() == 1);
  CHECK(g.nodes[0].op == "fused");
  CHECK(g.nodes[0].body.size() >= 10);
  CHECK(g.num_kernels() == 1);
  // The broadcast operands are read with stride 0 along the batch.
  CHECK(fast->source().find("for (std::int64_t i1 = 0; i1 < 24; ++i1)") != std::string::npos);
}

TEST_CASE("compile: a transposed (non-contiguous) input is read through its strides") {
  TempCache cache("strided");
  kd::manual_seed(2);
  Pointwise model(6);
  auto fast = kd::compile(model, {.cache_dir = cache.dir});
  const kd::Tensor xt = kd::randn({6, 7}).transpose(0, 1);  // [7, 6], strides [1, 7]
  REQUIRE_FALSE(xt.is_contiguous());
  check_same(run_with_grads([&](const kd::Tensor& t) { return model(t); }, model, xt),
             run_with_grads([&](const kd::Tensor& t) { return (*fast)(t); }, model, xt));
  // The same shape, contiguous: other strides, so another graph (another kernel).
  const kd::Tensor xc = xt.contiguous();
  kd::NoGradGuard no_grad;
  CHECK(kd::allclose(model(xc), (*fast)(xc), 1e-5, 1e-5));
  CHECK(fast->stats().traces == 2);
}

TEST_CASE("compile: eliminate_dead_code drops a branch the output does not need") {
  struct Branchy : kd::nn::Module {
    kd::Tensor forward(const kd::Tensor& x) override {
      const kd::Tensor unused = x.exp() * 3.0;
      (void)unused;
      return x.tanh();
    }
  } model;
  const kd::Tensor x = kd::randn({3, 4});
  kd::jit::Graph g = kd::jit::trace(model, x);
  CHECK(g.nodes.size() == 3);
  CHECK(g.str().find("exp(%0)") != std::string::npos);
  CHECK(kd::jit::eliminate_dead_code(g) == 2);
  REQUIRE(g.nodes.size() == 1);
  CHECK(g.nodes[0].op == "tanh");
  CHECK(g.str().find("exp") == std::string::npos);
  auto out = kd::jit::run(std::make_shared<const kd::jit::Graph>(std::move(g)), {x});
  CHECK(kd::allclose(out[0], x.tanh()));
}

TEST_CASE(
    "compile: fold_constants computes what reads only frozen parameters, and re-traces when they change") {
  TempCache cache("fold");
  struct Frozen : kd::nn::Module {
    kd::Tensor w;
    Frozen() { w = register_parameter("w", kd::randn({4}), /*requires_grad=*/false); }
    kd::Tensor forward(const kd::Tensor& x) override { return x * (w * 2.0 + 1.0); }
  } model;
  const kd::Tensor x = kd::randn({3, 4});
  kd::jit::Graph g = kd::jit::trace(model, x);
  CHECK(g.nodes.size() == 3);
  CHECK(kd::jit::fold_constants(g) == 2);
  REQUIRE(g.nodes.size() == 1);
  CHECK(g.nodes[0].op == "mul");
  CHECK_FALSE(model.w.requires_grad());  // the trace gave it back as it was

  auto fast = kd::compile(model, {.cache_dir = cache.dir});
  CHECK(kd::allclose((*fast)(x), model(x)));
  {
    kd::NoGradGuard no_grad;
    model.w.mul_(3.0);  // an in-place update the folded constant must not hide
  }
  CHECK(kd::allclose((*fast)(x), model(x)));
  CHECK(fast->stats().traces == 2);
}

TEST_CASE("compile: guards re-trace on a new batch size and on train/eval, and reuse a known key") {
  TempCache cache("guards");
  kd::manual_seed(3);
  MLP model;
  auto fast = kd::compile(model, {.cache_dir = cache.dir});
  kd::NoGradGuard no_grad;
  const kd::Tensor a = kd::randn({4, 32}), b = kd::randn({9, 32});
  CHECK(kd::allclose((*fast)(a), model(a), 1e-5, 1e-5));
  CHECK(fast->stats().traces == 1);
  CHECK(kd::allclose((*fast)(b), model(b), 1e-5, 1e-5));
  CHECK(fast->stats().traces == 2);
  model.eval();
  CHECK(kd::allclose((*fast)(a), model(a), 1e-5, 1e-5));
  CHECK(fast->stats().traces == 3);
  model.train();
  CHECK(kd::allclose((*fast)(a), model(a), 1e-5, 1e-5));
  CHECK(fast->stats().traces == 3);                               // seen before
  CHECK(fast->stats().compiled + fast->stats().cache_hits == 3);  // one library per traced graph
}

TEST_CASE("compile: explain reports the graph breaks, the passes and the bytes fusion saves") {
  TempCache cache("explain");
  struct Scan : kd::nn::Module {  // cumsum has no node in the compiler's IR
    kd::Tensor forward(const kd::Tensor& x) override { return x.cumsum(1) * 2.0; }
  };
  struct Net : kd::nn::Module {
    Scan scan;
    Net() { register_module("scan", scan); }
    kd::Tensor forward(const kd::Tensor& x) override { return (scan(x.tanh() * 3.0).sigmoid() + 1.0) * x; }
  } model;
  std::ostringstream log;
  auto fast = kd::compile(model, {.explain = true, .explain_stream = &log, .cache_dir = cache.dir});
  const kd::Tensor x = kd::randn({4, 5});
  check_same(run_with_grads([&](const kd::Tensor& t) { return model(t); }, model, x),
             run_with_grads([&](const kd::Tensor& t) { return (*fast)(t); }, model, x));
  const std::string text = fast->explain();
  CHECK(text == log.str());
  CHECK(text.find("== graph breaks: 1") != std::string::npos);
  CHECK(text.find("eager module scan: op 'cumsum'") != std::string::npos);
  CHECK(text.find("== eliminate_dead_code") != std::string::npos);
  CHECK(text.find("== fold_constants") != std::string::npos);
  CHECK(text.find("== fuse_elementwise: 2 fused nodes") != std::string::npos);
  CHECK(text.find("== kernels: 6 before fusion, 3 after") != std::string::npos);
  CHECK(text.find("== intermediate bytes not written: 240") != std::string::npos);  // three [4, 5] floats
  CHECK(text.find("= fused[tanh, mul](%0, %2)") != std::string::npos);
}

TEST_CASE("compile: a corrupt cache entry is rebuilt, never loaded") {
  TempCache cache("corrupt");
  kd::manual_seed(4);
  Pointwise model(8);
  const kd::Tensor x = kd::randn({3, 8});
  kd::NoGradGuard no_grad;
  const kd::Tensor expected = model(x);
  {
    auto fast = kd::compile(model, {.cache_dir = cache.dir});
    CHECK(kd::allclose((*fast)(x), expected, 1e-5, 1e-5));
    CHECK(fast->stats().compiled == 1);
  }
  {
    auto fast = kd::compile(model, {.cache_dir = cache.dir});
    CHECK(kd::allclose((*fast)(x), expected, 1e-5, 1e-5));
    CHECK(fast->stats().cache_hits == 1);
    CHECK(fast->stats().compiled == 0);
  }
  fs::path so;
  for (const auto& e : fs::directory_iterator(cache.dir))
    if (e.path().extension() == ".so") so = e.path();
  REQUIRE(!so.empty());
  std::string bytes;
  {
    std::ifstream f(so, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(f), {});
  }
  bytes[bytes.size() / 2] ^= 0x5a;  // one flipped byte in the middle of the code
  fs::remove(so);                   // a new file (the old one may still be mapped by this process)
  std::ofstream(so, std::ios::binary) << bytes;
  {
    auto fast = kd::compile(model, {.cache_dir = cache.dir});
    CHECK(kd::allclose((*fast)(x), expected, 1e-5, 1e-5));
    CHECK(fast->stats().rejected == 1);
    CHECK(fast->stats().compiled == 1);
    CHECK(fast->stats().cache_hits == 0);
  }
  std::string rebuilt;
  {
    std::ifstream f(so, std::ios::binary);
    rebuilt.assign(std::istreambuf_iterator<char>(f), {});
  }
  CHECK(rebuilt != bytes);
}

TEST_CASE("compile: a compiler failure names the fused regions and quotes the compiler") {
  TempCache cache("cc_error");
  kd::manual_seed(5);
  Pointwise model(4);
  kd::CompileOptions options{.cache_dir = cache.dir};
  options.flags.push_back("-fkindling-no-such-flag");
  auto fast = kd::compile(model, options);
  const kd::Tensor x = kd::randn({2, 4});
  CHECK_THROWS_WITH((*fast)(x), Catch::Contains("compiling the fused regions %") &&
                                    Catch::Contains("fused[add, tanh") &&
                                    Catch::Contains("kindling-no-such-flag"));
  // Without fusion nothing is compiled: the graph runs its ops eagerly.
  auto plain = kd::compile(model, {.fuse = false, .cache_dir = cache.dir});
  kd::NoGradGuard no_grad;
  CHECK(kd::allclose((*plain)(x), model(x)));
  CHECK(plain->source().find("kd_fused") == std::string::npos);
}

TEST_CASE("compile: Graph::str prints one line per node with shapes and dtypes") {
  kd::manual_seed(6);
  MLP model;
  kd::jit::Graph g = kd::jit::trace(model, kd::randn({2, 32}));
  const std::string s = g.str();
  CHECK(s.find("%0 = input : [2, 32] float32") != std::string::npos);
  CHECK(s.find("%fc1.weight = parameter : [64, 32] float32") != std::string::npos);
  CHECK(s.find("= gelu(") != std::string::npos);
  CHECK(s.find("= layer_norm(") != std::string::npos);
  CHECK(s.find(" : [2, 64] float32") != std::string::npos);
  CHECK(s.find("return %") != std::string::npos);
}

TEST_CASE("compile: Graph::dot draws every node and edge, and Graphviz accepts it") {
  kd::manual_seed(6);
  MLP model;
  kd::jit::Graph g = kd::jit::trace(model, kd::randn({2, 32}));
  kd::jit::fuse_elementwise(g);
  const std::string d = g.dot();
  CHECK(d.rfind("digraph ir {", 0) == 0);
  CHECK(d.find("label=\"input\"") != std::string::npos);
  CHECK(d.find("label=\"fc1.weight\"") != std::string::npos);
  CHECK(d.find("label=\" [2, 64]\"") != std::string::npos);  // an edge carries its shape
  std::size_t boxes = 0;
  for (std::size_t at = d.find("shape=box"); at != std::string::npos; at = d.find("shape=box", at + 1)) ++boxes;
  CHECK(boxes == g.nodes.size());
  for (const auto& n : g.nodes)
    if (n.op == "fused") CHECK(d.find("fillcolor") != std::string::npos);
  // Graphviz itself parses it (graphviz is a build dependency: the book draws with it).
  if (std::filesystem::exists("/usr/bin/dot")) {
    const auto path = std::filesystem::temp_directory_path() / ("kd_ir_" + std::to_string(::getpid()) + ".dot");
    std::ofstream(path) << d;
    CHECK(std::system(("/usr/bin/dot -Tsvg -o /dev/null " + path.string()).c_str()) == 0);
    std::filesystem::remove(path);
  }
}

TEST_CASE("compile: a Dropout in training stays eager (a fresh mask every call); in eval it is traced away") {
  TempCache cache("dropout");
  struct Net : kd::nn::Module {
    kd::nn::Linear fc{8, 8};
    kd::nn::Dropout drop{0.5};
    Net() {
      register_module("fc", fc);
      register_module("drop", drop);
    }
    kd::Tensor forward(const kd::Tensor& x) override { return drop(fc(x)).tanh() * 2.0 + 1.0; }
  } model;
  auto fast = kd::compile(model, {.cache_dir = cache.dir});
  const kd::Tensor x = kd::randn({16, 8});
  kd::NoGradGuard no_grad;
  const kd::Tensor a = (*fast)(x), b = (*fast)(x);
  CHECK_FALSE(kd::allclose(a, b));  // the mask is not a constant of the trace
  CHECK(count_op(*fast->graph(), "module") == 1);
  CHECK(count_op(*fast->graph(), "fused") == 1);
  model.eval();
  CHECK(kd::allclose((*fast)(x), model(x), 1e-5, 1e-5));
  CHECK(count_op(*fast->graph(), "module") == 0);
}

TEST_CASE("compile: a forward that exports or compiles while it is traced is refused, not deadlocked") {
  // kd::compile and the ONNX exporter swap the same process-wide recorder: one trace at a time.
  struct Nested : kd::nn::Module {
    kd::nn::Linear fc{4, 4};
    std::function<void(kd::nn::Module&, const kd::Tensor&)> inner;
    Nested() { register_module("fc", fc); }
    kd::Tensor forward(const kd::Tensor& x) override {
      if (inner) inner(fc, x);
      return fc(x).relu();
    }
  };
  TempCache cache("nested");
  Nested model;
  const kd::Tensor x = kd::randn({2, 4});
  const fs::path onnx_path = cache.dir / "inner.onnx";
  fs::create_directories(cache.dir);
  model.inner = [&](kd::nn::Module& fc, const kd::Tensor& in) { kd::onnx::export_model(fc, in, onnx_path); };
  auto fast = kd::compile(model, {.cache_dir = cache.dir});
  CHECK_THROWS_WITH((*fast)(x), Catch::Contains("another export traces on this thread (or kd::compile)"));
  model.inner = [&](kd::nn::Module& fc, const kd::Tensor& in) {
    (*kd::compile(fc, {.cache_dir = cache.dir}))(in);
  };
  CHECK_THROWS_WITH((*fast)(x), Catch::Contains("called kd::compile again"));
  // The lock was released each time: a plain compile and an export still work.
  model.inner = nullptr;
  CHECK(kd::allclose((*fast)(x), model(x)));
  kd::onnx::export_model(model, x, onnx_path);
  CHECK(fs::exists(onnx_path));
}

TEST_CASE("compile: every fused op's generated backward gives eager's gradients, as does the eager backward") {
  // One region with every elementwise op the generator knows (and operands broadcast over rows and
  // columns), so that each derivative in compile_derivatives.cpp is checked against autograd's.
  namespace F = kd::nn::functional;
  struct AllOps : kd::nn::Module {
    kd::Tensor row, col;
    AllOps() {
      row = register_parameter("row", kd::randn({1, 6}));
      col = register_parameter("col", kd::randn({5, 1}));
    }
    kd::Tensor forward(const kd::Tensor& x) override {
      const kd::Tensor a = (x * row - col).tanh() + x.sigmoid() * 0.5;       // mul, sub, tanh, sigmoid, add
      const kd::Tensor b = F::gelu(a) + F::gelu(x, "tanh") + F::silu(a - x);  // both GELUs, SiLU
      const kd::Tensor c = F::leaky_relu(b, 0.1) + kd::relu(x) - x.abs().neg();
      const kd::Tensor d = (x.abs() + 1.0).sqrt().log() + x.sin() * x.cos() + x.erf();
      const kd::Tensor e = (x * x + 0.5).reciprocal() + x.pow(3.0) / (row * row + 1.0) + x.exp() * 0.1;
      const kd::Tensor f = x.clamp(-0.5, 0.7) + x.clamp(std::nullopt, 0.2) + x.maximum(a) + x.minimum(col);
      return c + d + e + f + kd::rsub(x, 2.0, 0.5);
    }
  };
  AllOps model;
  const kd::Tensor x = kd::randn({5, 6});
  const Result eager = run_with_grads([&](const kd::Tensor& in) { return model(in); }, model, x);
  for (const bool generated : {true, false}) {
    INFO("generate_backward = " << generated);
    TempCache cache(generated ? "allops_gen" : "allops_eager");
    auto fast = kd::compile(model, {.generate_backward = generated, .cache_dir = cache.dir});
    check_same(eager, run_with_grads([&](const kd::Tensor& in) { return (*fast)(in); }, model, x));
    CHECK(count_op(*fast->graph(), "fused") >= 1);
    CHECK((fast->source().find("_backward(") != std::string::npos) == generated);
  }
}

TEST_CASE("compile: a compile and an ONNX export on two threads take turns with the recorder", "[threads]") {
  // Both trace by swapping the process-wide recorder (trace_lock.hpp); a third thread trains eagerly
  // meanwhile, its ops passing through whichever recorder is installed. ThreadSanitizer runs this.
  struct Small : kd::nn::Module {
    kd::nn::Linear fc{8, 8};
    Small() { register_module("fc", fc); }
    kd::Tensor forward(const kd::Tensor& x) override { return (fc(x) * 0.5).tanh() + x; }
  };
  TempCache cache("threads");
  fs::create_directories(cache.dir);
  Small a, b, c;
  const kd::Tensor x = kd::randn({4, 8});
  const kd::Tensor want_a = a(x).detach(), want_c = c(x).detach();
  std::atomic<int> failures{0};
  std::thread compiler([&] {
    for (int i = 0; i < 4; ++i) {
      auto fast = kd::compile(a, {.cache_dir = cache.dir});
      if (!kd::allclose((*fast)(x), want_a, 1e-5, 1e-6)) ++failures;
    }
  });
  std::thread exporter([&] {
    for (int i = 0; i < 4; ++i) kd::onnx::export_model(b, x, cache.dir / ("b" + std::to_string(i) + ".onnx"));
  });
  std::thread eager([&] {
    for (int i = 0; i < 20; ++i) {
      c.zero_grad(true);
      const kd::Tensor y = c(x);
      y.sum().backward();
      if (!kd::allclose(y.detach(), want_c) || !c.fc.weight.grad().defined()) ++failures;
    }
  });
  compiler.join();
  exporter.join();
  eager.join();
  CHECK(failures == 0);
  CHECK(fs::exists(cache.dir / "b3.onnx"));
}

TEST_CASE("compile: a cached library loaded twice, then another, each module runs its own kernels") {
  // The second load of the same file must not leave a name behind (/proc/self/fd/N) that the dynamic
  // loader matches when the descriptor number is reused for the next library (compile_cache.cpp).
  TempCache cache("reload");
  kd::manual_seed(5);
  auto chain = [](NormModel& s, const kd::Tensor& x) { return s.norm(kd::nn::functional::gelu(x) * s.scale + x); };
  NormModel wide({256}, true, chain);
  const kd::Tensor xw = kd::randn({64, 256});
  kd::NoGradGuard no_grad;
  auto first = kd::compile(wide, {.cache_dir = cache.dir});
  CHECK(kd::allclose((*first)(xw), wide(xw), 1e-5, 1e-5));
  {
    auto again = kd::compile(wide, {.cache_dir = cache.dir});
    CHECK(kd::allclose((*again)(xw), wide(xw), 1e-5, 1e-5));
    CHECK(again->stats().cache_hits == 1);
  }
  for (int i = 0; i < 3; ++i) {  // a new library each time, loaded while `first` holds the old one
    NormModel other({16 + i}, true, chain);
    auto fast = kd::compile(other, {.cache_dir = cache.dir});
    const kd::Tensor x = kd::randn({8, 16 + i});
    CHECK(kd::allclose((*fast)(x), other(x), 1e-5, 1e-5));
  }
  CHECK(kd::allclose((*first)(xw), wide(xw), 1e-5, 1e-5));
}

TEST_CASE("compile: NaN inputs, infinite and NaN bounds and negative scalars give eager's values and gradients") {
  // relu(NaN) is NaN and passes its gradient (threshold), maximum/minimum give the gradient to an
  // operand wherever it does not lose (so both, next to a NaN), and the generated C++ spells -1.5,
  // -inf and NaN as literals that compile.
  struct Edges : kd::nn::Module {
    kd::Tensor row, col;
    bool nan_bound = false;
    Edges() {
      row = register_parameter("row", kd::randn({1, 6}));
      col = register_parameter("col", kd::randn({5, 1}));
    }
    kd::Tensor forward(const kd::Tensor& x) override {
      const double inf = std::numeric_limits<double>::infinity();
      const kd::Tensor a = kd::relu(x) + x.maximum(row) + x.minimum(col);
      const kd::Tensor b = kd::sub(x * 2.0, x * row, -1.5) + kd::rsub(x, 1.0, -0.5);
      const kd::Tensor c = x.clamp(-inf, 1.0) + x.clamp(-0.5, inf) * col;
      const kd::Tensor d = nan_bound ? x.clamp(std::nan(""), 1.0) : x * 1.0;
      return a + b + c + d;
    }
  };
  Edges model;
  kd::Tensor x = kd::randn({5, 6});
  x.index_put_({1, 2}, std::nan(""));
  x.index_put_({3, 0}, std::nan(""));
  auto same = [](const kd::Tensor& a, const kd::Tensor& b) {
    return a.defined() == b.defined() && (!a.defined() || kd::allclose(a, b, 1e-4, 1e-5, /*equal_nan=*/true));
  };
  for (const bool nan_bound : {false, true}) {
    INFO("a NaN clamp bound: " << nan_bound);
    model.nan_bound = nan_bound;
    const Result eager = run_with_grads([&](const kd::Tensor& in) { return model(in); }, model, x);
    if (nan_bound) CHECK((eager.out != eager.out).all().item<bool>());  // PyTorch: all NaN
    TempCache cache(nan_bound ? "edges_nan" : "edges");
    auto fast = kd::compile(model, {.cache_dir = cache.dir});
    const Result compiled = run_with_grads([&](const kd::Tensor& in) { return (*fast)(in); }, model, x);
    CHECK(count_op(*fast->graph(), "fused") >= 1);
    CHECK(same(eager.out, compiled.out));
    CHECK(same(eager.input_grad, compiled.input_grad));
    REQUIRE(eager.grads.size() == compiled.grads.size());
    for (std::size_t i = 0; i < eager.grads.size(); ++i) CHECK(same(eager.grads[i], compiled.grads[i]));
  }
}

TEST_CASE("compile: a forward the trace cannot follow at all runs eagerly as one node, as eager would") {
  // An in-place op on the input: eager runs it (the input does not require grad), but the trace makes
  // its input require grad, and autograd refuses an in-place op on such a leaf.
  struct InPlace : kd::nn::Module {
    kd::nn::Linear fc{4, 3};
    kd::nn::BatchNorm1d bn{3};
    InPlace() {
      register_module("fc", fc);
      register_module("bn", bn);
    }
    kd::Tensor forward(const kd::Tensor& x) override {
      kd::Tensor in = x;
      in.mul_(2.0);
      return bn(fc(in));
    }
  };
  // An integer input that no recorded op reads: nothing autograd sees makes the output.
  struct Ints : kd::nn::Module {
    kd::Tensor forward(const kd::Tensor& x) override {
      kd::Tensor in = x;
      in.add_(1);  // nothing records an integer tensor's ops: the trace must not run this on x
      return in * 2;
    }
  };
  TempCache cache("whole_model");
  std::ostringstream quiet;
  InPlace model, twin;
  twin.load_state_dict(model.state_dict());
  kd::Tensor x = kd::randn({5, 4}), x_twin = x.clone();
  auto fast = kd::compile(model, {.explain = true, .explain_stream = &quiet, .cache_dir = cache.dir});
  kd::Tensor y = (*fast)(x);
  const kd::Tensor want = twin(x_twin);
  CHECK(kd::allclose(y, want));
  CHECK(kd::allclose(x, x_twin));  // the in-place op ran once on the caller's tensor, as in eager
  // Compiling ran the forward besides the call: the running statistics still count one batch.
  CHECK(kd::allclose(model.bn.running_mean, twin.bn.running_mean));
  CHECK(count_op(*fast->graph(), "module") == 1);
  CHECK(fast->graph()->nodes.size() == 1);
  CHECK_THAT(fast->explain(), Catch::Contains("InPlace (the whole model): the traced forward threw"));
  // Gradients still reach the parameters through the eager node.
  y.sum().backward();
  want.sum().backward();
  CHECK(kd::allclose(model.fc.weight.grad(), twin.fc.weight.grad()));

  Ints ints;
  auto fast_ints = kd::compile(ints, {.explain = true, .explain_stream = &quiet, .cache_dir = cache.dir});
  const kd::Tensor i = kd::arange(6).reshape({2, 3}), i_twin = i.clone();
  const kd::Tensor got = (*fast_ints)(i);
  CHECK(got.dtype() == kd::kInt64);
  CHECK(kd::equal(got, ints(i_twin)));
  CHECK(kd::equal(i, i_twin));  // one add_ each
  CHECK_THAT(fast_ints->explain(), Catch::Contains("Ints (the whole model): its output"));
  // A forward eager refuses throws eager's own error.
  auto fast_bad = kd::compile(model, {.cache_dir = cache.dir});
  CHECK_THROWS_WITH((*fast_bad)(kd::randn({5, 7})), Catch::Contains("cannot go through a layer with in_features=4"));
}

TEST_CASE("compile: a module that reads a number out of a tensor runs eagerly, not frozen at its traced value") {
  struct Scaled : kd::nn::Module {
    kd::nn::Linear fc{4, 4};
    Scaled() { register_module("fc", fc); }
    kd::Tensor forward(const kd::Tensor& x) override {
      const double s = x.abs().sum().item<double>();  // data-dependent: another input, another s
      return fc(x).tanh() * (1.0 / s);
    }
  };
  struct Outer : kd::nn::Module {
    Scaled inner;
    kd::nn::Linear head{4, 2};
    Outer() {
      register_module("inner", inner);
      register_module("head", head);
    }
    kd::Tensor forward(const kd::Tensor& x) override { return kd::nn::functional::gelu(head(inner(x))) + 1.0; }
  };
  TempCache cache("item");
  std::ostringstream quiet;
  Outer model;
  auto fast = kd::compile(model, {.explain = true, .explain_stream = &quiet, .cache_dir = cache.dir});
  kd::NoGradGuard no_grad;
  const kd::Tensor a = kd::randn({3, 4}), b = kd::randn({3, 4}) * 5.0;
  CHECK(kd::allclose((*fast)(a), model(a), 1e-5, 1e-6));
  CHECK(kd::allclose((*fast)(b), model(b), 1e-5, 1e-6));  // same guard key, another sum
  CHECK(count_op(*fast->graph(), "module") == 1);         // only `inner` runs eagerly
  CHECK(count_op(*fast->graph(), "fused") >= 1);          // the head's epilogue is still fused
  CHECK_THAT(fast->explain(), Catch::Contains("item() reads a value out of a tensor"));
}
