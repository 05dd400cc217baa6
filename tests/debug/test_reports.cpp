// The gradient report and the data scan: their flags fire on planted faults and stay quiet on
// clean data.
#include <catch2/catch.hpp>
#include <kindling/kindling.hpp>

#include <cmath>

namespace kd = kindling;
using kd::Tensor;
namespace dbg = kd::debug;

TEST_CASE("grad_report: statistics, and the vanishing / exploding / non-finite flags") {
  kd::manual_seed(0);
  kd::nn::Sequential net;
  net.append(kd::nn::Linear(4, 3));
  net.append(kd::nn::Linear(3, 2));
  Tensor x = kd::randn({5, 4});
  (net(x).sum() * 1000.0).backward();
  auto r = dbg::grad_report(net);
  REQUIRE(r.parameters.size() == 4);
  CHECK(r.parameters[0].name == "0.weight");
  CHECK(r.any_exploding());
  CHECK_FALSE(r.any_vanishing());
  double sq = 0;
  for (const auto& p : r.parameters) sq += p.grad.norm * p.grad.norm;
  CHECK(r.total_grad_norm == Approx(std::sqrt(sq)));
  const Tensor g = net.parameters()[0].grad();
  CHECK(r.parameters[0].grad.norm == Approx((g * g).sum().sqrt().item<float>()).epsilon(1e-5));
  net.zero_grad(true);
  r = dbg::grad_report(net);
  CHECK(r.any_vanishing());
  CHECK(r.to_string().find("no-grad") != std::string::npos);
  net.parameters()[1].set_grad(kd::full({3}, std::nan("")));
  CHECK(dbg::grad_report(net).any_nonfinite());
}

TEST_CASE("scan: clean data has no problems") {
  kd::manual_seed(0);
  Tensor x = kd::rand({40, 2, 3});
  std::vector<std::int64_t> labels;
  for (int i = 0; i < 40; ++i) labels.push_back(i % 4);
  Tensor y = kd::tensor(labels, {40});
  const auto r = dbg::scan(kd::data::TensorDataset(x, y), {.num_classes = 4});
  INFO(r.to_string());
  CHECK(r.problems.empty());
  CHECK(r.channels.size() == 2);
  CHECK(r.class_counts == std::vector<std::int64_t>{10, 10, 10, 10});
  CHECK(r.shown.size() == 3);
}

TEST_CASE("scan: NaN, unscaled values, labels off by one, imbalance and duplicates are reported") {
  kd::manual_seed(0);
  Tensor x = kd::rand({40, 3});
  float* p = x.data_ptr<float>();
  p[7 * 3] = std::nanf("");
  for (int k = 0; k < 3; ++k) p[12 * 3 + k] = p[5 * 3 + k];  // sample 12 = sample 5
  p[1] = 255.f;
  std::vector<std::int64_t> labels(40, 1);
  labels[0] = 4;  // labels 1..4 for 4 classes, class 1 has 36 samples, class 2 one
  labels[1] = 2;
  labels[2] = labels[3] = 3;
  const auto r = dbg::scan(kd::data::TensorDataset(x, kd::tensor(labels, {40})), {.num_classes = 4});
  const std::string text = r.to_string();
  INFO(text);
  CHECK(r.samples_with_nan == 1);
  CHECK(r.first_bad == std::vector<std::int64_t>{7});
  CHECK(r.duplicates == 1);
  CHECK(text.find("off by one") != std::string::npos);
  CHECK(text.find("not scaled") != std::string::npos);
  CHECK(text.find("without a sample: 0") != std::string::npos);
  CHECK(text.find("imbalanced") != std::string::npos);
}

TEST_CASE("scan: a Fashion-MNIST subset through ToTensor is clean") {
  auto train = kd::data::FashionMNIST(kd::data::Split::Train, kd::data::transforms::ToTensor());
  const auto r = dbg::scan(train, {.max_samples = 2000, .num_classes = 10});
  INFO(r.to_string());
  CHECK(r.problems.empty());
  CHECK(r.channels.size() == 1);
  CHECK(r.channels[0].max <= 1.0);
}
