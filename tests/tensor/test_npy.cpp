// .npy: round trips through real NumPy, and a catalogue of broken files that must be refused.
#include <catch2/catch.hpp>
#include <sys/stat.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <kindling/tensor.hpp>

#include "torch_oracle.hpp"

namespace kd = kindling;
using Catch::Contains;

namespace {

std::string read_bytes(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), {});
}
void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

// Bit-exact comparison of two tensors (dtype, shape, every value).
void check_same(const kd::Tensor& a, const kd::Tensor& b) {
  REQUIRE(a.dtype() == b.dtype());
  REQUIRE(a.shape() == b.shape());
  if (a.dtype() == kd::kFloat64 || a.dtype() == kd::kFloat32) {
    auto va = a.to_vector<double>(), vb = b.to_vector<double>();
    // memcmp must not see the null data() of an empty vector (UB even for 0 bytes; UBSan stops here).
    CHECK((va.empty() || std::memcmp(va.data(), vb.data(), va.size() * sizeof(double)) == 0));
  } else {
    CHECK(a.to_vector<std::int64_t>() == b.to_vector<std::int64_t>());
  }
}

}  // namespace

TEST_CASE("npy: NumPy reads what save_npy writes (dtype, shape, values) and we read what NumPy writes") {
  kd::testing::TempDir dir;
  kd::manual_seed(21);
  std::vector<kd::Tensor> tensors = {
      kd::randn({3, 4}),
      kd::randn({2, 3, 5}, {.dtype = kd::kFloat64}),
      kd::randint(-1000000, 1000000, {7}),
      kd::randint(0, 256, {4, 4}, {.dtype = kd::kUInt8}),
      kd::randint(0, 2, {5, 2}, {.dtype = kd::kBool}),
      kd::randn({}),
      kd::zeros({0, 3}),
      kd::randn({4, 6}).t(),  // non-contiguous: saved in C order
      kd::randn({1, 1, 1, 1, 3}),
  };
  std::vector<std::string> exprs;
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    const std::string ours = dir.file("ours" + std::to_string(i) + ".npy");
    kd::save_npy(tensors[i], ours);
    // NumPy loads ours, checks it against the raw bytes we expect, and writes it back three ways:
    // plain, Fortran order and format version 2.0 / 3.0.
    exprs.push_back("check(" + std::to_string(i) + ", '" + ours + "')");
  }
  const std::string setup = R"(
import numpy.lib.format as fmt
def check(i, path):
    a = np.load(path)
    base = path.replace('ours', 'theirs')
    np.save(base + '.plain.npy', a)
    np.save(base + '.fortran.npy', np.array(a, order='F'))
    with open(base + '.v2.npy', 'wb') as f:
        fmt.write_array(f, a, version=(2, 0))
    with open(base + '.v3.npy', 'wb') as f:
        fmt.write_array(f, a, version=(3, 0))
    return a.dtype.str + '|' + ' '.join(map(str, a.shape)) + '|' + str(a.flags['C_CONTIGUOUS'])
)";
  const auto answers = kd::testing::python_eval(exprs, setup);
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    const kd::Tensor& t = tensors[i];
    INFO("tensor " << i << " " << t.to_string());
    const char* descr = t.dtype() == kd::kFloat32   ? "<f4"
                        : t.dtype() == kd::kFloat64 ? "<f8"
                        : t.dtype() == kd::kInt64   ? "<i8"
                        : t.dtype() == kd::kUInt8   ? "|u1"
                                                    : "|b1";
    CHECK(answers[i] == std::string(descr) + "|" + kd::testing::join(t.shape()) + "|True");
    const std::string base = dir.file("theirs" + std::to_string(i) + ".npy");
    for (const char* kind : {".plain.npy", ".fortran.npy", ".v2.npy", ".v3.npy"}) {
      INFO(kind);
      check_same(kd::load_npy(base + kind), t);
    }
    check_same(kd::load_npy(dir.file("ours" + std::to_string(i) + ".npy")), t);
  }
}

