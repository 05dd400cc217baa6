// state_dict / load_state_dict (errors by name) and kd::save / kd::load in the safetensors format:
// round trips, interchange with PyTorch (which reads/writes the format with NumPy + json here, as
// the safetensors package is not installed), and a catalogue of corrupt files that must be refused.
#include <catch2/catch.hpp>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <kindling/nn.hpp>

#include "tensor/torch_oracle.hpp"

namespace kd = kindling;
namespace nn = kindling::nn;
using Catch::Contains;

namespace {

struct Net : nn::Module {
  nn::Linear fc1{4, 3};
  nn::BatchNorm1d bn{3};
  nn::Linear fc2{3, 2};
  Net() {
    register_module("fc1", fc1);
    register_module("bn", bn);
    register_module("fc2", fc2);
  }
  kd::Tensor forward(const kd::Tensor& x) override { return fc2(bn(fc1(x)).relu()); }
};

std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}
void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}
std::string u64le(std::uint64_t n) {
  std::string s(8, '\0');
  for (int i = 0; i < 8; ++i) s[i] = static_cast<char>((n >> (8 * i)) & 0xff);
  return s;
}
// A file from a header text and a data section, with the header length written correctly.
std::string make_file(const std::string& header, const std::string& data) { return u64le(header.size()) + header + data; }

// The safetensors reference writer, transcribed into Python (sort by dtype rank desc then name,
// compact JSON with __metadata__ first, header padded with spaces to a multiple of 8), plus a reader.
const char* kPySafetensors = R"(
import json, struct, numpy as np, torch
RANK = {'BOOL': 0, 'U8': 1, 'F32': 11, 'F64': 12, 'I64': 13}
CODE = {np.dtype('float32'): 'F32', np.dtype('float64'): 'F64', np.dtype('int64'): 'I64', np.dtype('uint8'): 'U8', np.dtype('bool'): 'BOOL'}
NP = {v: k for k, v in CODE.items()}
def st_bytes(tensors, metadata=None):
    items = sorted(((n, t.detach().numpy()) for n, t in tensors.items()), key=lambda kv: (-RANK[CODE[kv[1].dtype]], kv[0]))
    header, off, blobs = {}, 0, []
    if metadata: header['__metadata__'] = metadata
    for n, a in items:
        b = np.ascontiguousarray(a).tobytes(); header[n] = {'dtype': CODE[a.dtype], 'shape': list(a.shape), 'data_offsets': [off, off + len(b)]}
        off += len(b); blobs.append(b)
    h = json.dumps(header, separators=(',', ':')).encode(); h += b' ' * ((8 - len(h) % 8) % 8)
    return struct.pack('<Q', len(h)) + h + b''.join(blobs)
def st_load(path):
    raw = open(path, 'rb').read(); n = struct.unpack('<Q', raw[:8])[0]; header = json.loads(raw[8:8 + n]); data = raw[8 + n:]
    return {k: torch.from_numpy(np.frombuffer(data[v['data_offsets'][0]:v['data_offsets'][1]], dtype=NP[v['dtype']]).reshape(v['shape']).copy())
            for k, v in header.items() if k != '__metadata__'}
class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = torch.nn.Linear(4, 3); self.bn = torch.nn.BatchNorm1d(3); self.fc2 = torch.nn.Linear(3, 2)
    def forward(self, x): return self.fc2(torch.relu(self.bn(self.fc1(x))))
)";

}  // namespace

