// Instructor-only tests for chapter 2 (not in the student handout): fuzzing with random shapes and
// random graphs, so an answer tuned to the visible tests does not pass by luck.
#include "ch02/ch02_grading.hpp"

using namespace ch02_grading;

TEST_CASE("ch02.ex1 (hidden): formulas on non-contiguous inputs", "[ch02][ex1][pts=2][hidden]") {
  kd::Generator gen(111);
  const kd::Tensor ta = kd::randn({4, 3}, {}, &gen).t();              // [3, 4] transposed views
  const kd::Tensor tb = (kd::rand({4, 3}, {}, &gen) + 0.5).t();
  const kd::Tensor g = kd::randn({4, 3}, {}, &gen).t();
  REQUIRE_FALSE(ta.is_contiguous());
  const kd::Tensor a = leaf(ta), b = leaf(tb);                        // same values, for the library
  const auto [ma, mb] = ex::mul_backward(g, ta, tb);
  const auto em = library_grads(a * b, {a, b}, g);
  check_close(ma, em[0], "mul: gradient w.r.t. a");
  check_close(mb, em[1], "mul: gradient w.r.t. b");
  const auto [da, db] = ex::div_backward(g, ta, tb);
  const auto ed = library_grads(a / b, {a, b}, g);
  check_close(da, ed[0], "div: gradient w.r.t. a", 1e-5, 1e-5);
  check_close(db, ed[1], "div: gradient w.r.t. b", 1e-5, 1e-5);
  const kd::Tensor e = ta.exp(), t = ta.tanh();
  const kd::Tensor x = leaf(ta);
  check_close(ex::exp_backward(g, e), library_grads(x.exp(), {x}, g)[0], "exp: gradient w.r.t. x");
  check_close(ex::tanh_backward(g, t), library_grads(x.tanh(), {x}, g)[0], "tanh: gradient w.r.t. x");
}

TEST_CASE("ch02.ex2 (hidden): 300 random broadcasts in float64", "[ch02][ex2][pts=3][hidden]") {
  kd::Generator gen(112);
  for (int i = 0; i < 300; ++i) {
    const kd::Shape full = random_shape(gen, 6, 3);
    const kd::Shape shape = broadcastable_to(full, gen);
    const kd::Tensor grad = kd::randn(full, {.dtype = kd::kFloat64}, &gen);
    const kd::Tensor x = kd::zeros(shape, {.dtype = kd::kFloat64, .requires_grad = true});
    INFO("grad shape " << kd::shape_str(full) << " -> input shape " << kd::shape_str(shape));
    check_close(ex::unbroadcast(grad, shape), library_grads(x.expand(full), {x}, grad)[0], "unbroadcast", 1e-10, 1e-12);
  }
}

TEST_CASE("ch02.ex3 (hidden): random batched matmuls", "[ch02][ex3][pts=3][hidden]") {
  kd::Generator gen(113);
  for (int i = 0; i < 40; ++i) {
    const std::int64_t n = gen.randint(1, 5), k = gen.randint(1, 5), m = gen.randint(1, 5);
    const kd::Shape batch = random_shape(gen, 2, 3);
    kd::Shape sa = broadcastable_to(batch, gen), sb = broadcastable_to(batch, gen);
    sa.insert(sa.end(), {n, k});
    sb.insert(sb.end(), {k, m});
    const kd::Tensor a = kd::randn(sa, {.dtype = kd::kFloat64, .requires_grad = true}, &gen);
    const kd::Tensor b = kd::randn(sb, {.dtype = kd::kFloat64, .requires_grad = true}, &gen);
    const kd::Tensor out = a.matmul(b);
    const kd::Tensor grad = kd::randn(out.shape(), {.dtype = kd::kFloat64}, &gen);
    const auto expected = library_grads(out, {a, b}, grad);
    INFO("a " << kd::shape_str(sa) << " @ b " << kd::shape_str(sb));
    const auto [ga, gb] = ex::matmul_backward(grad, a.detach(), b.detach());
    check_close(ga, expected[0], "gradient w.r.t. a", 1e-9, 1e-12);
    check_close(gb, expected[1], "gradient w.r.t. b", 1e-9, 1e-12);
  }
}

TEST_CASE("ch02.ex4 (hidden): 50 random graphs with shared subexpressions", "[ch02][ex4][pts=3][hidden]") {
  kd::Generator gen(114);
  for (int g = 0; g < 50; ++g) {
    std::vector<kd::Tensor> pool{kd::randn({3}).requires_grad_(), kd::randn({3}).requires_grad_(), kd::randn({3})};
    const int steps = static_cast<int>(gen.randint(1, 40));
    for (int i = 0; i < steps; ++i) {  // each new value combines random earlier ones: a random DAG
      const kd::Tensor p = pool[gen.randint(0, static_cast<std::int64_t>(pool.size()))];
      const kd::Tensor q = pool[gen.randint(0, static_cast<std::int64_t>(pool.size()))];
      switch (gen.randint(0, 4)) {
        case 0: pool.push_back(p * q); break;
        case 1: pool.push_back(p + q.tanh()); break;
        case 2: pool.push_back(p.sigmoid()); break;
        default: pool.push_back(kd::maximum(p, q) - p); break;
      }
    }
    kd::Tensor root = pool.back();
    for (std::size_t i = 3; i < pool.size(); i += 3) root = root + pool[i];
    if (!root.requires_grad()) continue;
    check_topological(root.sum().grad_fn(), "random graph " + std::to_string(g));
  }
}

TEST_CASE("ch02.ex5 (hidden): more functions, and a wrong gradient in one element only", "[ch02][ex5][pts=3][hidden]") {
  for (const auto& c : good_functions(115)) {
    INFO(c.name);
    REQUIRE(ex::check_gradients(c.f, c.inputs));
  }
  kd::Generator gen(116);
  const kd::Tensor x = kd::randn({6}, {.dtype = kd::kFloat64}, &gen).requires_grad_();
  // Correct everywhere except element 4 of the output, whose gradient is 3 instead of 2x.
  const ex::Function f = [](const std::vector<kd::Tensor>& in) {
    const kd::Tensor& v = in[0];
    return kd::cat({v.slice(0, 0, 4) * v.slice(0, 0, 4), wrong_square(v.slice(0, 4, 5)), v.slice(0, 5, 6) * v.slice(0, 5, 6)});
  };
  REQUIRE_FALSE(kd::autograd::gradcheck(f, {x}).ok);
  REQUIRE_FALSE(ex::check_gradients(f, {x}));
  // Output that does not depend on an input that requires grad: its Jacobian is zero.
  const kd::Tensor unused = kd::randn({2}, {.dtype = kd::kFloat64}, &gen).requires_grad_();
  const ex::Function g = [](const std::vector<kd::Tensor>& in) { return in[0].exp(); };
  const kd::Tensor jac = ex::analytical_jacobian(g, {x, unused}, 1);
  REQUIRE(jac.shape() == kd::Shape{6, 2});
  REQUIRE(kd::equal(jac, kd::zeros({6, 2}, {.dtype = kd::kFloat64})));
}
