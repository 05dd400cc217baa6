// Chapter 2 — write your own Function: an operation autograd does not know, with its
// forward and its backward, used like any built-in op and checked with gradcheck.
// hypot(a, b) = sqrt(a² + b²), elementwise, with broadcasting; its partial derivatives
// are a / hypot and b / hypot.
#include <kindling/autograd.hpp>

#include <cstdio>
#include <string>

namespace kd = kindling;
namespace ag = kd::autograd;

// [snippet: hypot]
struct Hypot : ag::Function<Hypot> {
  // Runs with recording off; `ctx` keeps what backward will need.
  kd::Tensor forward(ag::Context& ctx, const kd::Tensor& a, const kd::Tensor& b) {
    kd::Tensor out = (a * a + b * b).sqrt();  // a: [3, 1], b: [4] -> out: [3, 4]
    ctx.save_for_backward({a, b, out});
    return out;
  }
  // grad[0] = d loss / d out; returns d loss / d a and d loss / d b, for out's shape.
  ag::Grads backward(ag::Context& ctx, const ag::Grads& grad) {
    const kd::Tensor a = ctx.saved(0), b = ctx.saved(1), out = ctx.saved(2);
    const kd::Tensor& g = grad[0];
    return {ctx.needs_input_grad(0) ? g * a / out : kd::Tensor(),
            ctx.needs_input_grad(1) ? g * b / out : kd::Tensor()};
  }
};
// [end]

void print(const std::string& name, const kd::Tensor& t) {
  std::printf("%s %s:", name.c_str(), kd::shape_str(t.shape()).c_str());
  for (double v : t.to_vector<double>()) std::printf(" %.4f", v);
  std::printf("\n");
}

int main() {
  // [snippet: use]
  kd::Tensor a = kd::tensor({{0.5}, {-1.0}, {2.0}}, {.requires_grad = true});  // [3, 1]
  kd::Tensor b = kd::tensor({1.0, -0.5, 0.25, 3.0}, {.requires_grad = true});  // [4]
  kd::Tensor out = Hypot::apply(a, b);  // [3, 4], broadcast
  std::printf("out.grad_fn(): %s\n", out.grad_fn()->name());
  out.sum().backward();
  print("a.grad", a.grad());  // [3, 1]: the engine summed the [3, 4] gradient
  print("b.grad", b.grad());  // [4]
  // [end]

  // [snippet: sum-to]
  // What the engine did to each gradient backward returned: sum_to, unbroadcast.
  kd::Tensor g = kd::ones({3, 4});
  print("sum_to(ones [3, 4], [3, 1])", ag::sum_to(g, {3, 1}));
  print("sum_to(ones [3, 4], [4])", ag::sum_to(g, {4}));
  // [end]

  // [snippet: check]
  kd::Tensor x = kd::randn({3, 1}, {.dtype = kd::kFloat64, .requires_grad = true});
  kd::Tensor y = kd::randn({4}, {.dtype = kd::kFloat64, .requires_grad = true});
  auto f = [](const std::vector<kd::Tensor>& in) { return Hypot::apply(in[0], in[1]); };
  ag::GradcheckResult r = ag::gradcheck(f, {x, y});
  std::printf("gradcheck(Hypot): ok=%s\n", r.ok ? "true" : "false");
  // [end]
}
