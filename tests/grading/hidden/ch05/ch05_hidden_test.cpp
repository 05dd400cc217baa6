// Instructor-only tests for chapter 5 (not in the student handout): more shapes, float64, longer runs.
#include "ch05/ch05_grading.hpp"

using namespace ch05_grading;

TEST_CASE("ch05.ex1 (hidden): cross_entropy when every row has the same class", "[ch05][ex1][pts=2][hidden]") {
  kd::Generator gen(201);
  kd::Tensor x = kd::randn({12, 4}, {.dtype = kd::kFloat64}, &gen).requires_grad_();
  kd::Tensor t = kd::full({12}, 3, {.dtype = kd::kInt64});
  kd::Tensor y = x.detach().clone().requires_grad_();
  ex::cross_entropy(x, t).backward();
  kd::nn::functional::cross_entropy(y, t).backward();
  CHECK(close(x.grad(), y.grad(), 1e-10, 1e-12));
}

TEST_CASE("ch05.ex3 (hidden): Adam in float64 for 50 steps", "[ch05][ex3][pts=2][hidden]") {
  Problem mine(50, 202, kd::kFloat64), ref(50, 202, kd::kFloat64);
  std::vector<ex::AdamState> states(mine.params.size());
  kd::optim::Adam adam(ref.params, {.lr = 3e-3});
  for (int k = 0; k < 50; ++k) {
    mine.feed(k);
    ref.feed(k);
    for (std::size_t i = 0; i < mine.params.size(); ++i) ex::adam_step(mine.params[i], states[i], 3e-3);
    adam.step();
  }
  for (std::size_t i = 0; i < mine.params.size(); ++i) CHECK(close(mine.params[i], ref.params[i], 1e-10, 1e-12));
}

TEST_CASE("ch05.ex5 (hidden): train_one_epoch with SGD and a larger dataset", "[ch05][ex5][pts=2][hidden]") {
  auto data = make_data(300, 203);
  std::vector<double> losses[2];
  for (int which = 0; which < 2; ++which) {
    kd::manual_seed(204);
    Net model;
    kd::optim::SGD opt(model.parameters(), {.lr = 0.05, .momentum = 0.9});
    ex::Loader loader(data, {.batch_size = 25, .shuffle = true});
    kd::nn::CrossEntropyLoss criterion;
    for (int e = 0; e < 2; ++e) {
      if (which == 0) {
        losses[0].push_back(ex::train_one_epoch(model, loader, opt, criterion));
      } else {
        model.train();
        double total = 0;
        for (auto& [x, y] : loader) {
          opt.zero_grad();
          kd::Tensor loss = criterion(model(x), y);
          loss.backward();
          opt.step();
          total += loss.item<double>();
        }
        losses[1].push_back(total / loader.size());
      }
    }
  }
  for (int e = 0; e < 2; ++e) CHECK(losses[0][e] == Approx(losses[1][e]).epsilon(1e-6));
}
