// The bad-input tally: a catalogue of hostile or mistaken inputs per loader (files) and per API
// (arguments), each run in its own child process with a time limit, each classified as
//
//   clear  a kindling::Error whose message names the loader/op and the file (or the bad value)
//   weak   a kindling::Error that names neither, or an exception that is not a kindling::Error
//   crash  a signal, a hang (over 20 s), or the bad input silently accepted (garbage out)
//
// `bad_inputs` prints one line per input with -v, one TALLY line per group, and a total; it fails
// unless every input is clear. (Issue 13 counted 112 clear, 11 weak, 11 crashes on 135 inputs.)
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <kindling/kindling.hpp>
#include <map>
#include <string>
#include <vector>
#include <zlib.h>

namespace kd = kindling;
namespace fs = std::filesystem;

namespace {

struct Case {
  std::string group, name;
  std::function<void()> run;
  std::vector<std::string> must_name;  // words a clear message contains (the path, the op...)
};

std::string dir;  // a fresh temporary folder
std::string file(const std::string& name, const std::string& bytes) {
  const std::string path = dir + "/" + name;
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}
std::string gz_file(const std::string& name, const std::string& bytes) {
  const std::string path = dir + "/" + name;
  gzFile f = gzopen(path.c_str(), "wb");
  gzwrite(f, bytes.data(), static_cast<unsigned>(bytes.size()));
  gzclose(f);
  return path;
}
std::string u64le(std::uint64_t v) {
  std::string s(8, '\0');
  for (int i = 0; i < 8; ++i) s[i] = static_cast<char>(v >> (8 * i));
  return s;
}
std::string safetensors(const std::string& header, const std::string& data) {
  std::string h = header;
  h.append((8 - h.size() % 8) % 8, ' ');
  return u64le(h.size()) + h + data;
}
std::string npy(const std::string& dict, const std::string& data, char major = 1) {
  std::string h = dict;
  h.append((64 - (10 + h.size() + 1) % 64) % 64, ' ');
  h += '\n';
  return std::string("\x93NUMPY", 6) + major + '\0' + static_cast<char>(h.size() & 0xff) + static_cast<char>(h.size() >> 8) + h + data;
}
std::string idx(std::vector<std::uint32_t> dims, const std::string& data, unsigned char type = 8) {
  std::string b = {0, 0, static_cast<char>(type), static_cast<char>(dims.size())};
  for (auto d : dims) b += {static_cast<char>(d >> 24), static_cast<char>(d >> 16), static_cast<char>(d >> 8), static_cast<char>(d)};
  return b + data;
}
std::string read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}
std::string fuzz_input(const std::string& kind, const std::string& target, const std::string& name) {
  return read(std::string(KINDLING_SOURCE_DIR) + "/tests/fuzz/" + kind + "/" + target + "/" + name);
}

// A file-loader case: the message must name the file.
void add_file(std::vector<Case>& cases, const std::string& group, const std::string& name, const std::string& path,
              std::function<void(const std::string&)> load) {
  cases.push_back({group, name, [=] { load(path); }, {path}});
}

