// The autograd engine's semantics: leaves and grad_fn, accumulation, retain_graph, the errors
// PyTorch raises, NoGradGuard, detach, retain_grad, long chains and freeing the graph.
// Gradient *values* are checked by gradcheck (test_gradcheck.cpp) and against PyTorch
// (tests/parity/ch02_autograd.*); here expectations are relations (twice the first gradient, ...).
#include <pthread.h>

#include <catch2/catch.hpp>
#include <kindling/autograd.hpp>
#include <sstream>
#include <thread>

namespace kd = kindling;
using Catch::Matchers::Contains;

namespace {
kd::Tensor leaf(const kd::Shape& s, kd::DType dtype = kd::kFloat32) {
  return kd::randn(s, {.dtype = dtype}).requires_grad_();
}
}  // namespace

TEST_CASE("requires_grad: propagates through ops, leaves vs non-leaves") {
  kd::Tensor x = leaf({2, 3});
  kd::Tensor c = kd::randn({2, 3});
  CHECK(x.requires_grad());
  CHECK(x.is_leaf());
  CHECK(x.grad_fn() == nullptr);
  CHECK_FALSE(c.requires_grad());
  kd::Tensor y = x * c;
  CHECK(y.requires_grad());
  CHECK_FALSE(y.is_leaf());
  REQUIRE(y.grad_fn() != nullptr);
  kd::Tensor z = c * 2;
  CHECK_FALSE(z.requires_grad());
  CHECK(z.is_leaf());  // PyTorch: a tensor that does not require grad is a leaf by convention
  // Views of a tensor that requires grad require grad too.
  CHECK(x.t().requires_grad());
  CHECK(x[0].requires_grad());
  // Non-differentiable results do not: comparisons, argmax, integer copies.
  CHECK_FALSE((x > 0.0).requires_grad());
  CHECK_FALSE(x.argmax().requires_grad());
  CHECK_FALSE(x.to(kd::kInt64).requires_grad());
  // max(dim): values require grad, indices do not.
  auto [values, indices] = x.max(1);
  CHECK(values.requires_grad());
  CHECK_FALSE(indices.requires_grad());
}

TEST_CASE("requires_grad_: refuses integer tensors and non-leaves") {
  kd::Tensor i = kd::arange(4);
  CHECK_THROWS_WITH(i.requires_grad_(), Contains("floating point"));
  CHECK_THROWS_AS(i.requires_grad_(), kd::AutogradError);
  kd::Tensor y = leaf({3}) * 2;
  CHECK_THROWS_WITH(y.requires_grad_(false), Contains("leaf") && Contains("detach()"));
  kd::Tensor x = leaf({3});
  x.requires_grad_(false);
  CHECK_FALSE(x.requires_grad());
  CHECK_FALSE((x * 2).requires_grad());
}

