// ch03.ex2 — a Sequential container compared with kindling::nn::Sequential holding the very same layers.
#include "ch03_grading.hpp"

using namespace ch03_grading;

namespace {
struct Layers {
  std::shared_ptr<nn::Linear> fc1 = std::make_shared<nn::Linear>(6, 5);
  std::shared_ptr<nn::ReLU> relu = std::make_shared<nn::ReLU>();
  std::shared_ptr<nn::Linear> fc2 = std::make_shared<nn::Linear>(5, 3);
};
}  // namespace

TEST_CASE("ch03.ex2: children are registered as \"0\", \"1\", ... with their parameters", "[ch03][ex2][pts=4]") {
  kd::manual_seed(1);
  Layers l;
  ex::Sequential mine;
  mine.push_back(l.fc1).push_back(l.relu).push_back(l.fc2);
  nn::Sequential ref(l.fc1, l.relu, l.fc2);
  std::vector<std::string> got_children;
  for (const auto& [n, m] : mine.named_children()) got_children.push_back(n);
  std::vector<std::string> ref_children;
  for (const auto& [n, m] : ref.named_children()) ref_children.push_back(n);
  INFO("named_children(): got " << list_str(got_children) << ", expected " << list_str(ref_children));
  REQUIRE(got_children == ref_children);
  const Named got = mine.named_parameters(), expected = ref.named_parameters();
  INFO("named_parameters(): got " << list_str(names_of(got)) << ", expected " << list_str(names_of(expected)));
  REQUIRE(names_of(got) == names_of(expected));
  for (std::size_t i = 0; i < got.size(); ++i) CHECK(got[i].second.is_same(expected[i].second));
  CHECK(mine.state_dict().keys() == ref.state_dict().keys());
}

TEST_CASE("ch03.ex2: forward chains the children", "[ch03][ex2][pts=4]") {
  kd::manual_seed(2);
  Layers l;
  ex::Sequential mine;
  mine.push_back(l.fc1).push_back(l.relu).push_back(l.fc2);
  nn::Sequential ref(l.fc1, l.relu, l.fc2);
  const kd::Tensor x = kd::randn({4, 6});
  check_close(mine(x), ref(x), "Sequential forward");
  ex::Sequential empty;
  INFO("an empty Sequential returns its input");
  check_close(empty(x), x, "empty Sequential");
}

TEST_CASE("ch03.ex2: size, operator[] and append", "[ch03][ex2][pts=3]") {
  Layers l;
  ex::Sequential mine;
  CHECK(mine.size() == 0);
  mine.push_back(l.fc1).push_back(l.relu);
  mine.append(nn::Tanh());
  REQUIRE(mine.size() == 3);
  CHECK(&mine[0] == l.fc1.get());  // the very module that was pushed, not a copy
  CHECK(&mine[1] == l.relu.get());
  CHECK(mine[2].type_name() == "Tanh");
  CHECK_THROWS_AS(mine[3], kd::IndexError);
}

TEST_CASE("ch03.ex2: nesting, printing and train/eval reach the children", "[ch03][ex2][pts=4]") {
  kd::manual_seed(3);
  Layers l;
  auto inner = std::make_shared<ex::Sequential>();
  inner->push_back(l.relu).push_back(l.fc2);
  ex::Sequential mine;
  mine.push_back(l.fc1).push_back(inner);

  auto ref_inner = std::make_shared<nn::Sequential>(l.relu, l.fc2);
  nn::Sequential ref(l.fc1, ref_inner);
  INFO("named_parameters(): got " << list_str(names_of(mine.named_parameters())) << ", expected "
                                  << list_str(names_of(ref.named_parameters())));
  CHECK(names_of(mine.named_parameters()) == names_of(ref.named_parameters()));  // "1.1.weight", ...
  INFO("printed:\n" << mine.to_string() << "\nexpected:\n" << ref.to_string());
  CHECK(mine.to_string() == ref.to_string());
  check_close(mine(kd::ones({2, 6})), ref(kd::ones({2, 6})), "nested forward");
  mine.eval();
  CHECK_FALSE(l.fc2->is_training());
  mine.train();
  CHECK(l.fc2->is_training());
}
