// NumPy's .npy format (numpy/lib/format.py):
//
//   "\x93NUMPY" | major | minor | header length (2 bytes LE in v1.0, 4 in v2.0/3.0) | header | data
//
// The header is a Python dict literal padded with spaces to a multiple of 64 bytes and ending in
// '\n', e.g. {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }. A loader reads files
// from anywhere, so every field is checked and every failure names the file and what is wrong.
#include "kindling/tensor/npy.hpp"

#include <algorithm>
#include <bit>
#include <cctype>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "file_io.hpp"
#include "internal.hpp"

namespace kindling {
namespace {

static_assert(std::endian::native == std::endian::little, "the .npy code assumes a little-endian host");

constexpr char kMagic[] = "\x93NUMPY";

const char* descr_of(DType d) {
  switch (d) {
    case DType::Bool: return "|b1";
    case DType::UInt8: return "|u1";
    case DType::Int64: return "<i8";
    case DType::Float32: return "<f4";
    case DType::Float64: return "<f8";
    case DType::Float16: return "<f2";
    case DType::BFloat16: return "?";  // NumPy has no bfloat16: save_npy refuses it
  }
  return "?";
}

[[noreturn]] void fail(const std::string& path, const std::string& problem) {
  throw IOError("load_npy: " + path + ": " + problem);
}

// A tiny reader for the one Python literal NumPy writes: a dict of str → (str | bool | tuple of int).
class HeaderParser {
 public:
  HeaderParser(const std::string& text, const std::string& path) : s_(text), path_(path) {}

  struct Header {
    std::optional<std::string> descr;
    std::optional<bool> fortran_order;
    std::optional<Shape> shape;
  };

  Header parse() {
    Header h;
    expect('{');
    while (true) {
      skip_ws();
      if (peek() == '}') {
        ++pos_;
        break;
      }
      const std::string key = string_literal();
      expect(':');
      skip_ws();
      if (key == "descr") {
        if (peek() != '\'' && peek() != '"') {
          bad("'descr' is not a simple type string (structured or sub-array dtypes are not supported); "
              "Hint: save a plain numeric array");
        }
        h.descr = string_literal();
      } else if (key == "fortran_order") {
        h.fortran_order = boolean();
      } else if (key == "shape") {
        h.shape = tuple();
      } else {
        bad("unexpected key '" + key + "' in the header");
      }
      skip_ws();
      if (peek() == ',') ++pos_;
      else if (peek() != '}') bad("expected ',' or '}' after the value of '" + key + "'");
    }
    skip_ws();
    if (pos_ != s_.size()) bad("trailing characters after the header dict");
    if (!h.descr || !h.fortran_order || !h.shape) {
      bad("the header must have the keys 'descr', 'fortran_order' and 'shape'");
    }
    return h;
  }

 private:
  [[noreturn]] void bad(const std::string& why) { fail(path_, "bad header (" + why + "): " + s_); }
  char peek() const { return pos_ < s_.size() ? s_[pos_] : '\0'; }
  void skip_ws() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
  }
  void expect(char c) {
    skip_ws();
    if (peek() != c) bad(std::string("expected '") + c + "' at position " + std::to_string(pos_));
    ++pos_;
  }
  std::string string_literal() {
    skip_ws();
    const char q = peek();
    if (q != '\'' && q != '"') bad("expected a quoted string at position " + std::to_string(pos_));
    const auto end = s_.find(q, pos_ + 1);
    if (end == std::string::npos) bad("unterminated string");
    std::string out = s_.substr(pos_ + 1, end - pos_ - 1);
    pos_ = end + 1;
    return out;
  }
  bool boolean() {
    if (s_.compare(pos_, 4, "True") == 0) return pos_ += 4, true;
    if (s_.compare(pos_, 5, "False") == 0) return pos_ += 5, false;
    bad("'fortran_order' must be True or False");
  }
  Shape tuple() {
    expect('(');
    Shape out;
    while (true) {
      skip_ws();
      if (peek() == ')') {
        ++pos_;
        return out;
      }
      if (!std::isdigit(static_cast<unsigned char>(peek()))) bad("'shape' must be a tuple of non-negative integers");
      std::int64_t v = 0;
      while (std::isdigit(static_cast<unsigned char>(peek()))) {
        if (v > (std::numeric_limits<std::int64_t>::max() - 9) / 10) bad("a size in 'shape' is too large");
        v = v * 10 + (s_[pos_++] - '0');
      }
      if (peek() == 'L') ++pos_;  // Python 2 longs
      out.push_back(v);
      skip_ws();
      if (peek() == ',') ++pos_;
      else if (peek() != ')') bad("expected ',' or ')' in 'shape'");
    }
  }