TEST_CASE("grad_fn: node names are PyTorch's") {
  kd::Tensor x = leaf({2, 3});
  kd::Tensor v = leaf({3});
  kd::Tensor m = leaf({3, 3});
  kd::Tensor b = leaf({2, 3, 3});
  auto name = [](const kd::Tensor& t) { return std::string(t.grad_fn()->name()); };
  CHECK(name(x * 2) == "MulBackward0");
  CHECK(name(x + 2) == "AddBackward0");
  CHECK(name(x - x) == "SubBackward0");
  CHECK(name(x / 2) == "DivBackward0");
  CHECK(name(-x) == "NegBackward0");
  CHECK(name(x.pow(2)) == "PowBackward0");
  CHECK(name(x.pow(kd::full({2, 3}, 2.0))) == "PowBackward1");
  CHECK(name(x.abs()) == "AbsBackward0");
  CHECK(name(x.exp()) == "ExpBackward0");
  CHECK(name(x.relu()) == "ReluBackward0");
  CHECK(name(x.sigmoid()) == "SigmoidBackward0");
  CHECK(name(x.tanh()) == "TanhBackward0");
  CHECK(name(x.clamp(0, 1)) == "ClampBackward1");
  CHECK(name(x.maximum(x)) == "MaximumBackward0");
  CHECK(name(kd::where(x > 0.0, x, 0.0)) == "WhereBackward0");
  CHECK(name(x.sum()) == "SumBackward0");
  CHECK(name(x.sum(0)) == "SumBackward1");
  CHECK(name(x.mean()) == "MeanBackward0");
  CHECK(name(x.mean(1)) == "MeanBackward1");
  CHECK(name(x.max()) == "MaxBackward1");
  CHECK(name(x.max(0).first) == "MaxBackward0");
  CHECK(name(x.min()) == "MinBackward1");
  CHECK(name(x.var()) == "VarBackward0");
  CHECK(name(x.std(0, false)) == "StdBackward0");
  CHECK(name(x.softmax(1)) == "SoftmaxBackward0");
  CHECK(name(x.log_softmax(1)) == "LogSoftmaxBackward0");
  CHECK(name(x.view({6})) == "ViewBackward0");
  CHECK(name(x.reshape({3, 2})) == "ReshapeAliasBackward0");
  CHECK(name(x.permute({1, 0})) == "PermuteBackward0");
  CHECK(name(x.transpose(0, 1)) == "TransposeBackward0");
  CHECK(name(x.t()) == "TBackward0");
  CHECK(name(x.expand({4, 2, 3})) == "ExpandBackward0");
  CHECK(name(x.unsqueeze(0)) == "UnsqueezeBackward0");
  CHECK(name(x.unsqueeze(0).squeeze()) == "SqueezeBackward0");
  CHECK(name(x.unsqueeze(0).squeeze(0)) == "SqueezeBackward1");
  CHECK(name(x[0]) == "SelectBackward0");
  CHECK(name(x.slice(1, 1, 3)) == "SliceBackward0");
  CHECK(name(x.clone()) == "CloneBackward0");
  CHECK(name(x.t().contiguous()) == "CloneBackward0");
  CHECK(name(x.to(kd::kFloat64)) == "ToCopyBackward0");
  CHECK(name(kd::cat({x, x})) == "CatBackward0");
  CHECK(name(kd::stack({x, x})) == "StackBackward0");
  CHECK(name(x.mm(x.t())) == "MmBackward0");
  CHECK(name(v.matmul(v)) == "DotBackward0");
  CHECK(name(m.matmul(v)) == "MvBackward0");
  CHECK(name(m.matmul(m)) == "MmBackward0");
  CHECK(name(b.matmul(b)) == "UnsafeViewBackward0");  // PyTorch: _unsafe_view of a bmm
}

TEST_CASE("next_functions: walk from the output down to AccumulateGrad") {
  kd::Tensor x = leaf({3});
  kd::Tensor w = leaf({3});
  kd::Tensor c = kd::randn({3});
  kd::Tensor loss = (x * w + c * x).sum();
  auto sum = loss.grad_fn();
  REQUIRE(std::string(sum->name()) == "SumBackward0");
  REQUIRE(sum->next_functions().size() == 1);
  auto add = sum->next_functions()[0].function;
  REQUIRE(std::string(add->name()) == "AddBackward0");
  REQUIRE(add->next_functions().size() == 2);
  auto mul1 = add->next_functions()[0].function;
  auto mul2 = add->next_functions()[1].function;
  CHECK(std::string(mul1->name()) == "MulBackward0");
  CHECK(std::string(mul2->name()) == "MulBackward0");
  // x * w: both inputs lead to their leaves' AccumulateGrad nodes.
  auto acc_x = mul1->next_functions()[0].function;
  auto acc_w = mul1->next_functions()[1].function;
  REQUIRE(acc_x != nullptr);
  CHECK(std::string(acc_x->name()) == "AccumulateGrad");
  auto* acc = dynamic_cast<kd::autograd::AccumulateGrad*>(acc_x.get());
  REQUIRE(acc != nullptr);
  CHECK(acc->variable().is_same(x));
  CHECK(acc->next_functions().empty());
  CHECK(acc_w != acc_x);
  // c * x: c does not require grad -> an invalid edge (PyTorch's (None, 0)); x shares its accumulator.
  CHECK_FALSE(mul2->next_functions()[0].is_valid());
  CHECK(mul2->next_functions()[1].function == acc_x);
  // Multi-output: the values of max(dim) are output 0 of their node.
  auto [values, indices] = x.unsqueeze(0).max(1);
  CHECK(values.grad_fn()->num_outputs() == 2);
}