std::vector<Case> catalogue() {
  std::vector<Case> c;
  // ---- npy ----
  auto npy_load = [](const std::string& p) { (void)kd::load_npy(p).sum(); };
  const std::string f4x6(24, '\0');
  const std::vector<std::pair<std::string, std::string>> npys = {
      {"empty", ""}, {"five bytes", "\x93NUM"}, {"bad magic", "NUMPY\x01\x00\x10\x00"},
      {"version 9", std::string("\x93NUMPY\x09\x00\x10\x00", 10) + std::string(16, ' ')},
      {"header length past the end", std::string("\x93NUMPY\x01\x00\xff\xff", 10) + "{}"},
      {"no newline", npy("{'descr': '<f4', 'fortran_order': False, 'shape': (6,), }", f4x6).replace(63, 1, " ")},
      {"unknown key", npy("{'descr': '<f4', 'fortran_order': False, 'shape': (6,), 'x': 1}", f4x6)},
      {"missing shape", npy("{'descr': '<f4', 'fortran_order': False}", f4x6)},
      {"big-endian complex", npy("{'descr': '>c8', 'fortran_order': False, 'shape': (3,), }", f4x6)},
      {"int32", npy("{'descr': '<i4', 'fortran_order': False, 'shape': (6,), }", f4x6)},
      {"float128", npy("{'descr': '<f16', 'fortran_order': False, 'shape': (12,), }", f4x6)},
      {"objects", npy("{'descr': '|O', 'fortran_order': False, 'shape': (3,), }", f4x6)},
      {"fortran maybe", npy("{'descr': '<f4', 'fortran_order': Maybe, 'shape': (6,), }", f4x6)},
      {"negative size", npy("{'descr': '<f4', 'fortran_order': False, 'shape': (-6,), }", f4x6)},
      {"2^61 elements", npy("{'descr': '<f8', 'fortran_order': False, 'shape': (2305843009213693952,), }", "")},
      {"product overflows", npy("{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296), }", "")},
      {"size digits overflow", npy("{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999999,), }", "")},
      {"truncated data", npy("{'descr': '<f4', 'fortran_order': False, 'shape': (6,), }", f4x6.substr(0, 20))},
      {"extra data", npy("{'descr': '<f4', 'fortran_order': False, 'shape': (6,), }", f4x6 + "xx")},
      {"binary header", npy("{'descr': '<f4', 'fortran_order': False, 'shape': (6,), \x01}", f4x6)},
  };
  for (const auto& [name, bytes] : npys) add_file(c, "npy", name, file("n_" + std::to_string(c.size()) + ".npy", bytes), npy_load);
  add_file(c, "npy", "a directory", dir, npy_load);
  add_file(c, "npy", "missing file", dir + "/missing.npy", npy_load);

  // ---- safetensors ----
  auto st_load = [](const std::string& p) { for (auto& [k, t] : kd::load(p)) (void)t.sum(); };
  const std::vector<std::pair<std::string, std::string>> sts = {
      {"empty", ""}, {"five bytes", "\x10\0\0\0\0"}, {"header length 2^64-16", u64le(0xFFFFFFFFFFFFFFF0ull) + "{}"},
      {"header past the end", u64le(100) + "{}"}, {"header length 1", u64le(1) + "{"},
      {"bad JSON", safetensors("{\"a\": {\"dtype\":", f4x6)}, {"not an object", safetensors("[1,2]", "")},
      {"unknown dtype", safetensors(R"({"a":{"dtype":"F17","shape":[6],"data_offsets":[0,24]}})", f4x6)},
      {"I32 (unsupported)", safetensors(R"({"a":{"dtype":"I32","shape":[6],"data_offsets":[0,24]}})", f4x6)},
      {"shape not array", safetensors(R"({"a":{"dtype":"F32","shape":6,"data_offsets":[0,24]}})", f4x6)},
      {"negative shape", safetensors(R"({"a":{"dtype":"F32","shape":[-6],"data_offsets":[0,24]}})", f4x6)},
      {"float shape", safetensors(R"({"a":{"dtype":"F32","shape":[6.5],"data_offsets":[0,24]}})", f4x6)},
      {"offsets past the end", safetensors(R"({"a":{"dtype":"F32","shape":[6],"data_offsets":[0,48]}})", f4x6)},
      {"offsets reversed", safetensors(R"({"a":{"dtype":"F32","shape":[0],"data_offsets":[24,0]}})", f4x6)},
      {"size mismatch", safetensors(R"({"a":{"dtype":"F32","shape":[4],"data_offsets":[0,24]}})", f4x6)},
      {"F64 numel*8 wraps to 0", safetensors(R"({"x":{"dtype":"F64","shape":[2305843009213693952],"data_offsets":[0,0]}})", "")},
      {"shape product overflows", safetensors(R"({"x":{"dtype":"U8","shape":[4294967296,4294967296,16],"data_offsets":[0,0]}})", "")},
      {"overlap", safetensors(R"({"a":{"dtype":"F32","shape":[6],"data_offsets":[0,24]},"b":{"dtype":"F32","shape":[2],"data_offsets":[16,24]}})", f4x6)},
      {"hole", safetensors(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[8,16]}})", f4x6.substr(0, 16))},
      {"trailing bytes", safetensors(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})", f4x6)},
      {"duplicate name", safetensors(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"a":{"dtype":"F32","shape":[2],"data_offsets":[8,16]}})", f4x6.substr(0, 16))},
      {"metadata not strings", safetensors(R"({"__metadata__":{"epoch":3}})", "")},
      {"bool byte 7", safetensors(R"({"m":{"dtype":"BOOL","shape":[2],"data_offsets":[0,2]}})", std::string("\x01\x07", 2))},
      {"deeply nested JSON", safetensors(std::string(100000, '[') + std::string(100000, ']'), "")},
  };
  for (const auto& [name, bytes] : sts) add_file(c, "safetensors", name, file("s_" + std::to_string(c.size()) + ".safetensors", bytes), st_load);
  add_file(c, "safetensors", "a directory", dir, st_load);
  add_file(c, "safetensors", "missing file", dir + "/missing.safetensors", st_load);

  // ---- IDX / MNIST ----
  auto idx_load = [](const std::string& p) { (void)kd::data::read_idx(p).sum(); };
  const std::vector<std::pair<std::string, std::string>> idxs = {
      {"empty", ""}, {"two bytes", std::string("\0\0", 2)}, {"bad magic", "\x01\x02\x08\x01\0\0\0\x01\x05"},
      {"element type 0x0d", idx({1}, std::string(4, '\0'), 0x0d)}, {"zero dims", idx({}, "")}, {"five dims", idx({1, 1, 1, 1, 1}, "x")},
      {"header cut", std::string("\0\0\x08\x03\0\0", 6)}, {"truncated data", idx({2, 4, 3}, std::string(20, 'x'))},
      {"extra data", idx({2}, "abc")}, {"[65536]^4 on 0 bytes", idx({65536, 65536, 65536, 65536}, "")},
      {"8 bytes claim 2.87 GB", std::string("\0\0\x08\x01\xab\0\0\x08", 8)}, {"[2^32-1]^4", idx({0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}, "")},
  };
  for (const auto& [name, bytes] : idxs) add_file(c, "idx", name, file("i_" + std::to_string(c.size()) + ".idx", bytes), idx_load);
  add_file(c, "idx", "gzip claims 4 GB", gz_file("bomb.idx.gz", idx({0xfffffff0}, std::string(64, '\0'))), idx_load);
  add_file(c, "idx", "gzip truncated data", gz_file("trunc.idx.gz", idx({2, 4, 3}, std::string(20, 'x'))), idx_load);
  {
    const std::string good = gz_file("good.gz", idx({2, 4, 3}, std::string(24, 'x')));
    add_file(c, "idx", "gzip stream cut", file("cut.idx.gz", read(good).substr(0, 20)), idx_load);
  }
  add_file(c, "idx", "a directory", dir, idx_load);
  add_file(c, "idx", "missing file", dir + "/missing.idx", idx_load);
  {
    const std::string root = dir + "/mnist";
    fs::create_directories(root);
    file("mnist/train-images-idx3-ubyte", idx({3, 2, 2}, std::string(12, '\x10')));
    file("mnist/train-labels-idx1-ubyte", idx({3}, std::string("\x01\xc8\x02", 3)));
    c.push_back({"idx", "FashionMNIST label 200", [=] { kd::data::FashionMNIST(kd::data::Split::Train, {}, root); },
                 {"train-labels-idx1-ubyte", "label 200"}});
    const std::string root2 = dir + "/mnist2";
    fs::create_directories(root2);
    file("mnist2/train-images-idx3-ubyte", idx({3, 2, 2}, std::string(12, '\x10')));
    file("mnist2/train-labels-idx1-ubyte", idx({2}, std::string("\x01\x02", 2)));
    c.push_back({"idx", "MNIST labels fewer than images", [=] { kd::data::MNIST(root2, kd::data::Split::Train); }, {"train-labels"}});
    c.push_back({"idx", "MNIST folder without files", [=] { kd::data::MNIST(dir, kd::data::Split::Test); }, {"t10k-images"}});
  }

  // ---- CSV ----
  auto csv_load = [](const std::string& p) { kd::data::CsvDataset ds(p, {.non_finite = kd::data::NonFinite::Error}); };
  const std::vector<std::pair<std::string, std::string>> csvs = {
      {"empty", ""}, {"only blank lines", "\n\n  \n"}, {"one column", "x\n1\n"}, {"header only", "a,b\n"},
      {"too few fields", "a,b,c\n1,2\n"}, {"too many fields", "a,b\n1,2,3\n"}, {"not a number", "a,b\n1,xyz\n"},
      {"empty field", "a,b\n,1\n"}, {"number then junk", "a,b\n1.5kg,1\n"}, {"overflowing number", "a,b\n1e999,1\n"},
      {"label 2.5", "a,b\n1,2.5\n"}, {"label 1e300", "a,b\n1,1e300\n"}, {"label inf", "a,b\n1,inf\n"},
      {"label nan", "a,b\n1,nan\n"}, {"label -1e19", "a,b\n1,-1e19\n"}, {"feature nan (refused)", "a,b\nnan,1\n"},
      {"feature inf (refused)", "a,b\n-inf,1\n"}, {"feature beyond float32", "a,b\n1e300,1\n"},
      {"quoted field", "a,b\n\"1\",2\n"}, {"binary junk", std::string("a,b\n\x01\xff\xfe,\x02\n", 9)},
  };
  for (const auto& [name, bytes] : csvs) add_file(c, "csv", name, file("c_" + std::to_string(c.size()) + ".csv", bytes), csv_load);
  add_file(c, "csv", "a directory", dir, csv_load);
  add_file(c, "csv", "missing file", dir + "/missing.csv", csv_load);
  {
    const std::string p = file("lc.csv", "a,b\n1,2\n");
    c.push_back({"csv", "no such label column", [=] { kd::data::CsvDataset ds(p, {.label_column = "y"}); }, {p, "'y'"}});
    c.push_back({"csv", "label dtype bool", [=] { kd::data::CsvDataset ds(p, {.label_dtype = kd::kBool}); }, {"label_dtype", "bool"}});
  }

  // ---- images ----
  auto img_load = [](const std::string& p) { (void)kd::data::load_image(p).sum(); };
  const std::string png = fuzz_input("corpus", "image", "RGB.png"), jpg = fuzz_input("corpus", "image", "rgb.jpg");
  std::string bad_crc = png;
  bad_crc[20] ^= 0x55;  // inside IHDR: its CRC no longer matches
  std::string bad_idat = png;
  bad_idat[bad_idat.size() - 20] ^= 0x55;
  const std::vector<std::pair<std::string, std::string>> imgs = {
      {"empty", ""}, {"text", "this is not an image"}, {"PNG signature only", png.substr(0, 8)},
      {"PNG truncated", png.substr(0, png.size() / 2)}, {"PNG bad IHDR CRC", bad_crc}, {"PNG corrupt IDAT", bad_idat},
      {"PNG claims 10 gigapixels", fuzz_input("regressions", "image", "png_claims_10_gigapixels.png")},
      {"JPEG SOI only", "\xff\xd8\xff"}, {"JPEG truncated", fuzz_input("regressions", "image", "jpeg_truncated.jpg")},
      {"JPEG DHT counts past 256", fuzz_input("regressions", "image", "jpeg_dht_counts_past_256.jpg")},
      {"JPEG cut in the header", jpg.substr(0, 40)},
      {"GIF 47 bytes", fuzz_input("regressions", "image", "gif_47_bytes.gif")},
      {"HDR 121 bytes", fuzz_input("regressions", "image", "hdr_121_bytes.hdr")},
      {"TGA 173 bytes", fuzz_input("regressions", "image", "tga_173_bytes.tga")},
      {"BMP", "BM" + std::string(60, '\0')}, {"PSD", "8BPS" + std::string(40, '\0')}, {"PNM", "P6\n100000 100000\n255\n"},
      {"WebP", "RIFF\x10\0\0\0WEBPVP8 "},
  };
  for (const auto& [name, bytes] : imgs) add_file(c, "image", name, file("m_" + std::to_string(c.size()) + ".img", bytes), img_load);
  add_file(c, "image", "a directory", dir, img_load);
  add_file(c, "image", "missing file", dir + "/missing.png", img_load);
  {
    const std::string p = file("ok.png", png);
    c.push_back({"image", "channels = 7", [=] { kd::data::load_image(p, 7); }, {"channels"}});
    c.push_back({"image", "save_png of float", [=] { kd::data::save_png(kd::zeros({2, 2, 3}), dir + "/f.png"); }, {"save_png", "float32"}});
    c.push_back({"image", "save_png into a directory", [=] { kd::data::save_png(kd::zeros({2, 2, 3}, {.dtype = kd::kUInt8}), dir); }, {"save_png", dir}});
    c.push_back({"image", "save_png into a missing folder", [=] { kd::data::save_png(kd::zeros({2, 2}, {.dtype = kd::kUInt8}), dir + "/no/x.png"); }, {"save_png", "x.png"}});
  }

  // ---- checkpoints and optimizer state ----
  auto ck_load = [](const std::string& p) {
    const auto ck = kd::train::load_checkpoint(p);
    kd::nn::Linear layer(3, 2);
    layer.load_state_dict(ck.model);
    kd::optim::Adam adam(layer.parameters());
    adam.load_state_dict(ck.optimizer);
    kd::optim::StepLR sched(adam, 2);
    sched.load_state_dict(ck.scheduler);
    kd::optim::ReduceLROnPlateau plateau(adam);
    plateau.load_state_dict(ck.scheduler);
  };
  for (const auto& e : fs::directory_iterator(std::string(KINDLING_SOURCE_DIR) + "/tests/fuzz/regressions/checkpoint")) {
    const std::string name = e.path().filename().string();
    const std::string p = file(name, read(e.path().string()));
    // the optimizer/scheduler errors name the key, the loader errors the file
    std::vector<std::string> want = {name.find("scheduler") != std::string::npos ? "last_epoch"
                                     : name.find("epoch") != std::string::npos || name.find("f64") != std::string::npos ? p
                                     : name.find("lr") != std::string::npos ? "lr"
                                                                            : "step"};
    c.push_back({"checkpoint", name, [=] { ck_load(p); }, want});
  }
  {
    kd::StateDict sd;
    sd.insert("w", kd::zeros({2}));
    const std::string plain = dir + "/plain.safetensors";
    kd::save(sd, plain);
    add_file(c, "checkpoint", "a plain state dict", plain, ck_load);
    const std::string good = file("good.ckpt", fuzz_input("corpus", "checkpoint", "adam.ckpt.safetensors"));
    add_file(c, "checkpoint", "truncated", file("trunc.ckpt", read(good).substr(0, read(good).size() - 9)), ck_load);
    add_file(c, "checkpoint", "a directory", dir, ck_load);
    kd::nn::Linear layer(3, 2);
    kd::optim::Adam adam(layer.parameters());
    auto state_with = [&](const std::string& key, double v) {
      auto s = kd::train::load_checkpoint(good).optimizer;
      s[key] = kd::scalar_tensor(v, {.dtype = kd::kFloat64});
      return s;
    };
    for (auto [key, v] : std::vector<std::pair<std::string, double>>{{"group.0.beta1", 2.0}, {"group.0.eps", -1.0},
                                                                     {"group.0.lr", INFINITY}, {"state.0.step", -3.0},
                                                                     {"group.0.weight_decay", NAN}}) {
      auto s = state_with(key, v);
      c.push_back({"checkpoint", "Adam state " + key + " = " + std::to_string(v), [=]() mutable {
                     kd::nn::Linear l(3, 2);
                     kd::optim::Adam a(l.parameters());
                     a.load_state_dict(s);
                   },
                   {"Adam"}});
    }
  }

  // ---- tensor arguments ----
  auto api = [&](const std::string& name, std::function<void()> f, std::vector<std::string> want) {
    c.push_back({"tensor", name, std::move(f), std::move(want)});
  };
  api("zeros [2^32, 2^32] .sum()", [] { (void)kd::zeros({1LL << 32, 1LL << 32}).sum(); }, {"[4294967296, 4294967296]"});
  api("empty [2^61] float64 .fill_(1)", [] { kd::empty({1LL << 61}, {.dtype = kd::kFloat64}).fill_(1); }, {"2305843009213693952"});
  api("ones [2^40]", [] { (void)kd::ones({1LL << 40}); }, {"[1099511627776]"});
  api("arange(0, 1e19)", [] { (void)kd::arange(0, 1e19); }, {"arange"});
  api("arange(0, inf)", [] { (void)kd::arange(0, INFINITY); }, {"arange"});
  api("arange step 0", [] { (void)kd::arange(0, 5, 0); }, {"arange"});
  api("arange(-1e19, 1e19) int64", [] { (void)kd::arange(-1e19, 1e19, 1, {.dtype = kd::kInt64}); }, {"arange"});
  api("linspace -1 steps", [] { (void)kd::linspace(0, 1, -1); }, {"linspace"});
  api("eye(-1)", [] { (void)kd::eye(-1); }, {"eye"});
  api("zeros negative size", [] { (void)kd::zeros({2, -3}); }, {"[2, -3]"});
  api("view to an overflowing shape", [] { (void)kd::zeros({4}).view({1LL << 40, 1LL << 40}); }, {"1099511627776"});
  api("expand to an overflowing shape", [] { (void)kd::zeros({1, 1}).expand({1LL << 40, 1LL << 40}).sum(); }, {"1099511627776"});
  api("randint low >= high", [] { (void)kd::randint(5, 0, {3}); }, {"randint"});
  api("matmul mismatch", [] { (void)kd::matmul(kd::zeros({2, 3}), kd::zeros({4, 5})); }, {"matmul"});
  api("from_blob null", [] { (void)kd::from_blob(nullptr, {3}, kd::kFloat32); }, {"from_blob"});

  // ---- DataLoader and losses ----
  struct Tiny {
    std::int64_t size() const { return 4; }
    kd::data::Example get(std::int64_t i) const { return {kd::full({2}, static_cast<double>(i)), kd::scalar_tensor(i)}; }
  };
  auto loader = [](kd::data::DataLoaderOptions o) {
    return [o] {
      kd::data::DataLoader l(Tiny{}, o);
      for (auto& b : l) (void)b;
    };
  };
  c.push_back({"dataloader", "num_workers = 2^40", loader({.batch_size = 2, .num_workers = 1LL << 40}), {"num_workers"}});
  c.push_back({"dataloader", "num_workers = 1000", loader({.batch_size = 2, .num_workers = 1000}), {"num_workers"}});
  c.push_back({"dataloader", "num_workers = -1", loader({.batch_size = 2, .num_workers = -1}), {"num_workers"}});
  c.push_back({"dataloader", "batch_size = 0", loader({.batch_size = 0}), {"batch_size"}});
  c.push_back({"dataloader", "prefetch_factor = 2^40", loader({.batch_size = 2, .num_workers = 1, .prefetch_factor = 1LL << 40}), {"prefetch_factor"}});
  c.push_back({"losses", "BCEWithLogits int64 target", [] { (void)kd::nn::BCEWithLogitsLoss()(kd::zeros({2}), kd::tensor({1, 0})); },
               {"binary_cross_entropy_with_logits", "int64"}});
  c.push_back({"losses", "CrossEntropy label 200 of 10", [] { (void)kd::nn::CrossEntropyLoss()(kd::zeros({2, 10}), kd::tensor({1, 200})); },
               {"200"}});
  c.push_back({"losses", "CrossEntropy float labels", [] { (void)kd::nn::CrossEntropyLoss()(kd::zeros({2, 10}), kd::zeros({2, 3})); },
               {"cross_entropy"}});
  return c;
}

