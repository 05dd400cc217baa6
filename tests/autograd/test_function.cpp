// autograd::Function -- the one way to write a backward -- and the registry that connects chapter 1's
// ops to their Functions. Gradient values are checked with gradcheck (finite differences).
#include <catch2/catch.hpp>
#include <cmath>
#include <kindling/autograd.hpp>
#include <kindling/autograd/function.hpp>

#include "autograd/registry.hpp"

namespace kd = kindling;
namespace ag = kindling::autograd;
using Catch::Matchers::Contains;

namespace {

// The example of function.hpp: y = e^x, saving the output.
struct Exp : ag::Function<Exp> {
  kd::Tensor forward(ag::Context& ctx, const kd::Tensor& x) {
    kd::Tensor y = x.exp();
    ctx.save_for_backward({y});
    return y;
  }
  ag::Grads backward(ag::Context& ctx, const ag::Grads& grad) { return {grad[0] * ctx.saved(0)}; }
};

// Two tensor inputs and a non-tensor argument; records which gradients backward was asked for.
struct ScaledMul : ag::Function<ScaledMul> {
  static constexpr const char* name = "ScaledMulBackward0";
  double scale = 1;
  static inline int calls = 0;
  static inline bool wanted[2] = {false, false};
  kd::Tensor forward(ag::Context& ctx, const kd::Tensor& a, const kd::Tensor& b, double s) {
    scale = s;
    ctx.save_for_backward({a, b});
    return a * b * s;
  }
  ag::Grads backward(ag::Context& ctx, const ag::Grads& grad) {
    ++calls;
    wanted[0] = ctx.needs_input_grad(0);
    wanted[1] = ctx.needs_input_grad(1);
    // Written for the broadcast shape: the engine sums each gradient back to its input's shape.
    return {wanted[0] ? grad[0] * ctx.saved(1) * scale : kd::Tensor(),
            wanted[1] ? grad[0] * ctx.saved(0) * scale : kd::Tensor()};
  }
};

// Two outputs: (x * 2, x.sum()).
struct Split : ag::Function<Split> {
  std::pair<kd::Tensor, kd::Tensor> forward(ag::Context&, const kd::Tensor& x) { return {x * 2, x.sum()}; }
  ag::Grads backward(ag::Context&, const ag::Grads& grad) {
    // grad[1] is 0-d; an output that got no gradient arrives as zeros (materialized).
    return {grad[0] * 2 + grad[1]};
  }
};

// A Function that returns its input unchanged.
struct Identity : ag::Function<Identity> {
  kd::Tensor forward(ag::Context&, const kd::Tensor& x) { return x; }
  ag::Grads backward(ag::Context&, const ag::Grads& grad) { return {grad[0]}; }
};

// A wrong backward: the gradient has a shape the input could not have been broadcast to.
struct BadShape : ag::Function<BadShape> {
  kd::Tensor forward(ag::Context&, const kd::Tensor& x) { return x.clone(); }
  ag::Grads backward(ag::Context&, const ag::Grads&) { return {kd::ones({7})}; }
};

// A kernel-style backward that cannot be differentiated again.
struct Kernel : ag::Function<Kernel> {
  static constexpr bool once_differentiable = true;
  kd::Tensor forward(ag::Context& ctx, const kd::Tensor& x) {
    ctx.save_for_backward({x});
    return x * x;
  }
  ag::Grads backward(ag::Context& ctx, const ag::Grads& grad) {
    kd::NoGradGuard no_grad;  // what a raw kernel amounts to: no graph for the result
    return {grad[0] * ctx.saved(0) * 2};
  }
};

// Indices passed to forward without becoming an input of the graph.
struct Gather : ag::Function<Gather> {
  kd::Shape shape;
  kd::Tensor forward(ag::Context& ctx, const kd::Tensor& x, const ag::NonDifferentiable& idx) {
    shape = x.shape();
    ctx.save_for_backward({idx.tensor});
    return x.index({idx.tensor.item<std::int64_t>()}).clone();
  }
  ag::Grads backward(ag::Context& ctx, const ag::Grads& grad) {
    kd::Tensor g = kd::zeros(shape);
    kd::NoGradGuard no_grad;
    g[ctx.saved(0).item<std::int64_t>()].copy_(grad[0]);
    return {g};
  }
};

}  // namespace