TEST_CASE("backward: gradients accumulate across calls (the zero_grad trap)") {
  kd::Tensor x = leaf({4});
  auto f = [&] { return (x * x).sum(); };
  CHECK_FALSE(x.grad().defined());
  f().backward();
  REQUIRE(x.grad().defined());
  kd::Tensor first = x.grad().clone();
  kd::Tensor grad_handle = x.grad();
  f().backward();
  // The second gradient is added to the first (PyTorch semantics), in place.
  CHECK(kd::allclose(x.grad(), first * 2));
  CHECK(x.grad().is_same(grad_handle));
  // zero_grad: clear it, and the next backward gives the single gradient again.
  x.set_grad(kd::Tensor());
  f().backward();
  CHECK(kd::allclose(x.grad(), first));
}

TEST_CASE("backward: a tensor used twice sums both contributions") {
  kd::Tensor x = leaf({3});
  kd::Tensor a = kd::randn({3}), b = kd::randn({3});
  (x * a + x * b).sum().backward();
  kd::Tensor both = x.grad().clone();
  x.set_grad(kd::Tensor());
  (x * a).sum().backward();
  kd::Tensor only_a = x.grad().clone();
  x.set_grad(kd::Tensor());
  (x * b).sum().backward();
  CHECK(kd::allclose(both, only_a + x.grad()));
}

TEST_CASE("backward: leaves sharing one incoming gradient get independent .grad tensors") {
  // AddBackward0 hands the same tensor to both inputs; accumulating into one must not change the other.
  kd::Tensor a = leaf({3}), b = leaf({3});
  (a + b).backward(kd::ones({3}));
  CHECK_FALSE(a.grad().shares_storage(b.grad()));
  (a * 3).sum().backward();
  CHECK(kd::allclose(b.grad(), kd::ones({3})));
}

TEST_CASE("backward: retain_graph allows a second pass, without it the saved tensors are freed") {
  kd::Tensor x = leaf({3});
  kd::Tensor y = (x * x).sum();
  y.backward({}, /*retain_graph=*/true);
  kd::Tensor first = x.grad().clone();
  y.backward();  // allowed: the graph was retained
  CHECK(kd::allclose(x.grad(), first * 2));
  CHECK_THROWS_AS(y.backward(), kd::AutogradError);
  CHECK_THROWS_WITH(y.backward(), Contains("second time") && Contains("retain_graph=true") &&
                                       Contains("MulBackward0"));
}

TEST_CASE("backward: a graph that saved nothing can be run twice (as in PyTorch)") {
  kd::Tensor x = leaf({3});
  kd::Tensor y = (x + 1).sum();
  y.backward();
  CHECK_NOTHROW(y.backward());
  CHECK(kd::allclose(x.grad(), kd::full({3}, 2.0)));
}

TEST_CASE("backward: a saved tensor modified in place is detected by its version counter") {
  kd::Tensor a = leaf({2, 3});
  kd::Tensor b = kd::randn({2, 3});
  kd::Tensor y = (a * b).sum();  // MulBackward0 saved b at version 0
  b.mul_(2);                     // b does not require grad: the in-place op is allowed
  CHECK(b.version() == 1);
  CHECK_THROWS_AS(y.backward(), kd::AutogradError);
  CHECK_THROWS_WITH(y.backward(), Contains("modified by an inplace operation") && Contains("[2, 3]") &&
                                       Contains("float32") && Contains("is at version 1; expected version 0") &&
                                       Contains("MulBackward0") && Contains("Hint"));
}

TEST_CASE("backward: a saved output modified in place under NoGradGuard names its node") {
  kd::Tensor x = leaf({3});
  kd::Tensor y = x.exp();  // ExpBackward0 saves its output
  {
    kd::NoGradGuard no_grad;
    y.mul_(2);
  }
  CHECK_THROWS_WITH(y.sum().backward(), Contains("output 0 of ExpBackward0") && Contains("is at version 1"));
}