TEST_CASE("state_dict: parameters and buffers, dotted names, sharing the module's memory") {
  Net net;
  const kd::StateDict sd = net.state_dict();
  const auto py = kd::testing::python_eval({"' '.join(Net().state_dict().keys())"}, kPySafetensors);
  std::string keys;
  for (const auto& k : sd.keys()) keys += (keys.empty() ? "" : " ") + k;
  CHECK(keys == py[0]);
  CHECK(sd.at("fc1.weight").shares_storage(net.fc1.weight));
  CHECK_FALSE(sd.at("fc1.weight").requires_grad());  // detached, like PyTorch's state_dict()
  CHECK(sd.at("bn.num_batches_tracked").dtype() == kd::kInt64);
  CHECK_THROWS_WITH(sd.at("fc3.weight"), Contains("no key 'fc3.weight'"));
  // Non-persistent buffers stay out.
  struct WithScratch : nn::Module {
    WithScratch() {
      register_buffer("kept", kd::zeros({1}));
      register_buffer("scratch", kd::zeros({1}), /*persistent=*/false);
    }
  } ws;
  CHECK(ws.state_dict().keys() == std::vector<std::string>{"kept"});
  CHECK(ws.named_buffers().size() == 2);
}

TEST_CASE("state_dict: a submodule registered under two names is in it under both, as in PyTorch") {
  struct Tied : nn::Module {
    nn::Linear l{3, 2};
    Tied() {
      register_module("a", l);
      register_module("b", l);
    }
  } tied;
  const auto py = kd::testing::python_eval(
      {"' '.join(m.state_dict().keys()) + '|' + ' '.join(n for n, _ in m.named_parameters())"},
      "m = torch.nn.Module()\nl = torch.nn.Linear(3, 2)\nm.a = l\nm.b = l\n");
  std::string keys, params;
  for (const auto& k : tied.state_dict().keys()) keys += (keys.empty() ? "" : " ") + k;
  for (const auto& [n, p] : tied.named_parameters()) params += (params.empty() ? "" : " ") + n;
  CHECK(keys + "|" + params == py[0]);  // "a.weight a.bias b.weight b.bias|a.weight a.bias"
  tied.load_state_dict(tied.state_dict());  // and it loads back, strictly
}

TEST_CASE("state_dict: load_state_dict copies values in place and keeps parameter identity") {
  Net a, b;
  const kd::Tensor w = b.fc1.weight;
  auto r = b.load_state_dict(a.state_dict());
  CHECK(r.missing_keys.empty());
  CHECK(r.unexpected_keys.empty());
  CHECK(b.fc1.weight.is_same(w));
  CHECK(kd::equal(b.fc1.weight, a.fc1.weight));
  CHECK_FALSE(b.fc1.weight.shares_storage(a.fc1.weight));  // copied, not aliased
  // dtype converts like copy_: a float64 checkpoint loads into a float32 model.
  kd::StateDict sd64;
  for (const auto& [k, t] : a.state_dict()) sd64.insert(k, t.is_floating_point() ? t.to(kd::kFloat64) : t);
  Net c;
  c.load_state_dict(sd64);
  CHECK(c.fc2.bias.dtype() == kd::kFloat32);
  CHECK(kd::allclose(c.fc2.bias, a.fc2.bias));
}

TEST_CASE("state_dict: strict loading lists missing, unexpected and mis-shaped keys by name, and copies nothing") {
  Net net;
  const kd::Tensor before = net.fc1.weight.clone();
  kd::StateDict sd = Net().state_dict();
  sd.erase("fc2.bias");
  sd.erase("bn.running_var");
  sd.insert("fc3.weight", kd::zeros({2, 2}));
  sd.insert("fc1.weight", kd::zeros({3, 5}));
  std::string msg;
  try {
    net.load_state_dict(sd);
  } catch (const kd::ValueError& e) {
    msg = e.what();
  }
  CHECK_THAT(msg, Contains("Missing key(s) in state_dict: \"bn.running_var\", \"fc2.bias\"."));
  CHECK_THAT(msg, Contains("Unexpected key(s) in state_dict: \"fc3.weight\"."));
  CHECK_THAT(msg, Contains("size mismatch for 'fc1.weight': copying a param with shape [3, 5] from checkpoint, the "
                           "shape in current model is [3, 4]"));
  CHECK(kd::equal(net.fc1.weight, before));  // nothing was copied
  // Non-strict: key problems are returned, but a shape mismatch still throws (as in PyTorch).
  CHECK_THROWS_WITH(net.load_state_dict(sd, /*strict=*/false), Contains("size mismatch for 'fc1.weight'"));
  sd.erase("fc1.weight");
  const auto r = net.load_state_dict(sd, /*strict=*/false);
  CHECK(r.missing_keys == std::vector<std::string>{"fc1.weight", "bn.running_var", "fc2.bias"});
  CHECK(r.unexpected_keys == std::vector<std::string>{"fc3.weight"});
}