TEST_CASE("Function: a custom op joins the graph, named <Struct>Backward") {
  kd::Tensor x = kd::randn({3}, {.dtype = kd::kFloat64}).requires_grad_();
  kd::Tensor y = Exp::apply(x);
  REQUIRE(y.grad_fn() != nullptr);
  CHECK(std::string(y.grad_fn()->name()) == "ExpBackward");
  CHECK(y.grad_fn()->next_functions().size() == 1);
  CHECK(kd::allclose(y, x.exp()));
  y.sum().backward();
  CHECK(kd::allclose(x.grad(), x.exp()));
  // The node saved y itself (an output): kept without its autograd meta, no reference cycle.
  CHECK(y.grad_fn()->saved_tensors().empty());  // freed by backward (no retain_graph)
  auto r = ag::gradcheck([](const std::vector<kd::Tensor>& in) { return Exp::apply(in[0]); },
                         {kd::randn({2, 3}, {.dtype = kd::kFloat64}).requires_grad_()});
  CHECK(r.ok);
}

TEST_CASE("Function: no input requires grad -> no node, and forward runs without grad mode") {
  kd::Tensor x = kd::randn({3});
  kd::Tensor y = Exp::apply(x);
  CHECK(y.grad_fn() == nullptr);
  CHECK_FALSE(y.requires_grad());
  kd::Tensor w = kd::randn({3}).requires_grad_();
  {
    kd::NoGradGuard no_grad;
    CHECK_FALSE(Exp::apply(w).requires_grad());
  }
}

TEST_CASE("Function: needs_input_grad, broadcast gradients reduced by the engine, named node") {
  kd::Tensor a = kd::randn({2, 3}, {.dtype = kd::kFloat64}).requires_grad_();
  kd::Tensor b = kd::randn({3}, {.dtype = kd::kFloat64});  // broadcast, no grad
  ScaledMul::calls = 0;
  kd::Tensor y = ScaledMul::apply(a, b, 2.0);
  CHECK(std::string(y.grad_fn()->name()) == "ScaledMulBackward0");
  REQUIRE(y.grad_fn()->next_functions().size() == 2);
  CHECK_FALSE(y.grad_fn()->next_functions()[1].is_valid());
  y.sum().backward();
  CHECK(ScaledMul::calls == 1);
  CHECK(ScaledMul::wanted[0]);
  CHECK_FALSE(ScaledMul::wanted[1]);
  CHECK(kd::allclose(a.grad(), (b * 2.0).expand({2, 3})));

  // Now the broadcast input wants its gradient: the [2, 3] formula result is summed to [3].
  b.requires_grad_();
  auto r = ag::gradcheck(
      [](const std::vector<kd::Tensor>& in) { return ScaledMul::apply(in[0], in[1], 0.5); },
      {kd::randn({2, 3}, {.dtype = kd::kFloat64}).requires_grad_(),
       kd::randn({3}, {.dtype = kd::kFloat64}).requires_grad_()});
  CHECK(r.ok);
}

TEST_CASE("Function: several outputs, and an output without a gradient gets zeros") {
  kd::Tensor x = kd::randn({4}, {.dtype = kd::kFloat64}).requires_grad_();
  auto [twice, total] = Split::apply(x);
  CHECK(twice.grad_fn() == total.grad_fn());
  CHECK(twice.grad_fn()->num_outputs() == 2);
  twice.sum().backward();  // only output 0 reaches the node
  CHECK(kd::allclose(x.grad(), kd::full({4}, 2.0, {.dtype = kd::kFloat64})));
  auto r = ag::gradcheck(
      [](const std::vector<kd::Tensor>& in) -> std::vector<kd::Tensor> {
        auto [p, q] = Split::apply(in[0]);
        return {p, q};
      },
      {kd::randn({3}, {.dtype = kd::kFloat64}).requires_grad_()});
  CHECK(r.ok);
}

TEST_CASE("Function: returning an input unchanged still gives a new node") {
  kd::Tensor x = kd::randn({3}).requires_grad_();
  kd::Tensor y = Identity::apply(x);
  CHECK_FALSE(y.is_same(x));
  CHECK(y.shares_storage(x));
  REQUIRE(y.grad_fn() != nullptr);
  CHECK(x.is_leaf());
  (y * 3).sum().backward();
  CHECK(kd::allclose(x.grad(), kd::full({3}, 3.0)));
}

