// kd::save / kd::load: state dicts in the safetensors format, written atomically and read with
// every size and offset checked before it is used.
//
//   file = [u64 little-endian N][N bytes of JSON header, padded with spaces][byte buffer]
//   header = {"__metadata__": {"k": "v"}, "fc1.weight": {"dtype": "F32", "shape": [128, 784],
//             "data_offsets": [begin, end]}, ...}     (offsets relative to the byte buffer)
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>

#include "kindling/nn/serialize.hpp"
#include "kindling/tensor/creation.hpp"
#include "tensor/file_io.hpp"
#include "tensor/op_helpers.hpp"

static_assert(std::endian::native == std::endian::little,
              "safetensors stores little-endian data; this build assumes a little-endian machine");

namespace kindling {

namespace {

// The reference implementation refuses headers above 100 MB: a hostile length cannot make us allocate.
constexpr std::uint64_t kMaxHeaderSize = 100'000'000;

const char* st_dtype(DType d) {
  switch (d) {
    case DType::Float32: return "F32";
    case DType::Float64: return "F64";
    case DType::Float16: return "F16";
    case DType::BFloat16: return "BF16";
    case DType::Int64: return "I64";
    case DType::UInt8: return "U8";
    case DType::Bool: return "BOOL";
  }
  return "?";
}

// Sort rank of the reference writer (its Dtype enum order): larger types first, then by name.
int st_rank(DType d) {
  switch (d) {
    case DType::Bool: return 0;
    case DType::UInt8: return 1;
    case DType::Float32: return 11;
    case DType::Float64: return 12;
    case DType::Float16: return 7;
    case DType::BFloat16: return 8;
    case DType::Int64: return 13;
  }
  return -1;
}

bool parse_dtype(const std::string& s, DType& out) {
  if (s == "F32") out = kFloat32;
  else if (s == "F64") out = kFloat64;
  else if (s == "F16") out = kFloat16;
  else if (s == "BF16") out = kBFloat16;
  else if (s == "I64") out = kInt64;
  else if (s == "U8") out = kUInt8;
  else if (s == "BOOL") out = kBool;
  else return false;
  return true;
}

[[noreturn]] void fail(const std::string& path, const std::string& what) {
  throw IOError("safetensors: " + path + ": " + what);
}

}  // namespace

void save(const StateDict& state_dict, const std::string& path, const std::map<std::string, std::string>& metadata) {
  // 1. Contiguous CPU copies (where needed) and the reference writer's order.
  struct Entry {
    std::string name;
    Tensor t;
  };
  std::vector<Entry> entries;
  for (const auto& [name, t] : state_dict) {
    if (!t.defined()) fail(path, "tensor '" + name + "' is undefined");
    if (name == "__metadata__") fail(path, "'__metadata__' is reserved and cannot name a tensor");
    entries.push_back({name, kindling::detail::contiguous_copy(t.detach().cpu())});
  }
  std::stable_sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
    if (st_rank(a.t.dtype()) != st_rank(b.t.dtype())) return st_rank(a.t.dtype()) > st_rank(b.t.dtype());
    return a.name < b.name;
  });
  // 2. The header: __metadata__ first, then the tensors packed back to back.
  nlohmann::ordered_json header = nlohmann::ordered_json::object();
  if (!metadata.empty()) header["__metadata__"] = metadata;
  std::uint64_t offset = 0;
  for (const Entry& e : entries) {
    const std::uint64_t n = e.t.nbytes();
    header[e.name] = {{"dtype", st_dtype(e.t.dtype())}, {"shape", e.t.shape()}, {"data_offsets", {offset, offset + n}}};
    offset += n;
  }
  std::string text = header.dump();
  text.append((8 - text.size() % 8) % 8, ' ');  // the reference pads so the buffer starts 8-byte aligned
  const std::uint64_t n = text.size();

  // 3. Atomic write: a unique temporary file in the same folder, every write checked, fsync, rename.
  kindling::detail::AtomicWriter w(path, "safetensors: save");
  unsigned char len[8];
  for (int i = 0; i < 8; ++i) len[i] = static_cast<unsigned char>(n >> (8 * i));
  w.write(len, 8);
  w.write(text);
  for (const Entry& e : entries) w.write(e.t.raw_data_ptr(), e.t.nbytes());
  w.commit();
}

