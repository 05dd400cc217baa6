// Optimizers: argument errors, zero_grad, parameter groups, and state_dict round trips (an optimizer
// restored from a state dict must continue exactly like the one that was never interrupted).
#include <catch2/catch.hpp>
#include <kindling/train.hpp>

namespace kd = kindling;
namespace optim = kindling::optim;
using Catch::Contains;

namespace {

// Two parameters and a fixed sequence of gradients, drawn from a seeded generator.
struct Problem {
  kd::Tensor w, b;
  std::vector<kd::Tensor> gw, gb;
  explicit Problem(int steps, kd::DType dtype = kd::kFloat32) {
    kd::Generator gen(42);
    w = kd::randn({4, 3}, {.dtype = dtype}, &gen).requires_grad_();
    b = kd::randn({3}, {.dtype = dtype}, &gen).requires_grad_();
    for (int k = 0; k < steps; ++k) {
      gw.push_back(kd::randn({4, 3}, {.dtype = dtype}, &gen));
      gb.push_back(kd::randn({3}, {.dtype = dtype}, &gen));
    }
  }
  void feed(int k) {
    w.set_grad(gw[k].clone());
    b.set_grad(gb[k].clone());
  }
};

template <class T>
std::vector<T> values(const kd::Tensor& t) {
  return t.detach().contiguous().to_vector<T>();
}

// Runs `steps` steps straight, and `k` steps + state_dict → fresh optimizer → the rest; the
// parameters must agree to the last bit.
template <class Make>
void check_resume(Make make, int steps = 10, int k = 4) {
  Problem straight(steps), resumed(steps);
  auto opt = make(std::vector<kd::Tensor>{straight.w, straight.b});
  for (int s = 0; s < steps; ++s) {
    opt.zero_grad();
    straight.feed(s);
    opt.step();
  }
  optim::OptimizerState saved;
  {
    auto first = make(std::vector<kd::Tensor>{resumed.w, resumed.b});
    for (int s = 0; s < k; ++s) {
      first.zero_grad();
      resumed.feed(s);
      first.step();
    }
    saved = first.state_dict();
  }
  auto second = make(std::vector<kd::Tensor>{resumed.w, resumed.b});
  second.load_state_dict(saved);
  for (int s = k; s < steps; ++s) {
    second.zero_grad();
    resumed.feed(s);
    second.step();
  }
  CHECK(values<float>(straight.w) == values<float>(resumed.w));
  CHECK(values<float>(straight.b) == values<float>(resumed.b));
}

}  // namespace

TEST_CASE("optim: an empty parameter list is refused with a hint") {
  CHECK_THROWS_WITH(optim::SGD({}, {.lr = 0.1}), Contains("empty parameter list") && Contains("model.parameters()"));
  CHECK_THROWS_AS(optim::Adam({}), kd::ValueError);
}

TEST_CASE("optim: parameters must be float leaves that require grad") {
  kd::Tensor no_grad = kd::zeros({3});
  CHECK_THROWS_WITH(optim::Adam({no_grad}), Contains("not a leaf tensor that requires grad"));
  kd::Tensor leaf = kd::zeros({3}).requires_grad_();
  kd::Tensor non_leaf = leaf * 2;
  CHECK_THROWS_WITH(optim::SGD({non_leaf}, {.lr = 0.1}), Contains("shape [3]"));
  kd::Tensor ints = kd::zeros({3}, {.dtype = kd::kInt64});
  CHECK_THROWS_AS(optim::SGD({ints}, {.lr = 0.1}), kd::DTypeError);
}