TEST_CASE("Function: the engine refuses a gradient of an impossible shape, naming the node") {
  kd::Tensor x = kd::randn({2, 3}).requires_grad_();
  CHECK_THROWS_WITH(BadShape::apply(x).sum().backward(),
                    Contains("BadShapeBackward") && Contains("invalid gradient at index 0") && Contains("[7]") &&
                        Contains("[2, 3]"));
}

TEST_CASE("Function: saved tensors are version-checked, differentiable or not") {
  kd::Tensor a = kd::randn({3}).requires_grad_();
  kd::Tensor b = kd::randn({3});
  kd::Tensor y = ScaledMul::apply(a, b, 1.0);
  b.mul_(2);  // modified after it was saved
  CHECK_THROWS_WITH(y.sum().backward(), Contains("modified by an inplace operation") && Contains("ScaledMulBackward0"));

  kd::Tensor x = kd::randn({4}).requires_grad_();
  kd::Tensor idx = kd::tensor<std::int64_t>({2}, {});
  kd::Tensor picked = Gather::apply(x, ag::NonDifferentiable{idx});
  CHECK(picked.grad_fn()->next_functions().size() == 1);  // the indices are not an input of the graph
  idx.fill_(1);
  CHECK_THROWS_WITH(picked.backward(), Contains("modified by an inplace operation"));
}

TEST_CASE("Function: once_differentiable refuses a double backward instead of returning zeros") {
  kd::Tensor x = kd::randn({3}, {.dtype = kd::kFloat64}).requires_grad_();
  kd::Tensor g = ag::grad({Kernel::apply(x).sum()}, {x}, {}, {.create_graph = true})[0];
  CHECK(kd::allclose(g, x * 2));
  REQUIRE(g.requires_grad());
  CHECK_THROWS_WITH(g.sum().backward(), Contains("KernelBackward is not differentiable twice"));
  // Without create_graph nothing changes.
  kd::Tensor g1 = ag::grad({Kernel::apply(x).sum()}, {x})[0];
  CHECK_FALSE(g1.requires_grad());
}

TEST_CASE("create_graph: second derivatives through the library's own Functions") {
  kd::Tensor x = kd::randn({5}, {.dtype = kd::kFloat64}).requires_grad_();
  // d/dx tanh(x) = 1 - tanh², d²/dx² = -2 tanh (1 - tanh²)
  kd::Tensor g = ag::grad({x.tanh().sum()}, {x}, {}, {.create_graph = true})[0];
  kd::Tensor h = ag::grad({g.sum()}, {x})[0];
  const kd::Tensor t = x.detach().tanh();
  CHECK(kd::allclose(h, -2.0 * t * (1.0 - t * t)));
  // backward(create_graph) leaves a .grad with history, whose own gradient is the second derivative.
  kd::Tensor w = kd::randn({3}, {.dtype = kd::kFloat64}).requires_grad_();
  w.pow(3).sum().backward({}, std::nullopt, /*create_graph=*/true);
  REQUIRE(w.grad().requires_grad());
  kd::Tensor gw = w.grad();
  w.set_grad(kd::Tensor());
  gw.sum().backward();
  CHECK(kd::allclose(w.grad(), 6.0 * w.detach()));
}

TEST_CASE("registry: every op chapter 1 records has a backward with the same arguments") {
  const auto& sites = kd::detail::record_sites();
  REQUIRE(sites.size() >= 40);  // every record<"...">() call site of the library, collected at start-up
  std::vector<std::string> problems;
  for (const auto& site : sites) {
    const ag::OpRow* row = ag::registry().find(site.key);
    if (row == nullptr) {
      problems.push_back(std::string(site.key) + ": no backward registered");
    } else if (row->signature != site.signature) {
      problems.push_back(std::string(site.key) + ": records " + std::string(site.signature_name) +
                         " but setup_context takes " + std::string(row->signature_name));
    }
  }
  for (const auto* row : ag::registry().rows()) {
    bool used = false;
    for (const auto& site : sites) used = used || std::string_view(site.key) == row->key;
    if (!used) problems.push_back(std::string(row->key) + ": registered but never recorded");
  }
  INFO([&] {
    std::string all;
    for (const auto& p : problems) all += p + "\n";
    return all;
  }());
  CHECK(problems.empty());
}