TEST_CASE("npy: NumPy's values arrive exactly (compared in Python)") {
  kd::testing::TempDir dir;
  const std::string in = dir.file("in.npy"), out = dir.file("out.npy");
  kd::testing::run_python("import numpy as np\nnp.save('" + in + "', (np.arange(24, dtype=np.float64) / 7).reshape(2, 3, 4).transpose(1, 0, 2))\n");
  kd::Tensor t = kd::load_npy(in);
  CHECK(t.shape() == kd::Shape{3, 2, 4});
  kd::save_npy(t.permute({2, 1, 0}), out);
  const auto same = kd::testing::python_eval(
      {"np.array_equal(np.load('" + out + "'), (np.arange(24, dtype=np.float64) / 7).reshape(2, 3, 4).transpose(2, 0, 1))"});
  CHECK(same[0] == "True");
}

TEST_CASE("npy: save is atomic (no temporary left behind, old file replaced whole)") {
  kd::testing::TempDir dir;
  const std::string path = dir.file("x.npy");
  kd::save_npy(kd::zeros({1000}), path);
  kd::save_npy(kd::ones({3}), path);
  CHECK(kd::load_npy(path).shape() == kd::Shape{3});
  const auto files = std::distance(std::filesystem::directory_iterator(dir.path()), {});
  CHECK(files == 1);
  CHECK_THROWS_AS(kd::save_npy(kd::zeros({2}), dir.file("no/such/folder/x.npy")), kd::IOError);
}

TEST_CASE("npy: a save keeps the replaced file's mode, honours the umask, and writes through a symlink") {
  kd::testing::TempDir dir;
  namespace fs = std::filesystem;
  const std::string path = dir.file("x.npy");
  const mode_t old_mask = ::umask(077);  // a new file: 0666 minus this umask
  kd::save_npy(kd::zeros({2}), path);
  ::umask(old_mask);
  CHECK((fs::status(path).permissions() & fs::perms::all) == (fs::perms::owner_read | fs::perms::owner_write));
  fs::permissions(path, fs::perms::owner_all | fs::perms::group_read);  // 0740: the replacement keeps it
  kd::save_npy(kd::ones({3}), path);
  CHECK((fs::status(path).permissions() & fs::perms::all) == (fs::perms::owner_all | fs::perms::group_read));

  // Through a link (relative, as `ln -s x.npy link.npy` makes): the target changes, the link stays.
  const std::string link = dir.file("link.npy");
  fs::create_symlink("x.npy", link);
  kd::save_npy(kd::ones({5}), link);
  CHECK(fs::is_symlink(fs::symlink_status(link)));
  CHECK(kd::load_npy(path).shape() == kd::Shape{5});
  // A dangling link: the save creates the file it names.
  const std::string dangling = dir.file("dangling.npy");
  fs::create_symlink("made.npy", dangling);
  kd::save_npy(kd::ones({4}), dangling);
  CHECK(fs::is_symlink(fs::symlink_status(dangling)));
  CHECK(kd::load_npy(dir.file("made.npy")).shape() == kd::Shape{4});
  // A loop of links is refused with its name.
  fs::create_symlink("loop_b", dir.file("loop_a"));
  fs::create_symlink("loop_a", dir.file("loop_b"));
  CHECK_THROWS_WITH(kd::save_npy(kd::ones({1}), dir.file("loop_a")), Catch::Contains("loop of symbolic links"));
}

