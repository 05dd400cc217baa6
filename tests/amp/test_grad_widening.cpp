// A 16-bit gradient of a float32 weight (autocast's cast of the weight sends it back in bfloat16 or
// float16) is widened as AccumulateGrad adds it into .grad, instead of being converted to a float32
// tensor first (autograd/engine.cpp: leaf_widens; tensor/binary_ops.cpp: add_widening). Widening
// is exact, so every check here is bit for bit against the path that converts first -- which a
// tensor hook on the weight forces, since a hook is owed a float32 gradient.
#include <catch2/catch.hpp>
#include <cstdint>
#include <cstring>
#include <kindling/amp.hpp>
#include <kindling/nn.hpp>
#include <kindling/train.hpp>

namespace kd = kindling;
namespace amp = kindling::amp;
namespace F = kindling::nn::functional;

namespace {

// Same dtype, shape and bytes (NaN payloads and signed zeros included).
bool same_bits(const kd::Tensor& a, const kd::Tensor& b) {
  if (a.dtype() != b.dtype() || a.shape() != b.shape()) return false;
  const kd::Tensor x = a.contiguous(), y = b.contiguous();
  return std::memcmp(x.raw_data_ptr(), y.raw_data_ptr(), static_cast<std::size_t>(x.numel()) * x.element_size()) == 0;
}

// Every 16-bit pattern once, as a [256, 256] tensor of `dtype`.
kd::Tensor all_patterns(kd::DType dtype) {
  kd::Tensor out = kd::empty({256, 256}, {.dtype = dtype});
  auto* bits = static_cast<std::uint16_t*>(out.raw_data_ptr());
  for (std::uint32_t i = 0; i < 65536; ++i) bits[i] = static_cast<std::uint16_t>(i);
  return out;
}

struct Net : kd::nn::Module {
  kd::nn::Linear fc1{20, 16};
  kd::nn::ReLU relu;
  kd::nn::Linear fc2{16, 3};
  Net() {
    register_module("fc1", fc1);
    register_module("relu", relu);
    register_module("fc2", fc2);
  }
  kd::Tensor forward(const kd::Tensor& x) override { return fc2(relu(fc1(x))); }  // x: [8, 20]
};

// Two backward passes (the second accumulates into the first's .grad) under `dtype` autocast;
// with `hooked`, every parameter has a hook that returns its gradient unchanged.
std::vector<kd::Tensor> grads_after_two_backwards(kd::DType dtype, bool hooked, bool set_to_none) {
  kd::manual_seed(3);
  Net net;
  const kd::Tensor x = kd::randn({8, 20});
  const kd::Tensor y = kd::randint(0, 3, {8});
  std::vector<kd::autograd::RemovableHandle> handles;
  if (hooked) {
    for (const kd::Tensor& p : net.parameters()) {
      handles.push_back(p.register_hook([](const kd::Tensor& g) {
        CHECK(g.dtype() == kd::kFloat32);  // a hook on a float32 weight sees a float32 gradient
        return g;
      }));
    }
  }
  net.zero_grad(set_to_none);
  for (int pass = 0; pass < 2; ++pass) {
    kd::Tensor loss;
    {
      amp::AutocastGuard autocast({.dtype = dtype});
      loss = F::cross_entropy(net(x * (pass + 1.0)), y);
    }
    loss.backward();
  }
  std::vector<kd::Tensor> grads;
  for (const kd::Tensor& p : net.parameters()) grads.push_back(p.grad().clone());
  kd::detail::clear_autocast_weight_copies();
  return grads;
}

}  // namespace

TEST_CASE("grad widening: float32 += a 16-bit tensor is the sum with the tensor converted first") {
  for (const kd::DType dtype : {kd::kBFloat16, kd::kFloat16}) {
    INFO(kd::dtype_name(dtype));
    kd::manual_seed(1);
    const kd::Tensor a = kd::randn({256, 256}) * 1e3;
    const kd::Tensor h = all_patterns(dtype);  // every value: zeros, subnormals, inf, NaN
    const kd::Tensor wide = h.to(kd::kFloat32);
    kd::Tensor fused = a.clone(), first = a.clone();
    fused.add_(h);
    first.add_(wide);
    CHECK(same_bits(fused, first));
    fused.sub_(h, 0.375);
    first.sub_(wide, 0.375);
    CHECK(same_bits(fused, first));
    fused.add_(h, -3);
    first.add_(wide, -3);
    CHECK(same_bits(fused, first));
    // Out of place, broadcast, a transposed view, a 0-d operand and an empty tensor.
    CHECK(same_bits(a + h, a + wide));
    CHECK(same_bits(a - h.t(), a - wide.t()));
    CHECK(same_bits(a + h[7], a + wide[7]));
    CHECK(same_bits(a + h[3][9], a + wide[3][9]));
    const kd::Tensor e = kd::empty({0, 4});
    CHECK(same_bits(e + kd::empty({0, 4}, {.dtype = dtype}), e + kd::empty({0, 4})));
    CHECK((a + h).dtype() == kd::kFloat32);
  }
}

TEST_CASE("grad widening: weight gradients under autocast are bit-identical with and without it") {
  for (const kd::DType dtype : {kd::kBFloat16, kd::kFloat16}) {
    for (const bool set_to_none : {false, true}) {
      INFO(kd::dtype_name(dtype) << (set_to_none ? ", zero_grad(set_to_none)" : ", zero_grad()"));
      const auto widened = grads_after_two_backwards(dtype, false, set_to_none);
      const auto converted = grads_after_two_backwards(dtype, true, set_to_none);
      REQUIRE(widened.size() == converted.size());
      for (std::size_t i = 0; i < widened.size(); ++i) {
        CHECK(widened[i].dtype() == kd::kFloat32);
        CHECK(widened[i].is_contiguous());
        CHECK(same_bits(widened[i], converted[i]));
      }
    }
  }
}

TEST_CASE("grad widening: autograd::grad, create_graph and a weight used twice still get float32") {
  kd::manual_seed(5);
  kd::nn::Linear layer(6, 4);
  kd::Tensor w = layer.named_parameters()[0].second;
  const kd::Tensor x = kd::randn({5, 6});
  auto forward = [&] {
    amp::AutocastGuard autocast;
    return layer(x).to(kd::kFloat32).pow(2).sum();  // through w's bfloat16 copy
  };
  // autograd::grad captures the gradient at w's edge: float32, the converted bfloat16 gradient.
  const kd::Tensor g = kd::autograd::grad({forward()}, {w})[0];
  CHECK(g.dtype() == kd::kFloat32);
  forward().backward();
  CHECK(same_bits(w.grad(), g));  // .grad was empty: the same values, widened by the accumulator
  // create_graph: the accumulated gradient is part of a graph, in float32.
  w.set_grad(kd::Tensor());
  forward().backward({}, std::nullopt, /*create_graph=*/true);
  CHECK(w.grad().dtype() == kd::kFloat32);
  CHECK(w.grad().requires_grad());
  CHECK(same_bits(w.grad().detach(), g));
  // Each .grad's graph leads back to its own parameter (PyTorch's create_graph reference cycle):
  // every parameter's, the bias's too, is dropped to break it.
  layer.zero_grad(/*set_to_none=*/true);
  // w used through its bfloat16 copy and directly in float32: the two gradients are summed in
  // float32, the bfloat16 one converted first.
  kd::Tensor both = forward() + w.sum();
  both.backward();
  CHECK(w.grad().dtype() == kd::kFloat32);
  CHECK(same_bits(w.grad(), g + 1));
  kd::detail::clear_autocast_weight_copies();
}