  const std::string& s_;
  const std::string& path_;
  std::size_t pos_ = 0;
};

/// What a file's 'descr' says: the element kind ('b', 'u', 'i', 'f'), its size in bytes, its byte
/// order, and the Kindling dtype that holds it exactly (`native`), or none for the integer widths
/// Kindling has no dtype for (int8/16/32, uint16/32), which load only when a dtype is requested.
struct FileType {
  char kind = 0;
  std::size_t size = 0;
  bool big_endian = false;
  std::optional<DType> native;
  std::string descr;
};

FileType file_type_of(const std::string& descr, const std::string& path) {
  FileType ft;
  ft.descr = descr;
  const bool shaped = descr.size() >= 3 && std::string("<>|=").find(descr[0]) != std::string::npos &&
                      std::all_of(descr.begin() + 2, descr.end(), [](char c) { return c >= '0' && c <= '9'; });
  if (shaped) {
    ft.kind = descr[1];
    ft.size = std::stoul(descr.substr(2, 3));
    ft.big_endian = descr[0] == '>' && ft.size > 1;  // '|' and '=' (this little-endian host) are native
  }
  const std::string k = shaped ? std::string(1, ft.kind) + std::to_string(ft.size) : std::string();
  if (k == "b1") ft.native = kBool;
  else if (k == "u1") ft.native = kUInt8;
  else if (k == "i8") ft.native = kInt64;
  else if (k == "f2") ft.native = kFloat16;
  else if (k == "f4") ft.native = kFloat32;
  else if (k == "f8") ft.native = kFloat64;
  else if (k == "i1" || k == "i2" || k == "i4" || k == "u2" || k == "u4") ft.native = std::nullopt;
  else {
    std::string hint;
    if (shaped && (ft.kind == 'i' || ft.kind == 'u')) {
      hint = "integer type '" + descr + "' is not supported (Kindling reads int8/16/32/64 and uint8/16/32). "
             "Hint: in NumPy, save arr.astype(np.int64)";
    } else if (shaped && ft.kind == 'f') {
      hint = "float type '" + descr + "' is not supported (Kindling has float16, float32 and float64). Hint: in "
             "NumPy, save arr.astype(np.float32)";
    } else if (descr.size() >= 2 && descr[1] == 'O') {
      hint = "the array holds Python objects (pickled), which Kindling never loads";
    } else {
      hint = "dtype '" + descr + "' is not supported (bool, uint8/16/32, int8/16/32/64, float16, float32 and "
             "float64 are)";
    }
    fail(path, "unsupported dtype '" + descr + "': " + hint);
  }
  return ft;
}

/// Reverses the bytes of every element (big-endian files on this little-endian host).
void byteswap(char* p, std::uint64_t count, std::size_t size) {
  for (std::uint64_t i = 0; i < count; ++i, p += size) std::reverse(p, p + size);
}

/// The elements of a file type Kindling has no dtype for, widened exactly into an int64 tensor.
template <class T> void widen(const char* src, std::uint64_t count, std::int64_t* dst) {
  for (std::uint64_t i = 0; i < count; ++i) {
    T v;
    std::memcpy(&v, src + i * sizeof(T), sizeof(T));
    dst[i] = static_cast<std::int64_t>(v);
  }
}

}  // namespace

