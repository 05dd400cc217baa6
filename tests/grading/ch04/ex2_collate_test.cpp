// ch04.ex2 — data::collate_tensors: a batch's samples stacked, against torch.stack.
#include "ch04_grading.hpp"

using namespace ch04_grading;

TEST_CASE("collate: samples into a batch", "[ch04][ex2][pts=4]") {
  std::vector<kd::Tensor> xs;
  for (int k = 0; k < 5; ++k) xs.push_back(grading::input("x" + std::to_string(k)));
  grading::expect("collate_tensors(x0..x4)", data::collate_tensors(xs));
  grading::expect("collate_tensors(x0)", data::collate_tensors({xs[0]}));
}

TEST_CASE("collate: views, 0-d samples and every dtype", "[ch04][ex2][pts=6]") {
  const kd::Tensor a = grading::input("a"), b = grading::input("b"), i = grading::input("i");
  const kd::Tensor u = grading::input("u"), m = grading::input("m"), d = grading::input("d");
  grading::expect("collate_tensors({a.t(), b.t()})", data::collate_tensors({a.t(), b.t()}));
  grading::expect("collate_tensors({a[:, ::2], b[:, ::2]})", data::collate_tensors({a.slice(1, 0, 3, 2), b.slice(1, 0, 3, 2)}));
  std::vector<kd::Tensor> labels;
  for (std::int64_t k = 0; k < 6; ++k) labels.push_back(i[k]);
  grading::expect("0-d labels i[0..5]", data::collate_tensors(labels));
  grading::expect("uint8 rows of u", data::collate_tensors({u[0], u[1]}));
  grading::expect("bool rows of m", data::collate_tensors({m[0], m[1], m[2]}));
  grading::expect("float64 rows of d", data::collate_tensors({d[0], d[1]}));
}

TEST_CASE("collate: samples that differ are refused", "[ch04][ex2][pts=4]") {
  const kd::Tensor a = grading::input("a"), b = grading::input("b"), c = grading::input("c");
  grading::expect_error("{a, b} (shapes differ)", [&] { (void)data::collate_tensors({a, b}); });
  grading::expect_error("{a, c} (dtypes differ)", [&] { (void)data::collate_tensors({a, c}); });
  grading::expect_error("{} (no samples)", [&] { (void)data::collate_tensors({}); });
}

TEST_CASE("collate: a DataLoader's batches", "[ch04][ex2][pts=6]") {
  data::TensorDataset ds(grading::input("x"), grading::input("y"));
  data::DataLoader loader(ds, {.batch_size = 4});
  int k = 0;
  for (auto& [x, y] : loader) {
    grading::expect("batch " + std::to_string(k) + ": data", x);
    grading::expect("batch " + std::to_string(k) + ": targets", y);
    ++k;
  }
}
