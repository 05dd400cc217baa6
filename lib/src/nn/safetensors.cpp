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
    case DType::Int64: return 13;
  }
  return -1;
}

bool parse_dtype(const std::string& s, DType& out) {
  if (s == "F32") out = kFloat32;
  else if (s == "F64") out = kFloat64;
  else if (s == "I64") out = kInt64;
  else if (s == "U8") out = kUInt8;
  else if (s == "BOOL") out = kBool;
  else return false;
  return true;
}

[[noreturn]] void fail(const std::string& path, const std::string& what) {
  throw IOError("safetensors: " + path + ": " + what);
}

void write_all(int fd, const void* data, std::size_t n, const std::string& path) {
  const char* p = static_cast<const char*>(data);
  while (n > 0) {
    const ssize_t w = ::write(fd, p, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      fail(path, std::string("write failed: ") + std::strerror(errno));
    }
    p += w;
    n -= static_cast<std::size_t>(w);
  }
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

  // 3. Atomic write: temporary file in the same folder, fsync, rename over the target.
  const std::filesystem::path target(path);
  const std::filesystem::path dir = target.has_parent_path() ? target.parent_path() : std::filesystem::path(".");
  std::string tmp = (dir / ("." + target.filename().string() + ".tmp.XXXXXX")).string();
  const int fd = ::mkstemp(tmp.data());
  if (fd < 0) fail(path, std::string("cannot create a temporary file in ") + dir.string() + ": " + std::strerror(errno));
  try {
    unsigned char len[8];
    for (int i = 0; i < 8; ++i) len[i] = static_cast<unsigned char>(n >> (8 * i));
    write_all(fd, len, 8, path);
    write_all(fd, text.data(), text.size(), path);
    for (const Entry& e : entries) write_all(fd, e.t.raw_data_ptr(), e.t.nbytes(), path);
    if (::fsync(fd) != 0) fail(path, std::string("fsync failed: ") + std::strerror(errno));
    ::fchmod(fd, 0644);
    if (::close(fd) != 0) fail(path, std::string("close failed: ") + std::strerror(errno));
  } catch (...) {
    ::close(fd);
    ::unlink(tmp.c_str());
    throw;
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const std::string err = std::strerror(errno);
    ::unlink(tmp.c_str());
    fail(path, "cannot rename the temporary file into place: " + err);
  }
  const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY);  // make the rename itself durable
  if (dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
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
  std::error_code ec;
  const std::uint64_t file_size = std::filesystem::file_size(path, ec);
  if (ec) fail(path, "cannot read the file size: " + ec.message());
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
      fail(path, where + ": unsupported dtype \"" + ds + "\" (Kindling reads F32, F64, I64, U8, BOOL; F16/BF16 join in chapter 6)");
    }
    if (!v["shape"].is_array()) fail(path, where + ": \"shape\" is not an array");
    std::uint64_t numel = 1;
    for (const auto& s : v["shape"]) {
      if (!s.is_number_integer() || s.get<std::int64_t>() < 0)
        fail(path, where + ": shape entries must be non-negative integers, got " + s.dump());
      const auto d = s.get<std::uint64_t>();
      if (d != 0 && numel > (std::uint64_t(1) << 62) / d) fail(path, where + ": shape " + v["shape"].dump() + " is too large");
      numel *= d;
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
    const std::uint64_t need = numel * element_size(info.dtype);
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
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(path, std::string("cannot open the file: ") + std::strerror(errno));
  return in;
}

}  // namespace

StateDict load(const std::string& path, Device map_location) {
  if (!map_location.is_cpu()) {
    throw DeviceError("load: map_location " + map_location.str() +
                      " is not available; only the CPU exists until chapter 8 adds CUDA. Hint: load to kd::kCPU "
                      "and move the model with model.to(device) later.");
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
    sd.insert(info.name, std::move(t));
  }
  return sd;
}

std::map<std::string, std::string> load_metadata(const std::string& path) {
  std::ifstream in = open_for_reading(path);
  return parse_header(in, path).metadata;
}

}  // namespace kindling
