// Logging: the per-epoch line, CSV / JSON-lines history (parsed back), and a progress
// bar that stays silent when stdout is not a terminal.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <unistd.h>

#include "train/train_test_utils.hpp"

namespace train = kindling::train;
using Catch::Contains;
using kdtest::TempDir;

namespace {
std::string read_text(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

train::TrainingLog sample_log(std::FILE* sink) {
  train::TrainingLog log(3);
  log.log({.epoch = 1, .lr = 1e-3, .train_loss = 0.75, .val_loss = 0.5, .val_accuracy = 0.8125, .seconds = 1.5}, sink);
  log.log({.epoch = 2, .lr = 1e-4, .train_loss = 0.25, .seconds = 1.25}, sink);  // no validation this epoch
  return log;
}
}  // namespace

TEST_CASE("logging: one line per epoch, leaving out what was not measured") {
  TempDir dir;
  std::FILE* f = std::fopen((dir / "out.txt").c_str(), "w");
  REQUIRE(f);
  auto log = sample_log(f);
  std::fclose(f);
  const std::string text = read_text(dir / "out.txt");
  CHECK_THAT(text, Contains("Epoch [1/3]") && Contains("train 0.7500") && Contains("val 0.5000") &&
                       Contains("acc 81.25%"));
  const std::string second = text.substr(text.find("Epoch [2/3]"));
  CHECK(second.find("val") == std::string::npos);
  CHECK(log.history().size() == 2);
}

TEST_CASE("logging: the CSV history has a header and one row per epoch") {
  TempDir dir;
  std::FILE* sink = std::fopen("/dev/null", "w");
  auto log = sample_log(sink);
  std::fclose(sink);
  log.write_csv(dir / "history.csv");
  std::istringstream in(read_text(dir / "history.csv"));
  std::string header, row1, row2, extra;
  std::getline(in, header);
  std::getline(in, row1);
  std::getline(in, row2);
  CHECK_FALSE(std::getline(in, extra));
  CHECK(header ==
        "epoch,lr,train_loss,val_loss,val_accuracy,seconds,peak_rss_mb,tensor_mb,data_seconds,compute_seconds,"
        "val_seconds,input_shape,output_shape,data_summary");
  CHECK(row1.rfind("1,0.001,0.75,0.5,0.8125,1.5,", 0) == 0);
  CHECK(row2.rfind("2,0.0001,0.25,", 0) == 0);
}

TEST_CASE("logging: JSON lines parse back, with null for missing values") {
  TempDir dir;
  std::FILE* sink = std::fopen("/dev/null", "w");
  auto log = sample_log(sink);
  std::fclose(sink);
  log.write_jsonl(dir / "history.jsonl");
  std::istringstream in(read_text(dir / "history.jsonl"));
  std::string line;
  std::vector<nlohmann::json> rows;
  while (std::getline(in, line)) rows.push_back(nlohmann::json::parse(line));
  REQUIRE(rows.size() == 2);
  CHECK(rows[0]["epoch"] == 1);
  CHECK(rows[0]["val_accuracy"].get<double>() == 0.8125);
  CHECK(rows[1]["val_loss"].is_null());  // NaN is not JSON
  CHECK(rows[1]["lr"].get<double>() == Approx(1e-4));
}

TEST_CASE("logging: phases, shapes and a data summary, in the line and in both histories") {
  TempDir dir;
  // a batch of 4 images [4, 1, 2, 2] with one NaN, labels 0, 2, 2, 7
  kindling::Tensor x = kindling::arange(0, 16, 1, {.dtype = kindling::kFloat32}).view({4, 1, 2, 2});
  x.data_ptr<float>()[5] = std::nanf("");
  const kindling::Tensor y = kindling::tensor({0, 2, 2, 7}).to(kindling::kInt64);
  const std::string summary = train::describe_batch(x, y);
  // the 15 finite values, 0..15 without 5: their mean and std (torch.std's n - 1) by the tensor ops
  const kindling::Tensor finite =
      kindling::cat({kindling::arange(0, 5, 1, {.dtype = kindling::kFloat64}),
                     kindling::arange(6, 16, 1, {.dtype = kindling::kFloat64})}, 0);
  char want[160];
  std::snprintf(want, sizeof want, "x float32 min 0.000 max 15.000 mean %.3f std %.3f nan/inf 1 | y int64 0..7, 3 distinct",
                finite.mean().item<double>(), finite.std().item<double>());
  CHECK(summary == want);
  CHECK(train::shape_string(x) == "[4, 1, 2, 2]");
  CHECK(train::shape_string(kindling::tensor(1.0)) == "[]");
  CHECK_THROWS_AS(train::describe_batch(y), kindling::DTypeError);

  train::TrainingLog log(2);
  std::FILE* f = std::fopen((dir / "out.txt").c_str(), "w");
  REQUIRE(f);
  train::EpochRecord r{.epoch = 1, .lr = 0.1, .train_loss = 0.5, .seconds = 2.0};
  r.data_seconds = 0.25;
  r.compute_seconds = 1.5;
  r.val_seconds = 0.25;
  r.input_shape = train::shape_string(x);
  r.output_shape = "[4, 10]";
  r.data_summary = "say \"hi\", twice";  // quotes and commas survive CSV and JSON
  log.log(r, f);
  r.epoch = 2;
  log.log(r, f);  // the same shapes and data: not printed again
  std::fclose(f);
  const std::string text = read_text(dir / "out.txt");
  CHECK_THAT(text, Contains("  phases: data 0.25 s, compute 1.50 s, val 0.25 s\n"));
  CHECK_THAT(text, Contains("  batch [4, 1, 2, 2] -> [4, 10]\n"));
  CHECK(text.find("batch [4") == text.rfind("batch [4"));
  CHECK(text.find("  data: ") == text.rfind("  data: "));

  log.write_jsonl(dir / "h.jsonl");
  std::istringstream in(read_text(dir / "h.jsonl"));
  std::string line;
  std::getline(in, line);
  const auto row = nlohmann::json::parse(line);
  CHECK(row["compute_seconds"].get<double>() == 1.5);
  CHECK(row["input_shape"] == "[4, 1, 2, 2]");
  CHECK(row["data_summary"] == "say \"hi\", twice");
  log.write_csv(dir / "h.csv");
  const std::string csv = read_text(dir / "h.csv");
  CHECK_THAT(csv, Contains(",0.25,1.5,0.25,\"[4, 1, 2, 2]\",\"[4, 10]\",\"say \"\"hi\"\", twice\"\n"));
}

TEST_CASE("logging: writing into a missing folder fails with the path in the message") {
  train::TrainingLog log;
  CHECK_THROWS_WITH(log.write_csv("/nonexistent-folder/h.csv"), Contains("/nonexistent-folder/h.csv"));
}

TEST_CASE("logging: the progress bar draws nothing when stdout is not a terminal") {
  TempDir dir;
  // Point stdout at a file for the duration of the test (what CI and the book build do).
  std::fflush(stdout);
  const int saved = ::dup(STDOUT_FILENO);
  REQUIRE(saved >= 0);
  std::FILE* f = std::fopen((dir / "stdout.txt").c_str(), "w");
  REQUIRE(f);
  ::dup2(::fileno(f), STDOUT_FILENO);
  bool enabled = true;
  {
    train::ProgressBar bar(100, "epoch 1");
    enabled = bar.enabled();
    for (int i = 1; i <= 100; ++i) bar.update(i, "loss 0.5");
    bar.close();
  }
  std::fflush(stdout);
  ::dup2(saved, STDOUT_FILENO);
  ::close(saved);
  std::fclose(f);
  CHECK_FALSE(enabled);
  CHECK(read_text(dir / "stdout.txt").empty());
  // And asked not to draw even on a terminal, it stays off.
  CHECK_FALSE(train::ProgressBar(10, "x", false).enabled());
}

TEST_CASE("logging: peak_rss_mb reads a plausible number") {
  const double mb = train::peak_rss_mb();
  CHECK(mb > 1);
  CHECK(mb < 64 * 1024);
}