TEST_CASE("copy_ and index_put_ refuse a value that requires grad instead of silently dropping its gradient") {
  // PyTorch records y.copy_(w * 2) (CopyBackwards); Kindling records no in-place write, so it refuses,
  // as add_ does: before, w's gradient through y was silently lost.
  kd::Tensor w = kd::tensor({1.0, 2.0, 3.0}).requires_grad_();
  kd::Tensor y = kd::zeros({3}, {.dtype = kd::kFloat64});
  CHECK_THROWS_WITH(y.copy_(w * 2), Contains("copy_") && Contains("requires grad") && Contains("clone"));
  CHECK_THROWS_AS(y.index_put_({kd::indexing::Slice(0, 2)}, (w * 2).slice(0, 0, 2)), kd::AutogradError);
  CHECK_THROWS_AS(y.index_put_({kd::tensor({0, 2})}, (w * 2).slice(0, 0, 2)), kd::AutogradError);
  CHECK_THROWS_AS(y.index_put_({y < 1.0}, (w * 2).sum()), kd::AutogradError);
  CHECK(kd::allclose(y, kd::zeros({3}, {.dtype = kd::kFloat64})));  // nothing was written
  {
    kd::NoGradGuard no_grad;  // no gradient should flow: allowed
    y.copy_(w * 2);
    y.index_put_({kd::indexing::Slice(0, 1)}, w.slice(0, 2, 3));
  }
  CHECK(y.to_vector<double>() == std::vector<double>{3, 4, 6});
  CHECK_FALSE(y.requires_grad());
}

TEST_CASE("register_hook: a hook that changes the gradient's dtype is refused, as PyTorch refuses it") {
  // PyTorch: "hook '<lambda>' has changed the type of value (was torch.DoubleTensor got torch.FloatTensor)".
  kd::Tensor x = kd::ones({2}, {.dtype = kd::kFloat64}).requires_grad_();
  x.register_hook([](const kd::Tensor& g) { return g.to(kd::kFloat32); });
  CHECK_THROWS_WITH((x * 2).sum().backward(), Contains("changed the type") && Contains("float32"));
  kd::Tensor y = kd::ones({2}).requires_grad_();
  kd::Tensor h = y * 2;
  h.register_hook([](const kd::Tensor& g) { return g.to(kd::kFloat64) * 3; });
  CHECK_THROWS_AS(h.sum().backward(), kd::AutogradError);
  kd::Tensor z = kd::ones({2}).requires_grad_();
  kd::Tensor hz = z * 2;
  hz.register_hook([](const kd::Tensor& g) { return g * 3; });  // same dtype: fine
  hz.sum().backward();
  CHECK(z.grad().to_vector<float>() == std::vector<float>{6, 6});
}

TEST_CASE("autograd::grad runs only the branches that lead to the requested inputs, as PyTorch does") {
  // torch.autograd.grad(y, [w]) computes nothing towards x: x's and h's hooks are not called (PyTorch's
  // exec_info), and the graph stays usable for that branch (its saved tensors were not released).
  std::vector<std::string> calls;
  kd::Tensor x = kd::ones({3}).requires_grad_();
  kd::Tensor w = kd::full({3}, 2.0).requires_grad_();
  x.register_hook([&](const kd::Tensor&) { calls.push_back("x"); return kd::Tensor(); });
  kd::Tensor h = x.exp();
  h.register_hook([&](const kd::Tensor&) { calls.push_back("h"); return kd::Tensor(); });
  kd::Tensor y = (h * w).sum() + (w * w).sum();
  const kd::Tensor gw = kd::autograd::grad({y}, {w}, {}, {.retain_graph = true})[0];
  CHECK(kd::allclose(gw, h.detach() + 2.0 * w.detach()));  // h + 2w
  CHECK(calls.empty());
  CHECK_FALSE(x.grad().defined());
  y.backward();  // the whole graph: now both hooks run
  CHECK(calls == std::vector<std::string>{"h", "x"});
  CHECK(kd::allclose(x.grad(), h.detach() * 2.0));
}