// Runs one case in a child; returns {"clear"|"weak"|"crash", detail}.
std::pair<std::string, std::string> classify(const Case& k) {
  int fds[2];
  if (::pipe(fds) != 0) std::abort();
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(fds[0]);
    ::alarm(20);
    std::string verdict;
    try {
      k.run();
      verdict = "crash|accepted silently";
    } catch (const kd::Error& e) {
      const std::string m = e.what();
      bool named = true;
      for (const auto& w : k.must_name) named &= m.find(w) != std::string::npos;
      verdict = (named ? "clear|" : "weak|") + m;
    } catch (const std::exception& e) {
      verdict = std::string("weak|not a kindling::Error (") + typeid(e).name() + "): " + e.what();
    }
    (void)!::write(fds[1], verdict.data(), verdict.size());
    ::_exit(0);
  }
  ::close(fds[1]);
  std::string out;
  char buf[4096];
  for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) > 0;) out.append(buf, static_cast<std::size_t>(n));
  ::close(fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (WIFSIGNALED(status)) {
    return {"crash", WTERMSIG(status) == SIGALRM ? "hang (over 20 s)" : std::string("signal ") + strsignal(WTERMSIG(status))};
  }
  const auto bar = out.find('|');
  if (bar == std::string::npos) return {"crash", "no verdict (exit " + std::to_string(WEXITSTATUS(status)) + ")"};
  return {out.substr(0, bar), out.substr(bar + 1)};
}

}  // namespace

