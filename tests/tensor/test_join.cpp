// cat / stack: values against the pieces, every dim, promotion, PyTorch's legacy empty rule, errors.
#include <catch2/catch.hpp>
#include <kindling/tensor.hpp>

#include "math_helpers.hpp"

namespace kd = kindling;
using Catch::Contains;
using kd::testing::sample;
using kd::testing::values;

TEST_CASE("cat: along every dim, the pieces come back out of the result") {
  const kd::Tensor a = sample({2, 3, 4}), b = sample({4, 3, 2}).permute({2, 1, 0}) * 3;  // non-contiguous
  for (std::int64_t d = -3; d < 3; ++d) {
    INFO("dim " << d);
    const std::int64_t nd = d < 0 ? d + 3 : d;
    const kd::Tensor c = kd::cat({a, b, a}, d);
    kd::Shape expected = a.shape();
    expected[nd] *= 3;
    CHECK(c.shape() == expected);
    const std::int64_t s = a.size(nd);
    CHECK(values(c.narrow(nd, 0, s)) == values(a));
    CHECK(values(c.narrow(nd, s, s)) == values(b));
    CHECK(values(c.narrow(nd, 2 * s, s)) == values(a));
    CHECK(c.is_contiguous());
  }
  // Different sizes along the join dim.
  const kd::Tensor c = kd::cat({sample({2, 1}), sample({2, 5})}, 1);
  CHECK(c.shape() == kd::Shape{2, 6});
  CHECK(values(c.narrow(1, 1, 5)) == values(sample({2, 5})));
  CHECK(values(kd::cat({a})) == values(a));
  CHECK_FALSE(kd::cat({a}).shares_storage(a));  // always a new tensor
}

TEST_CASE("cat: dtype promotion and PyTorch's legacy empty-tensor rule") {
  const kd::Tensor c = kd::cat({kd::arange(3), kd::ones({2})});
  CHECK(c.dtype() == kd::kFloat32);
  CHECK(values(c) == std::vector<double>{0, 1, 2, 1, 1});
  CHECK(kd::cat({kd::arange(2) > 0, kd::arange(2)}).dtype() == kd::kInt64);
  // A 1-D tensor of shape [0] is skipped whatever the other shapes (torch.cat([x, torch.tensor([])], 1)).
  const kd::Tensor x = sample({2, 3});
  const kd::Tensor y = kd::cat({x, kd::zeros({0})}, 1);
  CHECK(y.shape() == kd::Shape{2, 3});
  CHECK(values(y) == values(x));
  CHECK(kd::cat({kd::zeros({0}), kd::zeros({0})}).shape() == kd::Shape{0});
  CHECK(kd::cat({kd::zeros({2, 0}), kd::ones({2, 3})}, 1).shape() == kd::Shape{2, 3});
}

TEST_CASE("cat: errors name the tensors and the mismatching dim") {
  CHECK_THROWS_AS(kd::cat({}), kd::ValueError);
  CHECK_THROWS_AS(kd::cat({kd::full({}, 1.0)}), kd::ShapeError);
  CHECK_THROWS_WITH(kd::cat({kd::full({}, 1.0)}), Contains("zero-dimensional") && Contains("stack"));
  CHECK_THROWS_AS(kd::cat({kd::zeros({2, 3}), kd::zeros({2, 4})}), kd::ShapeError);
  CHECK_THROWS_WITH(kd::cat({kd::zeros({2, 3}), kd::zeros({2, 4})}),
                    Contains("[2, 3]") && Contains("[2, 4]") && Contains("dim 1"));
  CHECK_THROWS_AS(kd::cat({kd::zeros({2, 3}), kd::zeros({3})}), kd::ShapeError);
  CHECK_THROWS_AS(kd::cat({kd::zeros({2, 3})}, 2), kd::IndexError);
}

TEST_CASE("stack: new dim at every position, promotion and errors") {
  const kd::Tensor a = sample({2, 3}), b = sample({3, 2}).t();
  for (std::int64_t d = -3; d < 3; ++d) {
    INFO("dim " << d);
    const std::int64_t nd = d < 0 ? d + 3 : d;
    const kd::Tensor s = kd::stack({a, b}, d);
    kd::Shape expected = a.shape();
    expected.insert(expected.begin() + nd, 2);
    CHECK(s.shape() == expected);
    CHECK(values(s.select(nd, 0)) == values(a));
    CHECK(values(s.select(nd, 1)) == values(b));
  }
  CHECK(kd::stack({kd::full({}, 1.0), kd::full({}, 2.0)}).shape() == kd::Shape{2});
  CHECK(kd::stack({kd::arange(3), kd::ones({3})}).dtype() == kd::kFloat32);
  CHECK_THROWS_AS(kd::stack({}), kd::ValueError);
  CHECK_THROWS_AS(kd::stack({kd::zeros({3}), kd::zeros({4})}), kd::ShapeError);
  CHECK_THROWS_WITH(kd::stack({kd::zeros({3}), kd::zeros({4})}), Contains("[3]") && Contains("[4]") && Contains("entry 1"));
  CHECK_THROWS_AS(kd::stack({a, a}, 3), kd::IndexError);
}

TEST_CASE("cat: records cat and stack with every input and the dim") {
  using kd::testing::ref;
  kd::testing::RecordCapture cap;
  const kd::Tensor a = kd::testing::needs_grad(sample({2, 3})), b = sample({2, 3});
  (void)kd::cat({a, b}, -1);
  CHECK(cap.last().op == "cat");
  CHECK(cap.last().args == "[" + ref(a) + ", " + ref(b) + "], 1");
  (void)kd::stack({b, a}, -1);
  CHECK(cap.last().op == "stack");
  CHECK(cap.last().args == "[" + ref(b) + ", " + ref(a) + "], 2");
}