void save_npy(const Tensor& t, const std::string& path) {
  detail::check_cpu(t, "save_npy");
  if (t.dtype() == kBFloat16) {
    throw DTypeError("save_npy: NumPy has no bfloat16 dtype, so a bfloat16 tensor (shape " +
                     shape_str(t.shape()) + ") has no .npy form. Hint: save t.to(kd::kFloat32) "
                     "(exact: every bfloat16 is a float32), or use kd::save (safetensors has BF16).");
  }
  const Tensor c = t.contiguous();
  std::string header = std::string("{'descr': '") + descr_of(t.dtype()) + "', 'fortran_order': False, 'shape': (";
  for (std::size_t i = 0; i < t.shape().size(); ++i) header += std::to_string(t.shape()[i]) + ", ";
  if (t.dim() > 1) header.resize(header.size() - 2);  // (2, 3) but (3,) and ()
  else if (t.dim() == 1) header.resize(header.size() - 1);
  header += "), }";
  // Pad with spaces so that magic + version + length + header is a multiple of 64, ending in '\n'.
  const bool v2 = header.size() + 11 > 65535;
  const std::size_t preamble = v2 ? 12 : 10;
  header.append((64 - (preamble + header.size() + 1) % 64) % 64, ' ');
  header += '\n';

  std::string out(kMagic, 6);
  out += static_cast<char>(v2 ? 2 : 1);
  out += '\0';
  const auto len = static_cast<std::uint32_t>(header.size());
  for (std::size_t i = 0; i < (v2 ? 4u : 2u); ++i) out += static_cast<char>((len >> (8 * i)) & 0xff);
  out += header;

  // Atomic: a unique temporary file next to the target, every write checked, fsync, rename.
  detail::AtomicWriter w(path, "save_npy");
  w.write(out);
  w.write(c.raw_data_ptr(), c.nbytes());
  w.commit();
}

