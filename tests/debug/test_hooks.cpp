// Tensor hooks and module hooks: when they run, what they see, what their results replace, and
// that handles remove them. (Values are compared with PyTorch in tests/parity/ch07_debug.)
#include <catch2/catch.hpp>
#include <kindling/kindling.hpp>

#include <vector>

namespace kd = kindling;
using kd::Tensor;

TEST_CASE("hooks: a tensor hook on a non-leaf sees its gradient and can replace it") {
  Tensor x = kd::tensor({1.0, 2.0, 3.0}).requires_grad_();
  Tensor y = x * 2.0;
  std::vector<float> seen;
  auto handle = y.register_hook([&](const Tensor& g) {
    seen = g.to_vector<float>();
    return g * 10.0;
  });
  (y * y).sum().backward();
  CHECK(seen == std::vector<float>{4.f, 8.f, 12.f});             // d(y^2)/dy = 2y
  CHECK(x.grad().to_vector<float>() == std::vector<float>{80.f, 160.f, 240.f});  // replaced, then * 2
  CHECK(handle.active());
}

TEST_CASE("hooks: a leaf's hook runs before accumulation, also when registered before any graph") {
  Tensor w = kd::tensor({1.0, -1.0}).requires_grad_();
  int calls = 0;
  auto handle = w.register_hook([&](const Tensor& g) {
    ++calls;
    return g.clamp(-0.5, 0.5);
  });
  (w * 3.0).sum().backward();
  CHECK(calls == 1);
  CHECK(w.grad().to_vector<float>() == std::vector<float>{0.5f, 0.5f});
  (w * 3.0).sum().backward();  // a new graph, a new AccumulateGrad: the hook is still there
  CHECK(calls == 2);
  CHECK(w.grad().to_vector<float>() == std::vector<float>{1.f, 1.f});
  handle.remove();
  handle.remove();  // idempotent
  CHECK_FALSE(handle.active());
  (w * 3.0).sum().backward();
  CHECK(calls == 2);
  CHECK(w.grad().to_vector<float>() == std::vector<float>{4.f, 4.f});
}

TEST_CASE("hooks: several hooks run in registration order, each on the previous result") {
  Tensor x = kd::tensor({1.0}).requires_grad_();
  Tensor y = x * 1.0;
  std::vector<int> order;
  y.register_hook([&](const Tensor& g) { order.push_back(1); return g + 1.0; });
  y.register_hook([&](const Tensor& g) { order.push_back(2); return g * 3.0; });
  y.register_hook([&](const Tensor&) { order.push_back(3); return Tensor(); });  // keeps it
  y.sum().backward();
  CHECK(order == std::vector<int>{1, 2, 3});
  CHECK(x.grad().item<float>() == 6.f);
}

TEST_CASE("hooks: refusals -- a tensor that needs no grad, a hook that changes the shape") {
  Tensor c = kd::ones({2});
  CHECK_THROWS_AS(c.register_hook([](const Tensor& g) { return g; }), kd::AutogradError);
  Tensor x = kd::ones({2}).requires_grad_();
  Tensor y = x * 2.0;
  y.register_hook([](const Tensor&) { return kd::ones({3}); });
  CHECK_THROWS_AS(y.sum().backward(), kd::AutogradError);
}

TEST_CASE("hooks: module forward pre-hooks and forward hooks run around forward and can replace") {
  kd::manual_seed(0);
  kd::nn::Linear fc(2, 2);
  std::vector<std::string> events;
  auto pre = fc.register_forward_pre_hook([&](kd::nn::Module& m, const Tensor& x) {
    events.push_back("pre " + m.type_name());
    return x * 0.0;  // replaces the input
  });
  auto post = fc.register_forward_hook([&](kd::nn::Module&, const Tensor& in, const Tensor& out) {
    events.push_back("post");
    CHECK(in.abs().sum().item<float>() == 0.f);  // the replaced input
    return out + 1.0;
  });
  Tensor y = fc(kd::ones({1, 2}));
  CHECK(events == std::vector<std::string>{"pre Linear", "post"});
  const Tensor expected = fc.bias.detach() + 1.0;
  CHECK(y.detach().squeeze(0).to_vector<float>() == expected.to_vector<float>());
  pre.remove();
  post.remove();
  events.clear();
  (void)fc(kd::ones({1, 2}));
  CHECK(events.empty());
}