TEST_CASE("safetensors: round trip keeps names, dtypes, shapes, values and metadata") {
  kd::testing::TempDir dir;
  kd::StateDict sd;
  sd.insert("w", kd::randn({3, 4}));
  sd.insert("w_t", kd::randn({4, 3}).t());  // non-contiguous: saved contiguous
  sd.insert("d", kd::randn({2}, {.dtype = kd::kFloat64}));
  sd.insert("steps", kd::tensor(7));
  sd.insert("bytes", kd::arange(0, 5).to(kd::kUInt8));
  sd.insert("mask", kd::tensor({true, false, true}));
  sd.insert("scalar", kd::tensor(2.5));
  sd.insert("empty", kd::zeros({0, 3}));
  const std::string path = dir.file("sd.safetensors");
  kd::save(sd, path, {{"format", "pt"}, {"epoch", "3"}});
  const kd::StateDict back = kd::load(path);
  REQUIRE(back.size() == sd.size());
  for (const auto& [k, t] : sd) {
    INFO(k);
    REQUIRE(back.contains(k));
    CHECK(back.at(k).dtype() == t.dtype());
    CHECK(back.at(k).shape() == t.shape());
    CHECK(kd::equal(back.at(k), t));
  }
  const auto meta = kd::load_metadata(path);
  CHECK(meta.at("format") == "pt");
  CHECK(meta.at("epoch") == "3");
  // Atomic write: no temporary file is left behind, and overwriting works.
  kd::save(sd, path);
  int files = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir.path())) ++files;
  CHECK(files == 1);
  CHECK_THROWS_AS(kd::save(sd, dir.file("no/such/dir/x.safetensors")), kd::IOError);
}

TEST_CASE("safetensors: F16 and BF16 tensors round trip, and their bytes are PyTorch's half()/bfloat16()") {
  kd::testing::TempDir dir;
  kd::manual_seed(4);
  const kd::Tensor x = kd::randn({5, 6}) * 1000;
  kd::StateDict sd;
  sd.insert("h", x.to(kd::kHalf));
  sd.insert("b", x.t().to(kd::kBFloat16));  // non-contiguous: saved contiguous
  sd.insert("w", kd::randn({2}));
  const std::string path = dir.file("lowp.safetensors"), xf = dir.file("x.npy");
  kd::save(sd, path);
  kd::save_npy(x, xf);
  const kd::StateDict back = kd::load(path);
  for (const char* k : {"h", "b", "w"}) {
    INFO(k);
    CHECK(back.at(k).dtype() == sd.at(k).dtype());
    CHECK(back.at(k).shape() == sd.at(k).shape());
    CHECK(kd::equal(back.at(k), sd.at(k)));
  }
  // PyTorch's side: the header names F16 and BF16, the entries are sorted as the reference writer
  // sorts them (BF16 rank 8 before F16 rank 7), and the bytes are torch's own conversions of x.
  const auto py = kd::testing::python_eval(
      {"[k for k in hdr if k != '__metadata__']", "hdr['h']['dtype'] + ' ' + hdr['b']['dtype']",
       "blob('h') == x.half().numpy().tobytes()",
       "blob('b') == x.t().contiguous().bfloat16().view(torch.int16).numpy().tobytes()"},
      "import json, struct\nraw = open('" + path + "', 'rb').read()\nn = struct.unpack('<Q', raw[:8])[0]\n"
      "hdr = json.loads(raw[8:8 + n])\ndata = raw[8 + n:]\n"
      "def blob(k): a, b = hdr[k]['data_offsets']; return data[a:b]\n"
      "x = torch.from_numpy(np.load('" + xf + "'))\n");
  CHECK(py[0] == "['w', 'b', 'h']");
  CHECK(py[1] == "F16 BF16");
  CHECK(py[2] == "True");
  CHECK(py[3] == "True");
}