TEST_CASE("optim: invalid options name the optimizer and the value") {
  kd::Tensor p = kd::zeros({2}).requires_grad_();
  CHECK_THROWS_WITH(optim::SGD({p}, {.lr = -1}), Contains("SGD") && Contains("learning rate"));
  CHECK_THROWS_WITH(optim::SGD({p}, {.lr = 0.1, .nesterov = true}), Contains("Nesterov"));
  CHECK_THROWS_WITH(optim::Adam({p}, {.betas = {0.9, 1.0}}), Contains("Adam") && Contains("betas"));
  CHECK_THROWS_WITH(optim::AdamW({p}, {.lr = -0.5}), Contains("AdamW"));
  CHECK_THROWS_WITH(optim::Adam({p}, {.eps = -1}), Contains("Invalid epsilon value: -1"));
  // PyTorch's checks, with PyTorch's wording (issue 18).
  CHECK_THROWS_WITH(optim::SGD({p}, {.lr = 0.1, .momentum = -1}), Contains("SGD: Invalid momentum value: -1"));
  CHECK_THROWS_WITH(optim::SGD({p}, {.lr = 0.1, .weight_decay = -1}), Contains("Invalid weight_decay value: -1"));
  CHECK_THROWS_WITH(optim::Adam({p}, {.weight_decay = -1}), Contains("Adam: Invalid weight_decay value"));
  CHECK_THROWS_WITH(optim::AdamW({p}, {.weight_decay = -1}), Contains("AdamW: Invalid weight_decay value"));
  CHECK_THROWS_WITH(optim::Adam({p}, {.betas = {1.0, 0.9}}), Contains("Invalid beta parameter at index 0"));
  CHECK_THROWS_WITH(optim::Adam({p}, {.betas = {0.9, -0.1}}), Contains("Invalid beta parameter at index 1"));
  CHECK_THROWS_WITH(optim::SGD({p}, {.lr = 0.1, .momentum = 0.9, .dampening = 0.1, .nesterov = true}),
                    Contains("Nesterov"));
  CHECK_NOTHROW(optim::SGD({p}, {.lr = 0}));
  CHECK_NOTHROW(optim::Adam({p}, {.betas = {0, 0}, .eps = 0}));
}

TEST_CASE("optim: zero_grad zeroes in place, set_to_none drops the gradient") {
  kd::Tensor p = kd::ones({3}).requires_grad_();
  optim::SGD opt({p}, {.lr = 0.1});
  (p * 2).sum().backward();
  kd::Tensor g = p.grad();
  opt.zero_grad();
  REQUIRE(p.grad().defined());
  CHECK(p.grad().is_same(g));  // same tensor, now zeros
  CHECK(values<float>(g) == std::vector<float>{0, 0, 0});
  opt.zero_grad(true);
  CHECK_FALSE(p.grad().defined());
}

// After zero_grad (in place) the next backward writes .grad instead of adding it to the zeros, or
// makes the new gradient .grad when nobody else holds the zeros (autograd/node.cpp). Every case
// compares with the gradient the same backward gives into an undefined .grad (the first-gradient
// path, unchanged), bit for bit: writing g is 0 + g.
namespace {
kd::Tensor fresh_grad(kd::Tensor& p, const std::function<void()>& backward) {
  p.set_grad(kd::Tensor());
  backward();
  kd::Tensor g = p.grad().clone();
  p.set_grad(kd::Tensor());
  return g;
}
struct Quadratic {  // loss = sum(c * p * p): .grad = 2 c p
  kd::Tensor p = kd::randn({4, 3}).requires_grad_();
  kd::Tensor c = kd::randn({4, 3});
  kd::Tensor loss() const { return (c * p * p).sum(); }
};
}  // namespace

TEST_CASE("optim: after zero_grad the next backward writes .grad and the one after adds") {
  Quadratic q;
  const kd::Tensor g = fresh_grad(q.p, [&] { q.loss().backward(); });
  optim::SGD opt({q.p}, {.lr = 0.1});
  q.loss().backward();
  q.loss().backward();  // .grad = 2g, so zero_grad has something to clear
  opt.zero_grad();
  q.loss().backward();
  CHECK(kd::equal(q.p.grad(), g));
  q.loss().backward();  // no zero_grad in between: added
  CHECK(kd::equal(q.p.grad(), g + g));
  // Module::zero_grad takes the same path.
  kd::nn::Linear lin(3, 2);
  const kd::Tensor x = kd::randn({5, 3});
  auto run = [&] { lin(x).pow(2).sum().backward(); };
  const kd::Tensor gw = fresh_grad(lin.weight, run);
  lin.bias.set_grad(kd::Tensor());
  run();
  lin.zero_grad();
  run();
  CHECK(kd::equal(lin.weight.grad(), gw));
  run();
  CHECK(kd::equal(lin.weight.grad(), gw + gw));
}

TEST_CASE("optim: after zero_grad a held .grad and its views see the new gradient") {
  Quadratic q;
  const kd::Tensor g = fresh_grad(q.p, [&] { q.loss().backward(); });
  optim::Adam opt({q.p});
  q.loss().backward();
  const kd::Tensor held = q.p.grad();
  const kd::Tensor row = held.select(0, 1);
  opt.zero_grad();
  q.loss().backward();
  CHECK(q.p.grad().is_same(held));  // the same tensor, written in place (as PyTorch adds in place)
  CHECK(kd::equal(held, g));
  CHECK(kd::equal(row, g.select(0, 1)));
}