TEST_CASE("backward: clear errors for misuse") {
  kd::Tensor x = leaf({2, 3});
  kd::Tensor y = x * 2;
  // Non-scalar output without a gradient.
  CHECK_THROWS_AS(y.backward(), kd::AutogradError);
  CHECK_THROWS_WITH(y.backward(), Contains("scalar") && Contains("[2, 3]") && Contains("Hint"));
  // Gradient of the wrong shape.
  CHECK_THROWS_AS(y.backward(kd::ones({3, 2})), kd::ShapeError);
  CHECK_THROWS_WITH(y.backward(kd::ones({3, 2})), Contains("[3, 2]") && Contains("[2, 3]"));
  // Integer gradient.
  CHECK_THROWS_AS(y.backward(kd::ones({2, 3}, {.dtype = kd::kInt64})), kd::DTypeError);
  // A tensor that does not require grad.
  kd::Tensor c = kd::randn({3});
  CHECK_THROWS_AS(c.sum().backward(), kd::AutogradError);
  CHECK_THROWS_WITH(c.sum().backward(), Contains("does not require grad"));
  // set_grad checks shape and dtype.
  CHECK_THROWS_AS(x.set_grad(kd::ones({3})), kd::ShapeError);
  CHECK_THROWS_AS(x.set_grad(kd::ones({2, 3}, {.dtype = kd::kFloat64})), kd::DTypeError);
  // retain_grad on a tensor that does not require grad.
  CHECK_THROWS_AS(c.retain_grad(), kd::AutogradError);
}

TEST_CASE("backward: a float64 gradient for a float32 output is converted") {
  kd::Tensor x = leaf({3});
  (x * 2).backward(kd::ones({3}, {.dtype = kd::kFloat64}));
  CHECK(x.grad().dtype() == kd::kFloat32);
  CHECK(x.grad().shape() == kd::Shape{3});
}

TEST_CASE("backward: gradients keep the dtype of their leaf through a dtype change") {
  kd::Tensor x = leaf({3});
  (x.to(kd::kFloat64) * 3).sum().backward();
  CHECK(x.grad().dtype() == kd::kFloat32);
}

TEST_CASE("backward: on a leaf itself stores the gradient") {
  kd::Tensor x = leaf({2});
  kd::Tensor g = kd::randn({2});
  x.backward(g);
  CHECK(kd::allclose(x.grad(), g));
  CHECK_FALSE(x.grad().shares_storage(g));  // .grad is its own tensor
}

TEST_CASE("backward: several outputs at once add their gradients") {
  kd::Tensor x = leaf({3});
  kd::Tensor a = (x * 2).sum(), b = (x * x).sum();
  kd::autograd::backward({a, b});
  kd::Tensor both = x.grad().clone();
  x.set_grad(kd::Tensor());
  ((x * 2).sum() + (x * x).sum()).backward();
  CHECK(kd::allclose(both, x.grad()));
}

TEST_CASE("backward: gradient of a broadcast input is summed back to its shape") {
  kd::Tensor b = leaf({3, 1});
  kd::Tensor x = kd::randn({2, 3, 4});
  (x * b).sum().backward();
  CHECK(b.grad().shape() == kd::Shape{3, 1});
  CHECK(kd::allclose(b.grad(), x.sum({0, 2}, true).reshape({3, 1}), 1e-4, 1e-5));
}

TEST_CASE("autograd::grad: returns gradients without touching .grad") {
  kd::Tensor x = leaf({3});
  kd::Tensor w = leaf({3});
  kd::Tensor y = (x * w).sum();
  auto g = kd::autograd::grad({y}, {x, w}, {}, /*retain_graph=*/true);
  REQUIRE(g.size() == 2);
  CHECK(kd::allclose(g[0], w));
  CHECK(kd::allclose(g[1], x));
  CHECK_FALSE(x.grad().defined());
  CHECK_FALSE(w.grad().defined());
  // Gradient w.r.t. an intermediate tensor.
  kd::Tensor h = x * 3;
  kd::Tensor z = (h * h).sum();
  auto gh = kd::autograd::grad({z}, {h});
  CHECK(kd::allclose(gh[0], h * 2));
  kd::Tensor unused = leaf({3});
  CHECK_THROWS_AS(kd::autograd::grad({(x * 2).sum()}, {unused}), kd::AutogradError);
  CHECK_FALSE(kd::autograd::grad({(x * 2).sum()}, {unused}, {}, false, /*allow_unused=*/true)[0].defined());
}