TEST_CASE("safetensors: byte-identical to the reference writer, and PyTorch loads what Kindling saved") {
  kd::testing::TempDir dir;
  kd::manual_seed(3);
  Net net;
  net.train();
  net(kd::randn({8, 4}));  // move BatchNorm's running statistics away from their initial values
  const std::string ours = dir.file("ours.safetensors"), x_npy = dir.file("x.npy"), y_npy = dir.file("y.npy");
  kd::save(net.state_dict(), ours, {{"format", "pt"}});
  net.eval();
  const kd::Tensor x = kd::randn({5, 4});
  kd::save_npy(x, x_npy);
  {
    kd::NoGradGuard no_grad;
    kd::save_npy(net(x), y_npy);
  }
  const std::string ref = dir.file("ref.safetensors");
  const auto py = kd::testing::python_eval(
      {"open('" + ref + "', 'wb').write(st_bytes(st_load('" + ours + "'), {'format': 'pt'})) > 0",
       "m.load_state_dict(st_load('" + ours + "')) is not None",
       "float((m.eval()(torch.from_numpy(np.load('" + x_npy + "'))) - torch.from_numpy(np.load('" + y_npy +
           "'))).abs().max())",
       "int(m.bn.num_batches_tracked)"},
      std::string(kPySafetensors) + "\nm = Net()\n");
  CHECK(read_bytes(ours) == read_bytes(ref));  // sorting, offsets, JSON and padding as the reference writes them
  CHECK(std::stod(py[2]) < 1e-6);
  CHECK(py[3] == "1");
}

TEST_CASE("safetensors: Kindling loads a file written the reference way from a PyTorch model") {
  kd::testing::TempDir dir;
  const std::string path = dir.file("torch.safetensors"), x_npy = dir.file("x.npy"), y_npy = dir.file("y.npy");
  const auto py = kd::testing::python_eval(
      {"open('" + path + "', 'wb').write(st_bytes(m.state_dict())) > 0",
       "np.save('" + x_npy + "', x.numpy()) is None", "np.save('" + y_npy + "', m(x).detach().numpy()) is None"},
      std::string(kPySafetensors) +
          "\ntorch.manual_seed(0)\nm = Net()\nm.train(); m(torch.randn(16, 4)); m.eval()\nx = torch.randn(5, 4)\n");
  Net net;
  net.load_state_dict(kd::load(path));
  net.eval();
  kd::NoGradGuard no_grad;
  CHECK(kd::allclose(net(kd::load_npy(x_npy)), kd::load_npy(y_npy), 1e-5, 1e-6));
  CHECK(net.bn.num_batches_tracked.item<std::int64_t>() == 1);
}