TEST_CASE("npy: corrupt and foreign files are refused with IOError naming the file and the problem") {
  kd::testing::TempDir dir;
  const std::string good_path = dir.file("good.npy");
  kd::save_npy(kd::arange(12).reshape({3, 4}).to(kd::kFloat32), good_path);
  const std::string good = read_bytes(good_path);
  const std::size_t header_end = good.find('\n') + 1;  // data starts here (v1.0)
  const std::string header = good.substr(10, header_end - 10);

  // Rewrites the header text (keeping the file layout valid) to test header parsing.
  auto with_header = [&](std::string h) {
    h.resize(header.size() - 1, ' ');
    h += '\n';
    return good.substr(0, 10) + h + good.substr(header_end);
  };

  struct Bad {
    std::string name, bytes, problem;
  };
  std::vector<Bad> catalogue = {
      {"empty", "", "empty"},
      {"text", "hello, world\n", "not a .npy file"},
      {"bad_magic", "\x93NUMPX" + good.substr(6), "not a .npy file"},
      {"short_preamble", good.substr(0, 8), "truncated"},
      {"bad_version", good.substr(0, 6) + "\x04" + good.substr(7), "version 4.0"},
      {"header_past_end", good.substr(0, 8) + "\xff\xff" + good.substr(10, 30), "truncated"},
      {"truncated_data", good.substr(0, good.size() - 5), "truncated"},
      {"no_data", good.substr(0, header_end), "truncated"},
      {"extra_data", good + "abcd", "extra data"},
      {"no_newline", good.substr(0, header_end - 1) + " " + good.substr(header_end), "newline"},
      {"garbled_header", with_header("{'descr' '<f4', 'fortran_order': False, 'shape': (3, 4), }"), "bad header"},
      {"not_a_dict", with_header("[1, 2, 3]"), "bad header"},
      {"missing_shape", with_header("{'descr': '<f4', 'fortran_order': False, }"), "'shape'"},
      {"unknown_key", with_header("{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), 'x': 1}"),
       "unexpected key 'x'"},
      {"bad_shape", with_header("{'descr': '<f4', 'fortran_order': False, 'shape': (3, -4), }"), "'shape'"},
      {"bad_bool", with_header("{'descr': '<f4', 'fortran_order': 0, 'shape': (3, 4), }"), "True or False"},
      {"complex", with_header("{'descr': '<c8', 'fortran_order': False, 'shape': (3, 2), }"),
       "unsupported dtype '<c8'"},
      {"int32", with_header("{'descr': '<i4', 'fortran_order': False, 'shape': (3, 4), }"), "np.int64"},
      {"int16", with_header("{'descr': '<i2', 'fortran_order': False, 'shape': (3, 8), }"), "'<i2'"},
      {"uint16", with_header("{'descr': '<u2', 'fortran_order': False, 'shape': (3, 8), }"), "'<u2'"},
      {"float128", with_header("{'descr': '<f16', 'fortran_order': False, 'shape': (3, 8), }"), "'<f16'"},
      {"big_endian_complex", with_header("{'descr': '>c8', 'fortran_order': False, 'shape': (3, 2), }"),
       "unsupported dtype '>c8'"},
      {"uint64", with_header("{'descr': '<u8', 'fortran_order': False, 'shape': (6,), }"), "'<u8'"},
      {"objects", with_header("{'descr': '|O', 'fortran_order': False, 'shape': (6,), }"), "objects"},
      {"structured", with_header("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (12,), }"),
       "structured"},
      {"shape_mismatch_small", with_header("{'descr': '<f4', 'fortran_order': False, 'shape': (3, 3), }"),
       "extra data"},
      {"shape_mismatch_big", with_header("{'descr': '<f4', 'fortran_order': False, 'shape': (4, 4), }"),
       "truncated"},
      {"huge_shape", with_header("{'descr': '<f8', 'fortran_order': False, 'shape': (999999999999, 99999999999), }"),
       "impossibly large"},
      {"binary_header", with_header(std::string("{'descr': '<f4', \x01\x02")), "non-text"},
  };
  for (const auto& bad : catalogue) {
    INFO(bad.name);
    const std::string path = dir.file(bad.name + ".npy");
    write_bytes(path, bad.bytes);
    CHECK_THROWS_AS(kd::load_npy(path), kd::IOError);
    CHECK_THROWS_WITH(kd::load_npy(path), Contains(path) && Contains(bad.problem));
  }
  CHECK_THROWS_AS(kd::load_npy(dir.file("missing.npy")), kd::IOError);
  CHECK_THROWS_WITH(kd::load_npy(dir.file("missing.npy")), Contains("missing.npy") && Contains("no such file"));
  // The unmodified file still loads (the catalogue really did break something each time).
  CHECK(kd::load_npy(good_path).shape() == kd::Shape{3, 4});
  CHECK(with_header(header.substr(0, header.size() - 1)) == good);
}

TEST_CASE("npy: bool bytes other than 0/1 load as true") {
  kd::testing::TempDir dir;
  const std::string path = dir.file("b.npy");
  kd::save_npy(kd::tensor({true, false, true}), path);
  std::string bytes = read_bytes(path);
  bytes[bytes.size() - 1] = '\x07';
  write_bytes(path, bytes);
  CHECK(kd::load_npy(path).to_vector<std::int64_t>() == std::vector<std::int64_t>{1, 0, 1});
}

