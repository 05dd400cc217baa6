// ch01.ex2 — the broadcast shape of two shapes, checked against the library on hand-picked and random pairs.
#include "ch01_grading.hpp"

using namespace ch01_grading;

namespace {
// A pair of shapes that may or may not broadcast: random ranks 0..4, sizes from {0, 1, 2, 3}.
kd::Shape random_shape(kd::Generator& gen) {
  kd::Shape s(gen.randint(0, 5));
  for (auto& x : s) x = gen.randint(0, 4);
  return s;
}
}  // namespace

TEST_CASE("ch01.ex2: broadcast_shape agrees with the library where shapes broadcast", "[ch01][ex2][pts=8]") {
  const std::vector<std::pair<kd::Shape, kd::Shape>> pairs = {
      {{}, {}}, {{3}, {}}, {{}, {2, 3}}, {{4, 3}, {3}}, {{4, 1}, {1, 5}}, {{8, 1, 6, 1}, {7, 1, 5}},
      {{2, 3, 4}, {2, 3, 4}}, {{0, 3}, {1, 3}}, {{5, 1, 0}, {4, 1}}, {{1}, {1, 1, 1}}, {{32, 3, 224, 224}, {3, 1, 1}}};
  for (const auto& [a, b] : pairs) {
    INFO("shapes " << kd::shape_str(a) << " and " << kd::shape_str(b));
    CHECK(ex::broadcast_shape(a, b) == kd::broadcast_shapes(a, b));
    CHECK(ex::broadcast_shape(b, a) == kd::broadcast_shapes(b, a));
    CHECK(ex::broadcast_shape(a, b) == (kd::zeros(a) + kd::zeros(b)).shape());  // what + really does
  }
}

TEST_CASE("ch01.ex2: mismatched shapes throw a ShapeError that names both shapes", "[ch01][ex2][pts=4]") {
  const std::vector<std::pair<kd::Shape, kd::Shape>> pairs = {
      {{3}, {4}}, {{2, 3}, {3, 2}}, {{4, 3}, {4}}, {{8, 1, 6, 1}, {7, 2, 5}}, {{0}, {2}}, {{32, 784}, {128, 784}}};
  for (const auto& [a, b] : pairs) {
    INFO("shapes " << kd::shape_str(a) << " and " << kd::shape_str(b));
    REQUIRE_THROWS_AS(kd::broadcast_shapes(a, b), kd::ShapeError);  // the library says: no
    try {
      (void)ex::broadcast_shape(a, b);
      FAIL("broadcast_shape returned instead of throwing kindling::ShapeError");
    } catch (const kd::ShapeError& e) {
      const std::string msg = e.what();
      INFO("message: " << msg);
      CHECK(msg.find(kd::shape_str(a)) != std::string::npos);
      CHECK(msg.find(kd::shape_str(b)) != std::string::npos);
    }
  }
}

TEST_CASE("ch01.ex2: 500 random shape pairs: same answer or same error as the library", "[ch01][ex2][pts=3]") {
  kd::Generator gen(2);
  for (int i = 0; i < 500; ++i) {
    const kd::Shape a = random_shape(gen), b = random_shape(gen);
    INFO("shapes " << kd::shape_str(a) << " and " << kd::shape_str(b));
    bool library_ok = true;
    kd::Shape expected;
    try {
      expected = kd::broadcast_shapes(a, b);
    } catch (const kd::ShapeError&) {
      library_ok = false;
    }
    if (library_ok) {
      REQUIRE(ex::broadcast_shape(a, b) == expected);
    } else {
      REQUIRE_THROWS_AS(ex::broadcast_shape(a, b), kd::ShapeError);
    }
  }
}