TEST_CASE("safetensors: corrupt, truncated and hostile files are refused with a clear IOError") {
  kd::testing::TempDir dir;
  const std::string good = dir.file("good.safetensors");
  kd::StateDict sd;
  sd.insert("a", kd::randn({2, 3}));
  sd.insert("b", kd::tensor({1, 2}));
  kd::save(sd, good);
  const std::string bytes = read_bytes(good);
  const std::string f32_6 = std::string(24, '\0');

  struct Bad {
    const char* what;
    std::string contents;
    const char* expected;
  };
  const std::vector<Bad> catalogue = {
      {"empty file", "", "too small"},
      {"only 5 bytes", "\x10\0\0\0\0", "too small"},
      {"truncated data", bytes.substr(0, bytes.size() - 4), "point past the end"},
      {"truncated header", bytes.substr(0, 20), "larger than the rest of the file"},
      {"header length too large", u64le(bytes.size()) + bytes.substr(8), "larger than the rest of the file"},
      {"hostile huge header length", u64le(0xFFFFFFFFFFFFFFF0ull) + bytes.substr(8), "exceeds the 100 MB limit"},
      {"header length too small", u64le(1) + bytes.substr(8), "too small for a JSON object"},
      {"bad JSON", make_file("{\"a\": {\"dtype\": \"F32\",", f32_6), "not valid JSON"},
      {"not an object", make_file("[1, 2, 3]", ""), "does not start with '{'"},
      {"unknown dtype", make_file(R"({"a":{"dtype":"F17","shape":[2,3],"data_offsets":[0,24]}})", f32_6), "unsupported dtype \"F17\""},
      {"dtype not supported", make_file(R"({"a":{"dtype":"I32","shape":[2,3],"data_offsets":[0,24]}})", f32_6), "unsupported dtype \"I32\""},
      {"dtype not a string", make_file(R"({"a":{"dtype":3,"shape":[2,3],"data_offsets":[0,24]}})", f32_6), "\"dtype\" is not a string"},
      {"missing shape", make_file(R"({"a":{"dtype":"F32","data_offsets":[0,24]}})", f32_6), "missing \"shape\""},
      {"negative shape", make_file(R"({"a":{"dtype":"F32","shape":[-2,3],"data_offsets":[0,24]}})", f32_6), "non-negative"},
      {"offsets out of range", make_file(R"({"a":{"dtype":"F32","shape":[2,3],"data_offsets":[0,48]}})", f32_6), "point past the end"},
      {"offsets reversed", make_file(R"({"a":{"dtype":"F32","shape":[0],"data_offsets":[24,0]}})", f32_6), "end before they begin"},
      {"negative offset", make_file(R"({"a":{"dtype":"F32","shape":[2,3],"data_offsets":[-8,16]}})", f32_6), "non-negative integers"},
      {"size does not match shape", make_file(R"({"a":{"dtype":"F32","shape":[2,2],"data_offsets":[0,24]}})", f32_6), "needs 16"},
      {"overlapping tensors", make_file(R"({"a":{"dtype":"F32","shape":[6],"data_offsets":[0,24]},"b":{"dtype":"F32","shape":[2],"data_offsets":[16,24]}})", f32_6), "overlaps"},
      {"hole in the data", make_file(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[8,16]}})", f32_6.substr(0, 16)), "hole"},
      {"trailing bytes", make_file(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})", f32_6), "trailing garbage"},
      {"duplicate names", make_file(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"a":{"dtype":"F32","shape":[2],"data_offsets":[8,16]}})", f32_6.substr(0, 16)), "appears twice"},
      {"metadata not strings", make_file(R"({"__metadata__":{"epoch":3}})", ""), "is not a string"},
      {"bad bool byte", make_file(R"({"m":{"dtype":"BOOL","shape":[2],"data_offsets":[0,2]}})", std::string("\x01\x07", 2)), "holds byte 7"},
      {"shape overflow", make_file(R"({"a":{"dtype":"F32","shape":[4294967296,4294967296,4294967296],"data_offsets":[0,24]}})", f32_6), "too large"},
  };
  for (const Bad& bad : catalogue) {
    INFO(bad.what);
    const std::string path = dir.file("bad.safetensors");
    write_bytes(path, bad.contents);
    try {
      kd::load(path);
      FAIL("loaded a corrupt file: " << bad.what);
    } catch (const kd::IOError& e) {
      CHECK_THAT(std::string(e.what()), Contains(bad.expected) && Contains(path));
    }
  }
  CHECK_THROWS_WITH(kd::load(dir.file("missing.safetensors")), Contains("no such file"));
  // The good file still loads.
  CHECK(kd::load(good).size() == 2);
}