TEST_CASE("retain_grad: a non-leaf keeps its gradient only when asked") {
  kd::Tensor x = leaf({3});
  kd::Tensor h = x * 2;
  kd::Tensor k = x * 3;
  h.retain_grad();
  kd::Tensor y = (h * k).sum();
  y.retain_grad();
  y.backward();
  REQUIRE(h.grad().defined());
  CHECK(kd::allclose(h.grad(), k));
  CHECK_FALSE(k.grad().defined());  // not retained: like PyTorch, .grad of a non-leaf stays empty
  REQUIRE(y.grad().defined());
  CHECK(y.grad().item<float>() == 1.0f);
}

TEST_CASE("NoGradGuard: records nothing and keeps no memory for backward") {
  kd::Tensor x = leaf({256});
  CHECK(kd::is_grad_enabled());
  {
    kd::NoGradGuard no_grad;
    CHECK_FALSE(kd::is_grad_enabled());
    kd::Tensor y = (x * 2).exp();
    CHECK_FALSE(y.requires_grad());
    CHECK(y.grad_fn() == nullptr);
    {
      kd::EnableGradGuard enable;
      CHECK((x * 2).requires_grad());
    }
    CHECK_FALSE((x * 2).requires_grad());
  }
  CHECK(kd::is_grad_enabled());
  // Memory: with grad mode on, intermediates saved for backward stay alive; under no_grad they don't.
  const std::size_t base = kd::memory::allocated_bytes();
  kd::Tensor with_graph = ((x * 2).exp() * 3).tanh();
  const std::size_t kept_with_grad = kd::memory::allocated_bytes() - base;
  with_graph = kd::Tensor();
  CHECK(kd::memory::allocated_bytes() == base);
  kd::Tensor without;
  {
    kd::NoGradGuard no_grad;
    without = ((x * 2).exp() * 3).tanh();
  }
  const std::size_t kept_without = kd::memory::allocated_bytes() - base;
  CHECK(kept_without == without.nbytes());
  CHECK(kept_with_grad > kept_without);
}

TEST_CASE("NoGradGuard: grad mode is per thread", "[threads]") {
  kd::NoGradGuard no_grad;
  bool other_thread_enabled = false;
  std::thread t([&] { other_thread_enabled = kd::is_grad_enabled(); });
  t.join();
  CHECK(other_thread_enabled);
  CHECK_FALSE(kd::is_grad_enabled());
}

TEST_CASE("detach: same storage, cut from the graph") {
  kd::Tensor x = leaf({3});
  kd::Tensor y = x * 2;
  kd::Tensor d = y.detach();
  CHECK(d.shares_storage(y));
  CHECK_FALSE(d.requires_grad());
  CHECK(d.grad_fn() == nullptr);
  CHECK(d.is_leaf());
  CHECK_FALSE((d * 3).requires_grad());
  // Gradient does not flow through a detached branch.
  (y * d).sum().backward();
  CHECK(kd::allclose(x.grad(), d * 2));
}

TEST_CASE("in-place: refused on a leaf that requires grad, allowed under NoGradGuard") {
  kd::Tensor w = leaf({3});
  CHECK_THROWS_AS(w.add_(1.0), kd::AutogradError);
  CHECK_THROWS_WITH(w.mul_(2.0), Contains("mul_") && Contains("leaf") && Contains("NoGradGuard"));
  CHECK_THROWS_AS(w += 1.0, kd::AutogradError);
  kd::Tensor before = w.detach().clone();
  {
    kd::NoGradGuard no_grad;
    w -= 0.5;  // what an optimizer step does
  }
  CHECK(kd::allclose(w, before - 0.5));
  CHECK(w.requires_grad());
  CHECK(w.is_leaf());
}

TEST_CASE("print: shows grad_fn and requires_grad like PyTorch") {
  kd::Tensor x = leaf({2});
  std::ostringstream a, b;
  a << x * 2;
  b << x;
  CHECK_THAT(a.str(), Contains("grad_fn=<MulBackward0>"));
  CHECK_THAT(b.str(), Contains("requires_grad=True"));
}

