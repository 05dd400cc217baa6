// Instructor-only tests for chapter 4 (not in the student handout): randomised checks, so an answer tuned
// to the visible tests' inputs does not pass by luck.
#include <map>
#include <memory>
#include <sstream>

#include "ch04/ch04_grading.hpp"

using namespace ch04_grading;
using namespace std::chrono_literals;

TEST_CASE("ch04.ex1 (hidden): 30 random CSV files agree with CsvDataset", "[ch04][ex1][pts=2][hidden]") {
  TempDir dir;
  kd::Generator gen(1001);
  for (int i = 0; i < 30; ++i) {
    const std::int64_t rows = gen.randint(1, 60), features = gen.randint(1, 10);
    std::ostringstream s;
    for (std::int64_t f = 0; f < features; ++f) s << "f" << f << (gen.randint(0, 2) ? " , " : ",");
    s << "y\n";
    for (std::int64_t r = 0; r < rows; ++r) {
      for (std::int64_t f = 0; f < features; ++f) s << "\t" << static_cast<double>(gen.randint(-9999, 9999)) / 16 << ",";
      s << gen.randint(0, 100) << (gen.randint(0, 4) == 0 ? "\r\n" : "\n");
    }
    const std::string path = dir.write(std::to_string(i) + "_h.csv", s.str());
    INFO("file " << path);
    const kd::data::CsvDataset expected(path);
    const ex::CsvTable table(path);
    REQUIRE(table.size() == expected.size());
    REQUIRE(kd::equal(table.features(), expected.features()));
    REQUIRE(kd::equal(table.labels(), expected.labels()));
  }
}

TEST_CASE("ch04.ex2 (hidden): all 24 orders of 4 indices are equally likely", "[ch04][ex2][pts=2][hidden]") {
  kd::Generator gen(1002);
  std::map<std::vector<std::int64_t>, int> counts;
  const int draws = 24000;
  for (int i = 0; i < draws; ++i) ++counts[ex::shuffled_indices(4, gen)];
  REQUIRE(counts.size() == 24);
  for (const auto& [order, count] : counts) {
    INFO("order " << kd::shape_str(order) << " drawn " << count << " times (expected about 1000)");
    CHECK(count > 850);  // 1000 +- 4.8 standard deviations
    CHECK(count < 1150);
  }
}

TEST_CASE("ch04.ex3 (hidden): 200 random batches agree with DefaultCollate", "[ch04][ex3][pts=3][hidden]") {
  kd::Generator gen(1003);
  const kd::DType dtypes[] = {kd::kFloat32, kd::kFloat64, kd::kUInt8};
  for (int i = 0; i < 200; ++i) {
    const std::int64_t rank = gen.randint(0, 4), batch = gen.randint(1, 9);
    kd::Shape shape(static_cast<std::size_t>(rank));
    for (auto& s : shape) s = gen.randint(1, 5);
    const kd::DType dtype = dtypes[gen.randint(0, 3)];
    std::vector<kd::data::Example> samples;
    for (std::int64_t b = 0; b < batch; ++b)
      samples.push_back({random_image(shape, dtype, gen), kd::scalar_tensor(gen.randint(0, 10), {.dtype = kd::kInt64})});
    INFO("B " << batch << ", sample " << kd::shape_str(shape) << " " << kd::dtype_name(dtype));
    const kd::data::Example got = ex::collate(samples);
    const kd::data::Example expected = kd::data::DefaultCollate{}(std::vector<kd::data::Example>(samples));
    REQUIRE(got.data.shape() == expected.data.shape());
    REQUIRE(kd::equal(got.data, expected.data));
    REQUIRE(kd::equal(got.target, expected.target));
  }
}

namespace {
// A dataset whose get() applies a transform to a fixed image, like a real augmentation pipeline.
struct Augmented {
  kd::Tensor images;  // [N, 1, 6, 6]
  kd::data::transforms::Transform transform;
  std::int64_t size() const { return images.size(0); }
  kd::data::Example get(std::int64_t i) const {
    return {transform(images.select(0, i)), kd::scalar_tensor(i, {.dtype = kd::kInt64})};
  }
};
}  // namespace

TEST_CASE("ch04.ex4 (hidden): flip inside a 3-worker DataLoader gives the library's batches",
          "[ch04][ex4][pts=2][hidden][threads]") {
  kd::Generator gen(1004);
  const kd::Tensor images = random_image({50, 1, 6, 6}, kd::kFloat32, gen);
  Augmented mine{images, ex::RandomHorizontalFlip(0.5)};
  Augmented library{images, kd::data::transforms::RandomHorizontalFlip(0.5)};
  kd::data::DataLoader a(mine, {.batch_size = 8, .shuffle = true, .num_workers = 3, .seed = 9});
  kd::data::DataLoader b(library, {.batch_size = 8, .shuffle = true, .num_workers = 0, .seed = 9});
  std::vector<kd::Tensor> xa, xb;
  for (auto& [x, y] : a) xa.push_back(x);
  for (auto& [x, y] : b) xb.push_back(x);
  REQUIRE(xa.size() == xb.size());
  for (std::size_t i = 0; i < xa.size(); ++i) REQUIRE(kd::equal(xa[i], xb[i]));
}

TEST_CASE("ch04.ex5 (hidden): 150 random loaders: order, errors, early exits", "[ch04][ex5][pts=4][hidden][threads]") {
  kd::Generator gen(1005);
  for (int run = 0; run < 150; ++run) {
    const std::int64_t n = gen.randint(0, 25), workers = gen.randint(0, 7), capacity = gen.randint(1, 7);
    const std::int64_t bad = gen.randint(0, 2) == 0 ? gen.randint(0, n + 1) : -1;  // maybe a failing batch
    const std::int64_t stop = gen.randint(0, 3) == 0 ? gen.randint(0, n + 1) : n;  // maybe leave early
    INFO("run " << run << ": n " << n << ", workers " << workers << ", capacity " << capacity << ", bad " << bad
                << ", stop after " << stop);
    auto loads = std::make_shared<std::vector<std::atomic<int>>>(static_cast<std::size_t>(n));
    std::vector<int> delay(static_cast<std::size_t>(n));
    for (auto& d : delay) d = static_cast<int>(gen.randint(0, 400));
    {
      ex::PrefetchLoader loader(n, [loads, delay, bad](std::int64_t k) {
        ++(*loads)[static_cast<std::size_t>(k)];
        std::this_thread::sleep_for(std::chrono::microseconds(delay[static_cast<std::size_t>(k)]));
        if (k == bad) throw std::runtime_error("bad batch");
        return kd::data::Example{kd::full({1}, static_cast<double>(k)), kd::scalar_tensor(k, {.dtype = kd::kInt64})};
      }, {.num_workers = workers, .capacity = capacity});
      for (std::int64_t k = 0; k < stop; ++k) {
        if (k == bad) {
          REQUIRE_THROWS_AS(loader.next(), std::runtime_error);
          break;
        }
        auto b = loader.next();
        REQUIRE(b.has_value());
        REQUIRE(b->target.item<std::int64_t>() == k);
      }
      if (stop == n && (bad < 0 || bad >= n)) REQUIRE_FALSE(loader.next().has_value());
    }
    for (std::int64_t k = 0; k < n; ++k) REQUIRE((*loads)[static_cast<std::size_t>(k)] <= 1);
  }
}
