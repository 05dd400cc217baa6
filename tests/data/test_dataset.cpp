// Datasets and samplers.
#include <catch2/catch.hpp>

#include <set>

#include "data/data_test_utils.hpp"

namespace kd = kindling;

static_assert(kd::data::Dataset<kd::data::TensorDataset>);
static_assert(kd::data::Dataset<kd::data::FashionMNIST>);
static_assert(kd::data::Dataset<kd::data::ImageFolder>);
static_assert(kd::data::Dataset<kd::data::Subset<kd::data::TensorDataset>>);

TEST_CASE("TensorDataset: rows of data and targets, views, errors") {
  kd::Tensor x = kd::rand({5, 3});
  kd::Tensor y = kd::arange(0, 5);
  kd::data::TensorDataset ds(x, y);
  CHECK(ds.size() == 5);
  auto [row, label] = ds.get(2);
  CHECK(kd::equal(row, x[2]));
  CHECK(row.shares_storage(x));  // a view, no copy
  CHECK(label.item<std::int64_t>() == 2);
  CHECK_THROWS_AS(ds.get(5), kd::IndexError);
  CHECK_THROWS_AS(ds.get(-1), kd::IndexError);
  CHECK_THROWS_AS(kd::data::TensorDataset(x, kd::arange(0, 4)), kd::ShapeError);
}

TEST_CASE("Subset and random_split: disjoint, complete, reproducible with a generator") {
  kd::data::TensorDataset ds(kd::rand({10, 2}), kd::arange(0, 10));
  kd::Generator g1(42), g2(42), g3(43);
  auto a = kd::data::random_split(ds, {7, 3}, &g1);
  auto b = kd::data::random_split(ds, {7, 3}, &g2);
  auto c = kd::data::random_split(ds, {7, 3}, &g3);
  REQUIRE(a.size() == 2);
  CHECK(a[0].size() == 7);
  CHECK(a[1].size() == 3);
  CHECK(a[0].indices() == b[0].indices());
  CHECK(a[0].indices() != c[0].indices());
  std::set<std::int64_t> all;
  for (auto& part : a)
    for (std::int64_t i = 0; i < part.size(); ++i) all.insert(part.get(i).target.item<std::int64_t>());
  CHECK(all.size() == 10);
  CHECK_THROWS_AS(kd::data::random_split(ds, {5, 4}), kd::ValueError);
  kd::data::Subset sub(ds, {9, 0});
  CHECK(sub.get(0).target.item<std::int64_t>() == 9);
  CHECK_THROWS_AS(kd::data::Subset(ds, {10}), kd::IndexError);
}

TEST_CASE("ConcatDataset and AnyDataset: samples of several datasets in a row") {
  kd::data::TensorDataset a(kd::zeros({2, 1}), kd::arange(0, 2));
  kd::data::TensorDataset b(kd::ones({3, 1}), kd::arange(10, 13));
  kd::data::ConcatDataset both({a, b});
  CHECK(both.size() == 5);
  CHECK(both.get(1).target.item<std::int64_t>() == 1);
  CHECK(both.get(2).target.item<std::int64_t>() == 10);
  CHECK(both.get(4).target.item<std::int64_t>() == 12);
  CHECK_THROWS_AS(both.get(5), kd::IndexError);
  struct Virtual : kd::data::DatasetBase<> {
    std::int64_t size() const override { return 1; }
    kd::data::Example get(std::int64_t) const override { return {kd::zeros({1}), kd::scalar_tensor(7)}; }
  };
  kd::data::ConcatDataset mixed(std::vector<kd::data::AnyDataset<>>{std::make_shared<Virtual>(), std::make_shared<Virtual>()});
  CHECK(mixed.size() == 2);
  CHECK(mixed.get(1).target.item<std::int64_t>() == 7);
  // PyTorch: "datasets should not be an empty iterable"
  CHECK_THROWS_AS(kd::data::ConcatDataset(std::vector<kd::data::TensorDataset>{}), kd::ValueError);
}

TEST_CASE("Samplers: sequential, random with and without replacement, batches") {
  kd::Generator g(0);
  CHECK(kd::data::SequentialSampler(4).indices(g) == std::vector<std::int64_t>{0, 1, 2, 3});
  auto perm = kd::data::RandomSampler(20).indices(g);
  CHECK(std::set<std::int64_t>(perm.begin(), perm.end()).size() == 20);
  auto more = kd::data::RandomSampler(5, {.num_samples = 12}).indices(g);  // several permutations
  CHECK(more.size() == 12);
  std::set<std::int64_t> first5(more.begin(), more.begin() + 5);
  CHECK(first5.size() == 5);
  auto repl = kd::data::RandomSampler(3, {.replacement = true, .num_samples = 100}).indices(g);
  CHECK(repl.size() == 100);
  CHECK(std::set<std::int64_t>(repl.begin(), repl.end()).size() == 3);
  for (auto i : repl) CHECK((i >= 0 && i < 3));
  kd::Generator a(5), b(5);
  CHECK(kd::data::RandomSampler(50).indices(a) == kd::data::RandomSampler(50).indices(b));
  kd::data::BatchSampler bs(std::make_shared<kd::data::SequentialSampler>(10), 4, false);
  CHECK(bs.size() == 3);
  auto batches = bs.batches(g);
  CHECK(batches.back() == std::vector<std::int64_t>{8, 9});
  CHECK(kd::data::BatchSampler(std::make_shared<kd::data::SequentialSampler>(10), 4, true).size() == 2);
  CHECK_THROWS_AS(kd::data::RandomSampler(5, {.num_samples = 0}), kd::ValueError);
  // An empty dataset cannot be shuffled (PyTorch: num_samples=0 is not a positive integer).
  CHECK_THROWS_AS(kd::data::RandomSampler(0), kd::ValueError);
  CHECK_THROWS_AS(kd::data::RandomSampler(0, {.replacement = true}), kd::ValueError);
}

TEST_CASE("current_generator: default outside a guard, per-sample inside, nested guards restore") {
  CHECK(&kd::data::current_generator() == &kd::default_generator());
  double a, b;
  {
    kd::data::SampleGeneratorGuard g(5);
    a = kd::data::current_generator().uniform();
    {
      kd::data::SampleGeneratorGuard inner(6);
      CHECK(&kd::data::current_generator() != &kd::default_generator());
    }
    b = kd::data::current_generator().uniform();
  }
  kd::Generator ref(5);
  CHECK(a == ref.uniform());
  CHECK(b == ref.uniform());  // the inner guard did not disturb the outer stream
  CHECK(&kd::data::current_generator() == &kd::default_generator());
  CHECK(!kd::data::get_worker_info().has_value());
}