namespace {
/// A version 1.0 .npy file with the given header fields and raw data bytes.
std::string npy_file(const std::string& descr, const std::string& shape, const std::string& data) {
  std::string header = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape + ", }";
  while ((10 + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  std::string out = "\x93NUMPY";
  out += '\x01';
  out += '\x00';
  out += static_cast<char>(header.size() & 0xff);
  out += static_cast<char>(header.size() >> 8);
  return out + header + data;
}

template <class T> std::string bytes_of(std::initializer_list<T> values, bool big_endian) {
  std::string out;
  for (T v : values) {
    std::string b(sizeof(T), '\0');
    std::memcpy(b.data(), &v, sizeof(T));
    if (big_endian) std::reverse(b.begin(), b.end());
    out += b;
  }
  return out;
}
}  // namespace

TEST_CASE("npy: big-endian files and the integer widths Kindling has no dtype for") {
  kd::testing::TempDir dir;
  auto load = [&](const std::string& name, const std::string& bytes, std::optional<kd::DType> dtype = std::nullopt) {
    const std::string path = dir.file(name + ".npy");
    std::ofstream(path, std::ios::binary) << bytes;
    return kd::load_npy(path, dtype);
  };
  // Big-endian: the same values, whatever the byte order.
  const kd::Tensor f = load("be_f4", npy_file(">f4", "(3,)", bytes_of<float>({1.5f, -2.0f, 1e-3f}, true)));
  CHECK(f.dtype() == kd::kFloat32);
  CHECK(f.to_vector<float>() == std::vector<float>{1.5f, -2.0f, 1e-3f});
  const kd::Tensor i = load("be_i8", npy_file(">i8", "(2,)", bytes_of<std::int64_t>({-3, 1LL << 40}, true)));
  CHECK(i.to_vector<std::int64_t>() == std::vector<std::int64_t>{-3, 1LL << 40});
  // int32/int16/int8/uint16/uint32 load when a dtype is asked for, widened exactly.
  const std::string i4 = npy_file("<i4", "(3,)", bytes_of<std::int32_t>({-7, 0, 2147483647}, false));
  CHECK_THROWS_WITH(load("i4", i4), Catch::Contains("load_npy(path, kd::kInt64)"));
  CHECK(load("i4", i4, kd::kInt64).to_vector<std::int64_t>() == std::vector<std::int64_t>{-7, 0, 2147483647});
  CHECK(load("i4f", i4, kd::kFloat64).to_vector<double>() == std::vector<double>{-7, 0, 2147483647});
  CHECK(load("be_i2", npy_file(">i2", "(2,)", bytes_of<std::int16_t>({-300, 5}, true)), kd::kInt64)
            .to_vector<std::int64_t>() == std::vector<std::int64_t>{-300, 5});
  CHECK(load("i1", npy_file("|i1", "(2,)", bytes_of<std::int8_t>({-128, 127}, false)), kd::kInt64)
            .to_vector<std::int64_t>() == std::vector<std::int64_t>{-128, 127});
  CHECK(load("u2", npy_file("<u2", "(2,)", bytes_of<std::uint16_t>({65535, 1}, false)), kd::kInt64)
            .to_vector<std::int64_t>() == std::vector<std::int64_t>{65535, 1});
  CHECK(load("u4", npy_file("<u4", "(1,)", bytes_of<std::uint32_t>({4294967295u}, false)), kd::kInt64)
            .to_vector<std::int64_t>() == std::vector<std::int64_t>{4294967295LL});
  // A native file converts on request too.
  CHECK(load("f8", npy_file("<f8", "(2,)", bytes_of<double>({0.5, 3.0}, false)), kd::kFloat32).dtype() ==
        kd::kFloat32);
  // float16 files (NumPy's '<f2'), little- and big-endian.
  const kd::Tensor h = load("be_f2", npy_file(">f2", "(2,)", bytes_of<std::uint16_t>({0x3E00, 0xC000}, true)));
  CHECK(h.dtype() == kd::kFloat16);
  CHECK(h.to_vector<float>() == std::vector<float>{1.5f, -2.0f});
  // The size check counts the file's element size, not the converted one.
  CHECK_THROWS_WITH(load("short", npy_file("<i2", "(4,)", bytes_of<std::int16_t>({1, 2, 3}, false)), kd::kInt64),
                    Catch::Contains("truncated"));
}
