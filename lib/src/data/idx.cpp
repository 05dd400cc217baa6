// The IDX format (MNIST's): a 4-byte magic number, big-endian sizes, then the raw bytes. zlib's
// gz* functions read both gzip-compressed and plain files, so one reader handles both.
#include <zlib.h>

#include <cstring>
#include <filesystem>
#include <memory>
#include <string>

#include "kindling/data/mnist.hpp"
#include "kindling/tensor/creation.hpp"
#include "kindling/tensor/error.hpp"

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
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) fail(path, "no such file");
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
  const std::int64_t n = numel_of(shape);
  if (n > (std::int64_t{1} << 34)) fail(path, "the header claims " + shape_str(shape) + " elements: too large, corrupt file?");

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