TEST_CASE("optim: a write into .grad after zero_grad is kept by the next backward") {
  Quadratic q;
  const kd::Tensor g = fresh_grad(q.p, [&] { q.loss().backward(); });
  optim::SGD opt({q.p}, {.lr = 0.1});
  q.loss().backward();
  opt.zero_grad();
  q.p.grad().add_(1.5);  // no handle kept: the write itself must keep .grad from being replaced
  q.loss().backward();
  CHECK(kd::equal(q.p.grad(), g + 1.5));
}

TEST_CASE("optim: a .grad nobody holds reads as zeros after zero_grad, until set_grad or backward") {
  Quadratic q;
  const kd::Tensor g = fresh_grad(q.p, [&] { q.loss().backward(); });
  optim::Adam opt({q.p});
  q.loss().backward();
  opt.zero_grad();
  opt.zero_grad();  // twice: still zeros
  REQUIRE(q.p.grad().defined());
  CHECK(q.p.grad().shape() == q.p.shape());
  CHECK(q.p.grad().dtype() == q.p.dtype());
  CHECK(kd::equal(q.p.grad(), kd::zeros({4, 3})));
  q.loss().backward();
  CHECK(kd::equal(q.p.grad(), g));
  opt.zero_grad();
  q.p.set_grad(kd::Tensor());  // undefined now, not zeros
  CHECK_FALSE(q.p.grad().defined());
  q.loss().backward();
  CHECK(kd::equal(q.p.grad(), g));
}

TEST_CASE("optim: a step after zero_grad without backward uses zero gradients") {
  // Adam still moves a parameter whose gradient is zero (its running averages do): zero_grad's zeros
  // must be there for step even when zero_grad did not write them.
  Quadratic a, b;
  b.p.detach().copy_(a.p.detach());
  b.c = a.c;
  optim::Adam opt_a({a.p}), opt_b({b.p});
  a.loss().backward();
  b.loss().backward();
  opt_a.step();
  opt_b.step();
  opt_a.zero_grad();             // nobody holds a.p's .grad
  b.p.set_grad(kd::zeros({4, 3}));  // explicit zeros
  opt_a.step();
  opt_b.step();
  CHECK(kd::equal(a.p.detach(), b.p.detach()));
}

TEST_CASE("optim: after zero_grad retain_graph, hooks and create_graph accumulate as without it") {
  Quadratic q;
  optim::SGD opt({q.p}, {.lr = 0.1});
  SECTION("retain_graph: the second backward of the same graph adds") {
    const kd::Tensor g = fresh_grad(q.p, [&] { q.loss().backward(); });
    q.loss().backward();
    opt.zero_grad();
    kd::Tensor y = q.loss();
    y.backward({}, /*retain_graph=*/true);
    CHECK(kd::equal(q.p.grad(), g));
    y.backward();
    CHECK(kd::equal(q.p.grad(), g + g));
  }
  SECTION("a hook's result is what is written") {
    auto handle = q.p.register_hook([](const kd::Tensor& grad) { return grad * 3; });
    const kd::Tensor g = fresh_grad(q.p, [&] { q.loss().backward(); });
    q.loss().backward();
    opt.zero_grad();
    q.loss().backward();
    CHECK(kd::equal(q.p.grad(), g));
    q.loss().backward();
    CHECK(kd::equal(q.p.grad(), g + g));
    handle.remove();
  }
  SECTION("create_graph: .grad is 0 + g, with a history") {
    const kd::Tensor g = fresh_grad(q.p, [&] { q.loss().backward(); });
    q.loss().backward();
    opt.zero_grad();
    q.loss().backward({}, std::nullopt, /*create_graph=*/true);
    CHECK(q.p.grad().requires_grad());
    CHECK(kd::equal(q.p.grad().detach(), g));
    // d/dp sum(.grad) = d/dp sum(2 c p) = 2 c
    const kd::Tensor second = kd::autograd::grad({q.p.grad().sum()}, {q.p})[0];
    CHECK(kd::allclose(second, q.c * 2));
    // The same node as when zero_grad zeroed a .grad someone held (zeros + g, as PyTorch adds).
    const std::string dropped_fn = q.p.grad().grad_fn()->name();
    opt.zero_grad(true);
    q.loss().backward();
    const kd::Tensor held = q.p.grad();
    opt.zero_grad();
    q.loss().backward({}, std::nullopt, /*create_graph=*/true);
    CHECK(dropped_fn == q.p.grad().grad_fn()->name());
    // .grad's graph leads back to p itself (a cycle, as in PyTorch): drop it, or the test leaks.
    q.p.set_grad(kd::Tensor());
  }
}

