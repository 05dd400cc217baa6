// ch03.ex2 — nn::Sequential and nn::ModuleList (append_shared, operator[], Sequential::forward).
#include "ch03_grading.hpp"

using namespace ch03_grading;

namespace {
nn::Sequential make_seq() { return nn::Sequential(nn::Linear(4, 3), nn::ReLU(), nn::Linear(3, 2)); }
}  // namespace

TEST_CASE("Sequential: children named 0, 1, ... with their parameters", "[ch03][ex2][pts=4]") {
  nn::Sequential s = make_seq();
  grading::expect("children", names(s.named_children()));
  grading::expect("parameters", names(s.named_parameters()));
  grading::expect("size", static_cast<std::int64_t>(s.size()));
}

TEST_CASE("Sequential: forward chains the children", "[ch03][ex2][pts=4]") {
  nn::Sequential s = make_seq();
  set(s.at<nn::Linear>(0).weight, grading::input("w0"));
  set(s.at<nn::Linear>(0).bias, grading::input("b0"));
  set(s.at<nn::Linear>(2).weight, grading::input("w2"));
  set(s.at<nn::Linear>(2).bias, grading::input("b2"));
  grading::expect("seq(x)", s(grading::input("x")).detach());
}

TEST_CASE("Sequential: indexing, size and append", "[ch03][ex2][pts=3]") {
  nn::Sequential s = make_seq();
  grading::expect("seq[0]", s[0].type_name());
  grading::expect("seq[1]", s[1].type_name());
  grading::expect("seq[-1]", s[-1].type_name());
  grading::expect("seq[-3]", s[-3].type_name());
  s.append(nn::Tanh());
  grading::expect("size after append", static_cast<std::int64_t>(s.size()));
  grading::expect("seq[3] after append", s[3].type_name());
  grading::expect("children after append", names(s.named_children()));
  grading::expect_error("seq[4]", [&] { (void)s[4]; });
  grading::expect_error("seq[-5]", [&] { (void)s[-5]; });
}

TEST_CASE("Sequential: printed like PyTorch, and train/eval reach the children", "[ch03][ex2][pts=4]") {
  nn::Sequential s(nn::Linear(4, 3), nn::ReLU(), nn::Sequential(nn::Linear(3, 2, {.bias = false}), nn::Tanh()),
                   nn::Dropout(0.25));
  grading::expect("printed", s.to_string());
  auto flags = [&] {
    std::string v;
    for (auto& [name, m] : s.named_modules()) v += std::string(v.empty() ? "" : ",") + (m->is_training() ? "true" : "false");
    return v;
  };
  s.eval();
  grading::expect("training after eval()", flags());
  s.train();
  grading::expect("training after train()", flags());
  nn::ModuleList ml(nn::Linear(2, 2), nn::ReLU());
  ml.append(nn::Linear(2, 1));
  grading::expect("ModuleList children", names(ml.named_children()));
  grading::expect("ModuleList printed", ml.to_string());
}