int main(int argc, char** argv) {
  const bool verbose = argc > 1 && std::string(argv[1]) == "-v";
  char tmpl[] = "/tmp/kindling-bad-inputs-XXXXXX";
  if (!::mkdtemp(tmpl)) return 2;
  dir = tmpl;
  std::map<std::string, std::map<std::string, int>> tally;
  std::vector<std::string> groups;
  int total = 0, clear = 0;
  for (const Case& k : catalogue()) {
    const auto [verdict, detail] = classify(k);
    if (!tally.count(k.group)) groups.push_back(k.group);
    ++tally[k.group][verdict];
    ++total;
    clear += verdict == "clear";
    if (verbose || verdict != "clear") {
      std::printf("%-6s %-12s %-40s %s\n", verdict.c_str(), k.group.c_str(), k.name.c_str(), detail.substr(0, 160).c_str());
    }
  }
  for (const auto& g : groups) {
    auto& t = tally[g];
    std::printf("TALLY %-12s %3d inputs: %3d clear, %d weak, %d crash\n", g.c_str(), t["clear"] + t["weak"] + t["crash"],
                t["clear"], t["weak"], t["crash"]);
  }
  int weak = 0, crash = 0;
  for (auto& [g, t] : tally) weak += t["weak"], crash += t["crash"];
  std::printf("bad inputs: %d total: %d clear, %d weak, %d crash\n", total, clear, weak, crash);
  std::error_code ec;
  fs::remove_all(dir, ec);
  return clear == total ? 0 : 1;
}