TEST_CASE("optim: after zero_grad a non-contiguous .grad stays itself and gets the new gradient") {
  Quadratic q;
  const kd::Tensor g = fresh_grad(q.p, [&] { q.loss().backward(); });
  optim::SGD opt({q.p}, {.lr = 0.1});
  q.p.set_grad(kd::zeros({3, 4}).t());  // a transposed (column-major) .grad
  q.loss().backward();
  opt.zero_grad();
  q.loss().backward();
  CHECK_FALSE(q.p.grad().is_contiguous());
  CHECK(kd::equal(q.p.grad(), g));
}

TEST_CASE("optim: after zero_grad leaves sharing one incoming gradient get independent .grad tensors") {
  // AddBackward0 hands the same tensor to both inputs: neither may become the other's .grad.
  kd::Tensor a = kd::randn({3}).requires_grad_(), b = kd::randn({3}).requires_grad_();
  optim::SGD opt({a, b}, {.lr = 0.1});
  (a + b).backward(kd::ones({3}));
  opt.zero_grad();
  (a + b).backward(kd::ones({3}));
  CHECK_FALSE(a.grad().shares_storage(b.grad()));
  (a * 3).sum().backward();
  CHECK(kd::equal(b.grad(), kd::ones({3})));
  CHECK(kd::equal(a.grad(), kd::full({3}, 4.0)));
}

TEST_CASE("optim: step skips parameters without a gradient and bumps the version of updated ones") {
  kd::Tensor a = kd::ones({2}).requires_grad_(), b = kd::ones({2}).requires_grad_();
  optim::Adam opt({a, b});
  (a * 3).sum().backward();
  const auto version_b = b.storage()->version();
  const auto version_a = a.storage()->version();
  opt.step();
  CHECK(values<float>(b) == std::vector<float>{1, 1});
  CHECK(b.storage()->version() == version_b);
  CHECK(a.storage()->version() > version_a);
  CHECK(values<float>(a)[0] < 1.0f);
}

TEST_CASE("optim: parameter groups keep their own learning rates") {
  kd::Tensor a = kd::ones({2}).requires_grad_(), b = kd::ones({2}).requires_grad_();
  optim::SGD opt({a}, {.lr = 0.1});
  opt.add_param_group({b}, {.lr = 1.0});
  REQUIRE(opt.num_param_groups() == 2);
  a.set_grad(kd::ones({2}));
  b.set_grad(kd::ones({2}));
  opt.step();
  CHECK(values<float>(a)[0] == Approx(0.9));
  CHECK(values<float>(b)[0] == Approx(0.0));
  opt.set_lr(0.5);
  CHECK(opt.lr(0) == 0.5);
  CHECK(opt.lr(1) == 0.5);
}

TEST_CASE("optim: SGD with momentum resumes bit for bit from its state_dict") {
  check_resume([](std::vector<kd::Tensor> p) { return optim::SGD(p, {.lr = 0.1, .momentum = 0.9, .nesterov = true}); });
}

TEST_CASE("optim: Adam resumes bit for bit from its state_dict") {
  check_resume([](std::vector<kd::Tensor> p) { return optim::Adam(p, {.lr = 1e-2}); });
}

TEST_CASE("optim: AdamW with amsgrad resumes bit for bit from its state_dict") {
  check_resume([](std::vector<kd::Tensor> p) { return optim::AdamW(p, {.lr = 1e-2, .amsgrad = true}); });
}

TEST_CASE("optim: RMSprop, centred with momentum, resumes bit for bit from its state_dict") {
  check_resume([](std::vector<kd::Tensor> p) {
    return optim::RMSprop(p, {.lr = 1e-2, .weight_decay = 0.1, .momentum = 0.9, .centered = true});
  });
}

TEST_CASE("optim: Adagrad with lr_decay resumes bit for bit from its state_dict") {
  check_resume([](std::vector<kd::Tensor> p) {
    return optim::Adagrad(p, {.lr = 0.1, .lr_decay = 0.05, .initial_accumulator_value = 0.1});
  });
}

