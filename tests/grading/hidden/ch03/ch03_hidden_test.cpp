// Instructor-only tests for chapter 3 (not in the student handout): other sizes, dtypes, layouts and
// random module trees, so an answer tuned to the visible tests' cases does not pass by luck.
#include "ch03/ch03_grading.hpp"

using namespace ch03_grading;

TEST_CASE("ch03.ex1 (hidden): float64 inputs after to(kFloat64), and a non-contiguous input", "[ch03][ex1][pts=2][hidden]") {
  kd::manual_seed(101);
  ex::Linear fc(9, 4);
  const kd::Tensor xt = kd::randn({9, 6}).t();  // [6, 9], transposed view
  check_close(fc(xt), F::linear(xt, fc.weight, fc.bias), "transposed input");
  fc.to(kd::kFloat64);
  const kd::Tensor x = kd::randn({3, 9}, {.dtype = kd::kFloat64});
  const kd::Tensor y = fc(x);
  CHECK(y.dtype() == kd::kFloat64);
  check_close(y, F::linear(x, fc.weight, fc.bias), "float64", 1e-12, 1e-12);
}

TEST_CASE("ch03.ex2 (hidden): a Sequential of 6 layers built by append, gradients reach all", "[ch03][ex2][pts=2][hidden]") {
  kd::manual_seed(102);
  ex::Sequential mine;
  for (int i = 0; i < 3; ++i) mine.append(nn::Linear(4, 4)).append(nn::Tanh());
  REQUIRE(mine.size() == 6);
  const kd::Tensor x = kd::randn({2, 4});
  mine(x).sum().backward();
  for (const auto& [n, p] : mine.named_parameters()) {
    INFO(n);
    CHECK(p.grad().defined());
  }
  nn::Sequential ref;
  for (std::size_t i = 0; i < mine.size(); i += 2) {
    const auto& fc = mine[i].as<nn::Linear>();
    auto copy = std::make_shared<nn::Linear>(4, 4);
    kd::NoGradGuard no_grad;
    copy->weight.copy_(fc.weight);
    copy->bias.copy_(fc.bias);
    ref.push_back(copy);
    ref.push_back(nn::Tanh());
  }
  check_close(mine(x), ref(x), "6-layer forward");
}

TEST_CASE("ch03.ex3 (hidden): float64 and non-contiguous inputs keep shape, dtype and statistics", "[ch03][ex3][pts=2][hidden]") {
  kd::manual_seed(103);
  ex::Dropout drop(0.25);
  const kd::Tensor x = (kd::rand({300, 200}, {.dtype = kd::kFloat64}) + 1.0).t();  // [200, 300] view
  const kd::Tensor y = drop(x);
  REQUIRE(y.shape() == x.shape());
  REQUIRE(y.dtype() == kd::kFloat64);
  const kd::Tensor kept = y.ne(kd::zeros_like(y));
  CHECK(kd::allclose(y, kd::where(kept, x / 0.75, kd::zeros_like(x)), 1e-12, 1e-12));
  const double frac = 1.0 - kept.to(kd::kFloat64).mean().item<double>();
  CHECK(std::abs(frac - 0.25) < 0.01);
  // Each row and each column is dropped independently: no row keeps everything or nothing.
  const kd::Tensor per_row = kept.to(kd::kFloat64).mean(1);
  CHECK(per_row.min().item<double>() > 0.5);
  CHECK(per_row.max().item<double>() < 0.95);
}

TEST_CASE("ch03.ex4 (hidden): 30 random module trees walk like the library's", "[ch03][ex4][pts=3][hidden]") {
  kd::Generator gen(104);
  for (int trial = 0; trial < 30; ++trial) {
    // A random tree of Sequentials, Linears, BatchNorms and activations, some layers shared.
    std::vector<std::shared_ptr<nn::Module>> pool;
    std::function<std::shared_ptr<nn::Module>(int)> make = [&](int depth) -> std::shared_ptr<nn::Module> {
      const auto kind = gen.randint(0, depth > 2 ? 3 : 5);
      if (kind == 0) return std::make_shared<nn::Linear>(gen.randint(1, 4), gen.randint(1, 4), nn::LinearOptions{.bias = gen.randint(0, 2) == 1});
      if (kind == 1) return std::make_shared<nn::BatchNorm1d>(gen.randint(1, 4));
      if (kind == 2) {
        if (!pool.empty() && gen.randint(0, 2) == 1) return pool[gen.randint(0, static_cast<std::int64_t>(pool.size()))];
        return std::make_shared<nn::ReLU>();
      }
      auto seq = std::make_shared<nn::Sequential>();
      for (auto n = gen.randint(0, 4); n > 0; --n) seq->push_back(make(depth + 1));
      pool.push_back(seq);
      return seq;
    };
    nn::Sequential root;
    for (auto n = gen.randint(1, 5); n > 0; --n) root.push_back(make(0));
    const Named got = ex::collect_named_parameters(root, trial % 2 ? "root" : "");
    const Named expected = root.named_parameters(trial % 2 ? "root" : "");
    INFO("trial " << trial << "\n" << root.to_string() << "\n got      " << list_str(names_of(got))
                  << "\n expected " << list_str(names_of(expected)));
    REQUIRE(names_of(got) == names_of(expected));
    CHECK(ex::count_parameters(root) == root.num_parameters());
  }
}

TEST_CASE("ch03.ex5 (hidden): other sizes, and train/eval reach the branches", "[ch03][ex5][pts=2][hidden]") {
  kd::manual_seed(105);
  ex::TwoBranchNet net(3, 7, 5);
  const kd::Tensor x = kd::randn({4, 3});
  const std::vector<kd::Tensor> p = net.parameters();
  const kd::Tensor expected = F::linear(kd::cat({F::relu(F::linear(x, p[0], p[1])), F::tanh(F::linear(x, p[2], p[3]))}, 1), p[4], p[5]);
  check_close(net(x), expected, "forward [4, 3] -> [4, 5]");
  net.eval();
  CHECK_FALSE(net.branch_a->is_training());
  CHECK_FALSE(net.head->is_training());
}

TEST_CASE("ch03.ex6 (hidden): 10 batches of different sizes with momentum 0.05, then eval", "[ch03][ex6][pts=3][hidden]") {
  kd::manual_seed(106);
  ex::BatchNorm1d mine(6, 1e-5, 0.05);
  nn::BatchNorm1d ref(6, {.momentum = 0.05});
  for (int step = 0; step < 10; ++step) {
    const kd::Tensor x = kd::randn({2 + 3 * step, 6}, {.dtype = kd::kFloat32}) * static_cast<double>(step + 1);
    INFO("batch " << step + 1);
    check_close(mine(x), ref(x), "train output", 1e-4, 1e-5);
    check_close(mine.running_mean, ref.running_mean, "running_mean", 1e-5, 1e-6);
    check_close(mine.running_var, ref.running_var, "running_var", 1e-5, 1e-6);
    CHECK(mine.num_batches_tracked.item<std::int64_t>() == ref.num_batches_tracked.item<std::int64_t>());
  }
  mine.eval();
  ref.eval();
  const kd::Tensor x = kd::randn({6, 5}).t();  // [5, 6], a transposed view
  check_close(mine(x), ref(x), "eval output", 1e-4, 1e-5);
}
