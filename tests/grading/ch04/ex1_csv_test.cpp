// ch04.ex1 — CsvTable: the same tensors as the library's CsvDataset, views from get(), errors with line numbers.
#include <sstream>

#include "ch04_grading.hpp"

using namespace ch04_grading;

namespace {
// A random CSV text: `rows` rows of `features` numbers in assorted spellings (exactly representable in
// float32, so any correct parser agrees bit for bit) and an integer label; blank lines and odd spacing.
std::string random_csv(kd::Generator& gen, std::int64_t rows, std::int64_t features, bool crlf) {
  const std::string eol = crlf ? "\r\n" : "\n";
  std::ostringstream s;
  for (std::int64_t f = 0; f < features; ++f) s << "x" << f << ",";
  s << "label" << eol;
  for (std::int64_t r = 0; r < rows; ++r) {
    if (gen.randint(0, 8) == 0) s << eol;  // a blank line in the middle
    for (std::int64_t f = 0; f < features; ++f) {
      const std::int64_t k = gen.randint(-4000, 4000);
      switch (gen.randint(0, 4)) {
        case 0: s << k; break;                           // "-17"
        case 1: s << static_cast<double>(k) / 8; break;  // "3.125"
        case 2: s << " " << static_cast<double>(k) / 4 << " "; break;  // spaces around a field
        default: s << static_cast<double>(k) * 10 << "e-1"; break;     // "125e-1"
      }
      s << ",";
    }
    const std::int64_t label = gen.randint(0, 10);
    if (gen.randint(0, 5) == 0) s << label << ".0";  // a whole number written as a float
    else s << label;
    s << eol;
  }
  if (gen.randint(0, 2) == 0) s << eol;  // trailing blank line
  return s.str();
}

void compare_with_library(const std::string& path) {
  INFO("file " << path);
  const kd::data::CsvDataset expected(path);
  const ex::CsvTable table(path);
  REQUIRE(table.size() == expected.size());
  REQUIRE(table.features().defined());
  REQUIRE(table.features().dtype() == kd::kFloat32);
  REQUIRE(table.labels().dtype() == kd::kInt64);
  INFO("features " << kd::shape_str(table.features().shape()) << ", expected "
                   << kd::shape_str(expected.features().shape()));
  REQUIRE(table.features().shape() == expected.features().shape());
  REQUIRE(kd::equal(table.features(), expected.features()));
  REQUIRE(kd::equal(table.labels(), expected.labels()));
}
}  // namespace

TEST_CASE("ch04.ex1: CsvTable reads the same features and labels as CsvDataset", "[ch04][ex1][pts=5]") {
  TempDir dir;
  kd::Generator gen(41);
  for (int i = 0; i < 12; ++i) {
    const std::int64_t rows = gen.randint(1, 40), features = gen.randint(1, 7);
    compare_with_library(dir.write(std::to_string(i) + "_t.csv", random_csv(gen, rows, features, i % 3 == 2)));
  }
}

TEST_CASE("ch04.ex1: get(i) returns views of row i, IndexError out of range", "[ch04][ex1][pts=3]") {
  TempDir dir;
  kd::Generator gen(42);
  const std::string path = dir.write("rows.csv", random_csv(gen, 9, 4, false));
  const kd::data::CsvDataset expected(path);
  const ex::CsvTable table(path);
  static_assert(kd::data::Dataset<ex::CsvTable>, "CsvTable must satisfy the Dataset concept");
  for (std::int64_t i = 0; i < table.size(); ++i) {
    INFO("row " << i);
    auto [x, y] = table.get(i);
    auto [ex_x, ex_y] = expected.get(i);
    REQUIRE(x.shape() == ex_x.shape());
    REQUIRE(y.dim() == 0);
    CHECK(kd::equal(x, ex_x));
    CHECK(kd::equal(y, ex_y));
    CHECK(x.shares_storage(table.features()));  // a view: no copy per sample
  }
  CHECK_THROWS_AS(table.get(table.size()), kd::IndexError);
  CHECK_THROWS_AS(table.get(-1 - table.size()), kd::IndexError);
  // It works as a Dataset: a DataLoader batches it.
  kd::data::DataLoader loader(table, {.batch_size = 4});
  std::int64_t rows = 0;
  for (auto& [xb, yb] : loader) rows += xb.size(0);
  CHECK(rows == table.size());
}

TEST_CASE("ch04.ex1: errors say what is wrong and where", "[ch04][ex1][pts=7]") {
  TempDir dir;
  auto expect_io_error = [&](const std::string& text, const std::vector<std::string>& must_mention) {
    const std::string path = dir.write("bad.csv", text);
    INFO("file:\n" << text);
    try {
      ex::CsvTable table(path);
      FAIL("no exception for a bad file");
    } catch (const kd::IOError& e) {
      for (const auto& part : must_mention) {
        INFO("message: " << e.what() << "\nshould mention: " << part);
        CHECK(message_has(e, part));
      }
    }
  };
  // The bad row is planted at a known line (the header is line 1).
  expect_io_error("a,b,label\n1,2,0\n3,4,1\n5,6\n", {"line 4"});                 // too few fields
  expect_io_error("a,b,label\n1,2,0\n3,4,1,7\n", {"line 3"});                     // too many fields
  expect_io_error("alpha,beta,label\n1,2,0\n1,oops,1\n", {"line 3", "beta", "oops"});  // not a number
  expect_io_error("alpha,beta,label\n1,,0\n", {"line 2", "beta"});                 // empty field
  expect_io_error("a,b,label\n1,2,0\n\n3,4,1.5\n", {"line 4"});                   // label not whole
  expect_io_error("", {"bad.csv"});                                               // empty file
  expect_io_error("a,b,label\n", {"bad.csv"});                                    // header only
  const std::string missing = (dir.path / "no-such-file.csv").string();
  try {
    ex::CsvTable table(missing);
    FAIL("no exception for a missing file");
  } catch (const kd::IOError& e) {
    INFO("message: " << e.what());
    CHECK(message_has(e, "no-such-file.csv"));
  }
}