namespace {

struct Parsed {
  struct Info {
    std::string name;
    DType dtype;
    Shape shape;
    std::uint64_t begin, end;
  };
  std::vector<Info> tensors;  // sorted by begin
  std::map<std::string, std::string> metadata;
  std::uint64_t data_start = 0;  // 8 + N
};

Parsed parse_header(std::ifstream& in, const std::string& path) {
  const std::uint64_t file_size = kindling::detail::check_regular_file(path, "safetensors");
  if (file_size < 8) fail(path, "file is " + std::to_string(file_size) + " bytes, too small to hold the 8-byte header length (empty or truncated file)");
  unsigned char len[8];
  if (!in.read(reinterpret_cast<char*>(len), 8)) fail(path, "cannot read the header length");
  std::uint64_t n = 0;
  for (int i = 0; i < 8; ++i) n |= static_cast<std::uint64_t>(len[i]) << (8 * i);
  if (n > kMaxHeaderSize) fail(path, "header length " + std::to_string(n) + " exceeds the 100 MB limit (corrupt or hostile file)");
  if (n > file_size - 8)
    fail(path, "header length " + std::to_string(n) + " is larger than the rest of the file (" + std::to_string(file_size - 8) + " bytes): truncated or not a safetensors file");
  if (n < 2) fail(path, "header length " + std::to_string(n) + " is too small for a JSON object");
  std::string text(n, '\0');
  if (!in.read(text.data(), static_cast<std::streamsize>(n))) fail(path, "cannot read the header");
  if (text[0] != '{') fail(path, "the header does not start with '{' (not a safetensors file?)");

  // Duplicate names at the top level would silently shadow each other: refuse them.
  std::set<std::string> seen;
  std::string duplicate;
  auto cb = [&](int depth, nlohmann::json::parse_event_t ev, nlohmann::json& parsed) {
    if (ev == nlohmann::json::parse_event_t::key && depth == 1 && !seen.insert(parsed.get<std::string>()).second)
      duplicate = parsed.get<std::string>();
    return true;
  };
  nlohmann::json header;
  try {
    header = nlohmann::json::parse(text, cb);
  } catch (const nlohmann::json::exception& e) {
    fail(path, std::string("the header is not valid JSON: ") + e.what());
  }
  if (!duplicate.empty()) fail(path, "tensor name '" + duplicate + "' appears twice in the header");
  if (!header.is_object()) fail(path, "the header is not a JSON object");

  Parsed p;
  p.data_start = 8 + n;
  const std::uint64_t buffer_size = file_size - p.data_start;
  for (auto it = header.begin(); it != header.end(); ++it) {
    const std::string& name = it.key();
    const nlohmann::json& v = it.value();
    if (name == "__metadata__") {
      if (!v.is_object()) fail(path, "'__metadata__' must be an object of strings");
      for (auto m = v.begin(); m != v.end(); ++m) {
        if (!m.value().is_string()) fail(path, "'__metadata__' entry '" + m.key() + "' is not a string");
        p.metadata[m.key()] = m.value().get<std::string>();
      }
      continue;
    }
    const std::string where = "tensor '" + name + "'";
    if (!v.is_object()) fail(path, where + ": entry is not an object");
    for (const char* field : {"dtype", "shape", "data_offsets"})
      if (!v.contains(field)) fail(path, where + ": missing \"" + field + "\"");
    if (!v["dtype"].is_string()) fail(path, where + ": \"dtype\" is not a string");
    Parsed::Info info{name, kFloat32, {}, 0, 0};
    const std::string ds = v["dtype"].get<std::string>();
    if (!parse_dtype(ds, info.dtype)) {
      fail(path, where + ": unsupported dtype \"" + ds + "\" (Kindling reads F16, BF16, F32, F64, I64, U8, BOOL)");
    }
    if (!v["shape"].is_array()) fail(path, where + ": \"shape\" is not an array");
    std::uint64_t numel = 1;
    for (const auto& s : v["shape"]) {
      if (!s.is_number_integer() || s.get<std::int64_t>() < 0)
        fail(path, where + ": shape entries must be non-negative integers, got " + s.dump());
      const auto d = s.get<std::uint64_t>();
      // Checked in bytes, not elements: 2^61 F64 elements once passed as 0 bytes (numel * 8 wrapped).
      if (__builtin_mul_overflow(numel, d, &numel) || numel > buffer_size)
        numel = std::numeric_limits<std::uint64_t>::max();  // more than the file holds; reported below
      info.shape.push_back(static_cast<std::int64_t>(d));
    }
    const auto& off = v["data_offsets"];
    if (!off.is_array() || off.size() != 2 || !off[0].is_number_unsigned() || !off[1].is_number_unsigned())
      fail(path, where + ": \"data_offsets\" must be [begin, end] with non-negative integers, got " + off.dump());
    info.begin = off[0].get<std::uint64_t>();
    info.end = off[1].get<std::uint64_t>();
    if (info.begin > info.end) fail(path, where + ": data_offsets " + off.dump() + " end before they begin");
    if (info.end > buffer_size)
      fail(path, where + ": data_offsets " + off.dump() + " point past the end of the data (" + std::to_string(buffer_size) + " bytes): truncated or corrupt file");
    std::uint64_t need = 0;
    if (numel > buffer_size || __builtin_mul_overflow(numel, element_size(info.dtype), &need) || need > buffer_size)
      fail(path, where + ": " + ds + " shape " + v["shape"].dump() + " is too large: it needs more bytes than the whole data section has (" + std::to_string(buffer_size) + " bytes): corrupt or hostile file");
    if (info.end - info.begin != need)
      fail(path, where + ": data_offsets " + off.dump() + " span " + std::to_string(info.end - info.begin) + " bytes but " + ds + " " + shape_str(info.shape) + " needs " + std::to_string(need));
    p.tensors.push_back(std::move(info));
  }
  // The byte buffer must be covered exactly: no overlaps, no holes, nothing after the last tensor.
  std::sort(p.tensors.begin(), p.tensors.end(), [](const auto& a, const auto& b) {
    return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
  });
  std::uint64_t pos = 0;
  for (const auto& t : p.tensors) {
    if (t.begin < pos) fail(path, "tensor '" + t.name + "' overlaps the previous tensor (offset " + std::to_string(t.begin) + " < " + std::to_string(pos) + ")");
    if (t.begin > pos) fail(path, "the data has a hole before tensor '" + t.name + "' (bytes " + std::to_string(pos) + ".." + std::to_string(t.begin) + " belong to no tensor)");
    pos = t.end;
  }
  if (pos != buffer_size)
    fail(path, "the tensors cover " + std::to_string(pos) + " bytes but the data section has " + std::to_string(buffer_size) + " (trailing garbage or wrong header length)");
  return p;
}

std::ifstream open_for_reading(const std::string& path) {
  kindling::detail::check_regular_file(path, "safetensors");  // "is a directory", not a confusing read error
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(path, std::string("cannot open the file: ") + std::strerror(errno));
  return in;
}

}  // namespace

