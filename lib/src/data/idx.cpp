// The IDX format (MNIST's): a 4-byte magic number, big-endian sizes, then the raw bytes. zlib's
// gz* functions read both gzip-compressed and plain files, so one reader handles both.
#include <zlib.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>

#include "kindling/data/mnist.hpp"
#include "kindling/tensor/checked.hpp"
#include "kindling/tensor/creation.hpp"
#include "kindling/tensor/error.hpp"
#include "tensor/file_io.hpp"

namespace kindling::data {
namespace {

struct GzCloser {
  void operator()(gzFile_s* f) const { gzclose(f); }
};
using GzFile = std::unique_ptr<gzFile_s, GzCloser>;

[[noreturn]] void fail(const std::string& path, const std::string& what) {
  throw IOError("read_idx: " + path + ": " + what);
}

// Reads up to n bytes; returns how many were read (fewer only at the end of the file).
std::size_t read_some(gzFile f, void* dst, std::size_t n, const std::string& path) {
  std::size_t done = 0;
  auto* p = static_cast<char*>(dst);
  while (done < n) {
    const unsigned chunk = static_cast<unsigned>(std::min<std::size_t>(n - done, 1u << 30));
    const int got = gzread(f, p + done, chunk);
    if (got < 0) {
      int err = 0;
      const char* msg = gzerror(f, &err);
      fail(path, std::string("the compressed data is corrupt (zlib: ") + (msg ? msg : "unknown error") + ")");
    }
    if (got == 0) break;
    done += static_cast<std::size_t>(got);
  }
  return done;
}

}  // namespace

Tensor read_idx(const std::string& path) {
  const std::uint64_t file_size = kindling::detail::check_regular_file(path, "read_idx");
  GzFile file(gzopen(path.c_str(), "rb"));
  if (!file) fail(path, std::string("cannot open it (") + std::strerror(errno) + ")");
  gzFile f = file.get();

  unsigned char magic[4];
  if (read_some(f, magic, 4, path) != 4) fail(path, "the file is shorter than the 4-byte IDX magic number");
  if (magic[0] != 0 || magic[1] != 0) {
    fail(path, "not an IDX file (the magic number must start with two zero bytes, found 0x" +
                   [&] { char b[16]; std::snprintf(b, sizeof b, "%02x%02x%02x%02x", magic[0], magic[1], magic[2], magic[3]); return std::string(b); }() +
                   ")");
  }
  if (magic[2] != 0x08) {
    char b[8];
    std::snprintf(b, sizeof b, "0x%02x", magic[2]);
    fail(path, std::string("IDX element type ") + b + " is not supported (only 0x08, unsigned bytes, as in MNIST)");
  }
  const int ndim = magic[3];
  if (ndim < 1 || ndim > 4) fail(path, "an IDX file with " + std::to_string(ndim) + " dimensions (expected 1 to 4)");

  Shape shape;
  for (int d = 0; d < ndim; ++d) {
    unsigned char be[4];
    if (read_some(f, be, 4, path) != 4) fail(path, "the file ends inside its header (dimension " + std::to_string(d) + ")");
    shape.push_back((std::int64_t{be[0]} << 24) | (std::int64_t{be[1]} << 16) | (std::int64_t{be[2]} << 8) | be[3]);
  }
  // The sizes are untrusted: multiply them with overflow checks (four sizes up to 2^32 - 1 overflow
  // int64), then compare the claim with what the file can hold *before* allocating anything.
  std::int64_t n = 1;
  bool overflow = false;
  for (auto s : shape) overflow |= !checked::mul(n, s, n);
  if (std::find(shape.begin(), shape.end(), 0) != shape.end()) {
    // Empty, so no data to read -- but the other sizes still become strides, and an index along
    // them times its stride must fit in 64 bits (the tensor layer refuses such a shape too).
    std::int64_t reach = 1;
    for (auto s : shape) {
      if (!checked::mul(reach, std::max<std::int64_t>(s, 1), reach)) {
        fail(path, "the header claims an empty shape " + shape_str(shape) + " whose other sizes multiply past "
                   "2^63: no tensor can be indexed with them (corrupt or hostile file)");
      }
    }
    n = 0, overflow = false;
  }
  const std::uint64_t header_bytes = 4 + 4 * static_cast<std::uint64_t>(ndim);
  if (gzdirect(f)) {
    // A plain file holds exactly header + data.
    const std::uint64_t have = file_size - header_bytes;
    if (!overflow && static_cast<std::uint64_t>(n) < have) {
      fail(path, "the file has more data than its header " + shape_str(shape) + " describes (" + std::to_string(have) +
                     " bytes instead of " + std::to_string(n) + "; corrupt or not IDX)");
    }
    if (overflow || static_cast<std::uint64_t>(n) != have) {
      fail(path, "the header claims " + shape_str(shape) + " = " + (overflow ? std::string("too many") : std::to_string(n)) +
                     " bytes of data but the file has only " + std::to_string(have) + " after its header (truncated or corrupt)");
    }
  } else {
    // gzip: deflate expands at most 1032:1, so a claim beyond that cannot be in the file.
    constexpr std::uint64_t kMaxDeflateRatio = 1032;
    if (overflow || static_cast<std::uint64_t>(n) > kMaxDeflateRatio * file_size + 1024 ||
        static_cast<std::uint64_t>(n) > (std::uint64_t{1} << 34)) {
      fail(path, "the header claims " + shape_str(shape) + " = " + (overflow ? std::string("too many") : std::to_string(n)) +
                     " bytes of data, more than a " + std::to_string(file_size) +
                     "-byte gzip file can hold (corrupt or hostile file)");
    }
  }

  Tensor out = empty(shape, {.dtype = kUInt8});
  const std::size_t got = read_some(f, out.raw_data_ptr(), static_cast<std::size_t>(n), path);
  if (got != static_cast<std::size_t>(n)) {
    fail(path, "truncated: the header says " + shape_str(shape) + " = " + std::to_string(n) + " bytes of data, found " +
                   std::to_string(got) + ". Download it again.");
  }
  char extra;
  if (read_some(f, &extra, 1, path) != 0) {
    fail(path, "the file has more data than its header " + shape_str(shape) + " describes (corrupt or not IDX)");
  }
  return out;
}

}  // namespace kindling::data