Tensor load_npy(const std::string& path, std::optional<DType> dtype) {
  const std::uint64_t file_size = detail::check_regular_file(path, "load_npy");  // a folder is not "empty"
  std::ifstream f(path, std::ios::binary);
  if (!f) fail(path, "cannot open the file (may we read it?)");
  if (file_size == 0) fail(path, "the file is empty");

  // Magic + version + header length.
  char pre[12] = {};
  const std::size_t got = static_cast<std::size_t>(f.read(pre, std::min<std::uint64_t>(10, file_size)).gcount());
  if (got < 6 || std::memcmp(pre, kMagic, 6) != 0) {
    fail(path, "not a .npy file (it does not start with the magic string \\x93NUMPY). Hint: np.save writes "
               ".npy; .npz archives and text files are different formats");
  }
  if (got < 10) fail(path, "truncated: the file ends inside the preamble (" + std::to_string(file_size) + " bytes)");
  const auto major = static_cast<unsigned char>(pre[6]), minor = static_cast<unsigned char>(pre[7]);
  if (major < 1 || major > 3 || minor != 0) {
    fail(path, "unsupported .npy format version " + std::to_string(major) + "." + std::to_string(minor) +
                   " (1.0, 2.0 and 3.0 are supported)");
  }
  std::uint64_t header_len = 0, preamble = 10;
  if (major == 1) {
    header_len = static_cast<unsigned char>(pre[8]) | (static_cast<unsigned char>(pre[9]) << 8);
  } else {
    if (!f.read(pre + 10, 2)) fail(path, "truncated: the file ends inside the preamble");
    for (int i = 0; i < 4; ++i) header_len |= std::uint64_t(static_cast<unsigned char>(pre[8 + i])) << (8 * i);
    preamble = 12;
  }
  if (preamble + header_len > file_size) {
    fail(path, "truncated: the header claims " + std::to_string(header_len) + " bytes but the file has only " +
                   std::to_string(file_size - preamble) + " after the preamble");
  }
  std::string header(header_len, '\0');
  f.read(header.data(), static_cast<std::streamsize>(header_len));
  if (header.empty() || header.back() != '\n') fail(path, "bad header (it does not end with a newline)");
  for (char c : header) {
    if (static_cast<unsigned char>(c) >= 0x80 || (c != '\n' && !std::isprint(static_cast<unsigned char>(c)))) {
      fail(path, "bad header (it contains non-text bytes)");
    }
  }
  header.pop_back();
  const auto h = HeaderParser(header, path).parse();
  const FileType ft = file_type_of(*h.descr, path);
  if (!ft.native && !dtype) {
    fail(path, "integer type '" + ft.descr + "' has no Kindling dtype (Kindling has uint8 and int64). Hint: "
               "load_npy(path, kd::kInt64) converts it exactly; or in NumPy, save arr.astype(np.int64)");
  }

  // Size check against the file length, with overflow-safe arithmetic.
  std::uint64_t count = 1;
  for (auto s : *h.shape) {
    if (s != 0 && count > std::numeric_limits<std::uint64_t>::max() / 8 / static_cast<std::uint64_t>(s)) {
      fail(path, "the shape " + shape_str(*h.shape) + " is impossibly large");
    }
    count *= static_cast<std::uint64_t>(s);
  }
  const std::uint64_t need = count * ft.size, have = file_size - preamble - header_len;
  if (have < need) {
    fail(path, "truncated: shape " + shape_str(*h.shape) + " of '" + ft.descr + "' needs " +
                   std::to_string(need) + " data bytes but the file has only " + std::to_string(have));
  }
  if (have > need) {
    fail(path, "size mismatch: shape " + shape_str(*h.shape) + " of '" + ft.descr + "' needs " +
                   std::to_string(need) + " data bytes but the file has " + std::to_string(have) +
                   " (extra data after the array)");
  }

  // Fortran order stores the reversed shape row-major: read that, then permute back.
  Shape file_shape = *h.shape;
  if (*h.fortran_order) std::reverse(file_shape.begin(), file_shape.end());
  // Native types are read straight into the tensor; the others through a buffer, widened to int64.
  Tensor t = detail::make_tensor(file_shape, ft.native.value_or(kInt64));
  std::vector<char> buffer;
  char* bytes = static_cast<char*>(t.raw_data_ptr());
  if (!ft.native) {
    buffer.resize(static_cast<std::size_t>(need));
    bytes = buffer.data();
  }
  if (!f.read(bytes, static_cast<std::streamsize>(need))) fail(path, "read error while reading the data");
  if (ft.big_endian) byteswap(bytes, count, ft.size);
  if (!ft.native) {
    auto* dst = static_cast<std::int64_t*>(t.raw_data_ptr());
    if (ft.kind == 'i' && ft.size == 1) widen<std::int8_t>(bytes, count, dst);
    else if (ft.kind == 'i' && ft.size == 2) widen<std::int16_t>(bytes, count, dst);
    else if (ft.kind == 'i' && ft.size == 4) widen<std::int32_t>(bytes, count, dst);
    else if (ft.kind == 'u' && ft.size == 2) widen<std::uint16_t>(bytes, count, dst);
    else widen<std::uint32_t>(bytes, count, dst);
  }
  if (ft.native == kBool) {  // a bool byte must be exactly 0 or 1
    auto* p = static_cast<std::uint8_t*>(t.raw_data_ptr());
    for (std::uint64_t i = 0; i < count; ++i) p[i] = p[i] != 0;
  }
  if (*h.fortran_order && t.dim() > 1) {
    std::vector<std::int64_t> dims(t.dim());
    for (std::int64_t i = 0; i < t.dim(); ++i) dims[i] = t.dim() - 1 - i;
    t = t.permute(dims).contiguous();
  }
  if (dtype && *dtype != t.dtype()) t = t.to(*dtype);  // the conversion asked for (PyTorch's casting rules)
  return t;
}

}  // namespace kindling