TEST_CASE("hooks: a full backward hook sees grad_input and grad_output, and can replace grad_input") {
  kd::manual_seed(0);
  kd::nn::Linear fc(3, 2);
  Tensor x = kd::ones({4, 3}).requires_grad_();
  Tensor gin, gout;
  auto h = fc.register_full_backward_hook([&](kd::nn::Module&, const Tensor& gi, const Tensor& go) {
    gin = gi.clone();
    gout = go.clone();
    return gi * 2.0;
  });
  fc(x).sum().backward();
  REQUIRE(gin.defined());
  CHECK(gout.shape() == kd::Shape{4, 2});
  CHECK(gin.shape() == kd::Shape{4, 3});
  // grad_input = grad_output @ W = column sums of W, per row; x.grad is the replaced (doubled) one
  const Tensor want = fc.weight.detach().sum(0);
  for (int r = 0; r < 4; ++r) {
    const auto row = gin.select(0, r).to_vector<float>();
    const auto w = want.to_vector<float>();
    for (int c = 0; c < 3; ++c) CHECK(row[c] == Approx(w[c]));
  }
  const auto xg = x.grad().to_vector<float>(), g2 = (gin * 2.0).to_vector<float>();
  for (std::size_t i = 0; i < xg.size(); ++i) CHECK(xg[i] == Approx(g2[i]));
  h.remove();
}

TEST_CASE("hooks: a full backward hook on a first layer (input needs no grad) gets undefined grad_input") {
  kd::manual_seed(0);
  kd::nn::Linear fc(3, 2);
  int calls = 0;
  fc.register_full_backward_hook([&](kd::nn::Module&, const Tensor& gi, const Tensor& go) {
    ++calls;
    CHECK_FALSE(gi.defined());
    CHECK(go.shape() == kd::Shape{5, 2});
    return Tensor();
  });
  fc(kd::ones({5, 3})).sum().backward();
  CHECK(calls == 1);
  CHECK(fc.weight.grad().defined());
}

TEST_CASE("hooks: Sequential calls its children like model(x), so their hooks run") {
  kd::nn::Sequential seq;
  seq.append(kd::nn::Linear(2, 2));
  seq.append(kd::nn::ReLU());
  int calls = 0;
  seq[1].register_forward_hook([&](kd::nn::Module&, const Tensor&, const Tensor&) {
    ++calls;
    return Tensor();
  });
  (void)seq(kd::ones({1, 2}));
  CHECK(calls == 1);
}

TEST_CASE("hooks: register_post_accumulate_grad_hook runs after .grad holds the sum and can be removed") {
  kd::Tensor w = kd::ones({3}).requires_grad_();
  std::vector<float> seen;
  auto handle = kd::autograd::register_post_accumulate_grad_hook(w, [&](const kd::Tensor& leaf) {
    seen.push_back(leaf.grad().sum().item<float>());
  });
  (w * 2).sum().backward();
  (w * 3).sum().backward();  // accumulates: the hook sees 2 + 3 per element
  CHECK(seen == std::vector<float>{6, 15});
  handle.remove();
  (w * 1).sum().backward();
  CHECK(seen.size() == 2);
  kd::Tensor y = w * 2;
  CHECK_THROWS_WITH(kd::autograd::register_post_accumulate_grad_hook(y, [](const kd::Tensor&) {}),
                    Catch::Contains("not a leaf that requires grad"));
}