TEST_CASE("optim: state_dict holds step counts, buffers and options") {
  Problem pr(3);
  optim::Adam opt({pr.w, pr.b}, {.lr = 0.02, .weight_decay = 0.1});
  CHECK(opt.state_dict().count("state.0.exp_avg") == 0);  // state appears at the first step, like PyTorch
  for (int k = 0; k < 3; ++k) {
    pr.feed(k);
    opt.step();
  }
  const auto s = opt.state_dict();
  CHECK(s.at("state.0.step").item<double>() == 3);
  CHECK(s.at("state.0.exp_avg").shape() == kd::Shape{4, 3});
  CHECK(s.at("state.1.exp_avg_sq").shape() == kd::Shape{3});
  CHECK(s.at("group.0.lr").item<double>() == 0.02);
  CHECK(s.at("group.0.weight_decay").item<double>() == 0.1);
  // The saved buffers are copies: stepping again must not change them.
  const auto before = values<float>(s.at("state.0.exp_avg"));
  pr.feed(0);
  opt.step();
  CHECK(values<float>(s.at("state.0.exp_avg")) == before);
}

TEST_CASE("optim: load_state_dict refuses a foreign or mismatched state") {
  Problem pr(1);
  optim::SGD sgd({pr.w, pr.b}, {.lr = 0.1, .momentum = 0.9});
  pr.feed(0);
  sgd.step();
  optim::Adam adam({pr.w, pr.b});
  CHECK_THROWS_WITH(adam.load_state_dict(sgd.state_dict()), Contains("Adam.load_state_dict") && Contains("missing"));

  kd::Tensor other = kd::zeros({5}).requires_grad_(), other_b = kd::zeros({3}).requires_grad_();
  optim::SGD wrong({other, other_b}, {.lr = 0.1, .momentum = 0.9});
  CHECK_THROWS_WITH(wrong.load_state_dict(sgd.state_dict()), Contains("shape [4, 3]") && Contains("shape [5]"));
}

TEST_CASE("optim: load_state_dict refuses state for more parameters or more groups than the optimizer has") {
  Problem pr(1);
  kd::Tensor extra = kd::zeros({2}).requires_grad_();
  // Saved over two parameters (momentum buffers for both), loaded into an optimizer over one.
  optim::SGD two({pr.w, pr.b}, {.lr = 0.1, .momentum = 0.9});
  pr.feed(0);
  two.step();
  optim::SGD one({pr.w}, {.lr = 0.1, .momentum = 0.9});
  CHECK_THROWS_WITH(one.load_state_dict(two.state_dict()),
                    Contains("SGD.load_state_dict") && Contains("state for parameter 1") &&
                        Contains("has 1 parameter"));
  CHECK(one.state_dict().count("state.0.momentum_buffer") == 0);  // nothing was loaded

  // Saved with two groups, loaded into one group: refused even where the first group would fit.
  optim::Adam grouped({pr.w}, {.lr = 0.01});
  grouped.add_param_group({extra}, {.lr = 0.02});
  optim::Adam single({pr.w}, {.lr = 0.01});
  CHECK_THROWS_WITH(single.load_state_dict(grouped.state_dict()),
                    Contains("Adam.load_state_dict") && Contains("different number of parameter groups"));
  CHECK(single.state_dict().at("group.0.lr").item<double>() == 0.01);

  // The same state loads into an optimizer of the same shape.
  optim::Adam same({pr.w}, {.lr = 0.5});
  same.add_param_group({extra}, {.lr = 0.5});
  CHECK_NOTHROW(same.load_state_dict(grouped.state_dict()));
  CHECK(same.state_dict().at("group.1.lr").item<double>() == 0.02);

  // The same total in another grouping: [[w, b], [extra]] saved, [[w], [b, extra]] here. PyTorch:
  // "loaded state dict contains a parameter group that doesn't match the size of optimizer's group".
  optim::SGD saved({pr.w, pr.b}, {.lr = 0.1});
  saved.add_param_group({extra}, {.lr = 0.3});
  optim::SGD regrouped({pr.w}, {.lr = 0.1});
  regrouped.add_param_group({pr.b, extra}, {.lr = 0.1});
  CHECK_THROWS_WITH(regrouped.load_state_dict(saved.state_dict()),
                    Contains("SGD.load_state_dict") && Contains("doesn't match the size of optimizer's group") &&
                        Contains("group 0 has 2 parameter(s) in the state, 1 here"));
  CHECK(regrouped.state_dict().at("group.1.lr").item<double>() == 0.1);  // nothing was loaded
  // A state saved before the group sizes were recorded still loads (no entry, no check).
  kd::optim::OptimizerState old_format = saved.state_dict();
  old_format.erase("group.0.num_params");
  old_format.erase("group.1.num_params");
  optim::SGD same_groups({pr.w, pr.b}, {.lr = 0.1});
  same_groups.add_param_group({extra}, {.lr = 0.1});
  CHECK_NOTHROW(same_groups.load_state_dict(old_format));
  CHECK(same_groups.state_dict().at("group.1.lr").item<double>() == 0.3);
}