StateDict load(const std::string& path, Device map_location) {
  if (!map_location.is_cpu()) {
    // The device must be set up (kd::cuda::is_available(), chapter 8) before anything is read.
    try {
      (void)empty({0}).to(map_location);
    } catch (const DeviceError& e) {
      throw DeviceError("load: map_location " + map_location.str() + " is not available (" + e.what() +
                        "). Hint: load to kd::kCPU and move the model with model.to(device) later.");
    }
  }
  std::ifstream in = open_for_reading(path);
  const Parsed p = parse_header(in, path);
  StateDict sd;
  for (const auto& info : p.tensors) {
    Tensor t = empty(info.shape, {.dtype = info.dtype});
    const std::uint64_t nbytes = info.end - info.begin;
    if (nbytes > 0) {
      in.seekg(static_cast<std::streamoff>(p.data_start + info.begin));
      if (!in.read(static_cast<char*>(t.raw_data_ptr()), static_cast<std::streamsize>(nbytes)))
        fail(path, "cannot read the data of tensor '" + info.name + "' (file truncated while reading?)");
    }
    if (info.dtype == kBool) {
      const auto* b = static_cast<const unsigned char*>(t.raw_data_ptr());
      for (std::uint64_t i = 0; i < nbytes; ++i)
        if (b[i] > 1) fail(path, "BOOL tensor '" + info.name + "' holds byte " + std::to_string(b[i]) + " at element " + std::to_string(i) + " (only 0 and 1 are valid)");
    }
    // Read on the CPU, then moved: a file saved on one device loads on another.
    sd.insert(info.name, map_location.is_cpu() ? std::move(t) : t.to(map_location));
  }
  return sd;
}

std::map<std::string, std::string> load_metadata(const std::string& path) {
  std::ifstream in = open_for_reading(path);
  return parse_header(in, path).metadata;
}

}  // namespace kindling