namespace {
// Runs `fn` on a thread with a small stack: any recursion per node would overflow it.
void run_with_small_stack(void (*fn)(), std::size_t stack_bytes) {
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, stack_bytes);
  pthread_t thread;
  auto trampoline = [](void* f) -> void* {
    reinterpret_cast<void (*)()>(f)();
    return nullptr;
  };
  REQUIRE(pthread_create(&thread, &attr, trampoline, reinterpret_cast<void*>(fn)) == 0);
  pthread_join(thread, nullptr);
  pthread_attr_destroy(&attr);
}
bool g_chain_ok = false;
}  // namespace

TEST_CASE("engine: a chain of 10,000 ops runs and frees iteratively (256 KiB stack)", "[threads]") {
  g_chain_ok = false;
  run_with_small_stack(
      [] {
        kd::Tensor x = kd::ones({2}).requires_grad_();
        kd::Tensor y = x;
        for (int i = 0; i < 10000; ++i) y = y * 1.0001;
        y.sum().backward();
        y = kd::Tensor();  // drops 10,000 nodes
        // d/dx of x * 1.0001^10000, computed without autograd.
        kd::Tensor expected = kd::full({2}, 1.0);
        for (int i = 0; i < 10000; ++i) expected = expected * 1.0001;
        g_chain_ok = kd::allclose(x.grad(), expected, 1e-4, 1e-5);
      },
      256 * 1024);
  CHECK(g_chain_ok);
}

TEST_CASE("memory: the graph and its saved tensors are freed when the output dies") {
  kd::Tensor x = leaf({1000});
  kd::Tensor w = leaf({1000});
  const std::size_t base = kd::memory::allocated_bytes();
  {
    kd::Tensor loss = ((x * w).tanh().exp() * x).sum();
    CHECK(kd::memory::allocated_bytes() > base);
  }
  CHECK(kd::memory::allocated_bytes() == base);
  // After backward without retain_graph, the saved tensors are released even while the output lives.
  kd::Tensor loss = ((x * w).tanh().exp() * x).sum();
  loss.backward();
  const std::size_t grads = x.grad().nbytes() + w.grad().nbytes();
  CHECK(kd::memory::allocated_bytes() == base + grads + loss.nbytes());
  loss = kd::Tensor();
  CHECK(kd::memory::allocated_bytes() == base + grads);
}

TEST_CASE("engine: a 10,000-op graph that never ran backward is freed iteratively (256 KiB stack)") {
  g_chain_ok = false;
  const std::size_t base = kd::memory::allocated_bytes();
  run_with_small_stack(
      [] {
        kd::Tensor w = kd::ones({2}).requires_grad_();
        kd::Tensor y = w;
        for (int i = 0; i < 10000; ++i) y = (i % 2 == 0) ? y * w : y.tanh();  // saves inputs and outputs
        y = kd::Tensor();
        g_chain_ok = true;
      },
      256 * 1024);
  CHECK(g_chain_ok);
  CHECK(kd::memory::allocated_bytes() == base);
}

TEST_CASE("index: x[...] is a new view with its own autograd identity (AliasBackward0), issue 18") {
  kd::Tensor x = leaf({2, 3});
  kd::Tensor y = x.index({kd::indexing::Ellipsis});
  CHECK_FALSE(y.is_same(x));
  CHECK_FALSE(y.is_leaf());
  REQUIRE(y.grad_fn() != nullptr);
  CHECK(std::string(y.grad_fn()->name()) == "AliasBackward0");
  y.retain_grad();
  (y * 3).sum().backward();
  REQUIRE(y.grad().defined());
  REQUIRE(x.grad().defined());
  CHECK_FALSE(y.grad().is_same(x.grad()));  // each keeps its own .grad
  CHECK(kd::allclose(y.grad(), x.grad()));  // the alias passes the gradient through unchanged
}

TEST_CASE("backward: empty tensors accumulate gradients like any other, issue 18") {
  // The gradient of x.sum() is an expanded (stride-0) empty tensor; the second backward adds into
  // .grad in place, which must not count as "several elements in one memory location".
  kd::Tensor x = leaf({0, 4});
  CHECK_NOTHROW(x.sum().backward());
  CHECK_NOTHROW(x.sum().backward());
  REQUIRE(x.grad().defined());
  CHECK(x.grad().shape() == kd::Shape{0, 4});
  kd::Tensor e = kd::zeros({1, 0, 4}).expand({3, 0, 4});
  CHECK_NOTHROW(e.add_(1));
}
