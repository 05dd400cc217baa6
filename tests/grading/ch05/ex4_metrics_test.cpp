// ch05.ex4 — train::count_correct (and accuracy, which uses it).
#include "ch05_grading.hpp"

using namespace ch05_grading;

TEST_CASE("count_correct: batches of logits", "[ch05][ex4][pts=3]") {
  const kd::Tensor logits = grading::input("logits"), labels = grading::input("labels");
  const kd::Tensor big = grading::input("big"), big_labels = grading::input("big_labels");
  grading::expect("count_correct(logits, labels)", kd::train::count_correct(logits, labels));
  grading::expect("count_correct(big, big_labels)", kd::train::count_correct(big, big_labels));
  grading::expect("count_correct(logits, logits.argmax(1))", kd::train::count_correct(logits, logits.argmax(1)));
  CHECK(kd::train::accuracy(logits, logits.argmax(1)) == 1.0);
}

TEST_CASE("count_correct: ties go to the first largest logit", "[ch05][ex4][pts=1]") {
  grading::expect("count_correct", kd::train::count_correct(grading::input("logits"), grading::input("labels")));
}

TEST_CASE("count_correct: wrong shapes and dtypes are refused", "[ch05][ex4][pts=1]") {
  const kd::Tensor logits = grading::input("logits"), labels = grading::input("labels");
  grading::expect_error("logits [4, 3], labels [5]", [&] { (void)kd::train::count_correct(logits, kd::cat({labels, labels.slice(0, 0, 1, 1)}, 0)); });
  grading::expect_error("logits [12], labels [4]", [&] { (void)kd::train::count_correct(logits.reshape({12}), labels); });
  grading::expect_error("float labels", [&] { (void)kd::train::count_correct(logits, labels.to(kd::kFloat32)); });
}
