// Building the generated C++ into a shared library, the on-disk cache, and dlopen.
//
// The cache is untrusted input: anyone who can write the folder could swap a library, and a crash
// mid-write leaves half a file. So an entry is `<key>.so` plus `<key>.so.sha256` (the library's
// SHA-256), both written atomically (temporary file + rename). A library is loaded only when its
// bytes hash to the recorded value, and it is loaded from the very file descriptor those bytes were
// read from (/proc/self/fd/N), so the file cannot be swapped between the check and dlopen. An entry
// that does not check out is rebuilt, never loaded. The key is the SHA-256 of (source, compiler,
// flags): a different compiler or flag gets its own entry. PyTorch Inductor keeps its CPU kernels
// the same way (a hash-named .so in a cache folder), without the hash check.
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>

#include "compile_detail.hpp"
#include "tensor/file_io.hpp"

extern char** environ;

#ifndef KINDLING_CXX_COMPILER
#define KINDLING_CXX_COMPILER "c++"
#endif

namespace kindling::jit::detail {
namespace {

// ---- SHA-256 (FIPS 180-4). A cache check, not a new dependency: 60 lines. -------------------------
constexpr std::array<std::uint32_t, 64> kK = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

std::uint32_t rotr(std::uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }

void sha256_block(std::array<std::uint32_t, 8>& h, const unsigned char* p) {
  std::uint32_t w[64];
  for (int i = 0; i < 16; ++i) {
    w[i] = (std::uint32_t{p[4 * i]} << 24) | (std::uint32_t{p[4 * i + 1]} << 16) |
           (std::uint32_t{p[4 * i + 2]} << 8) | std::uint32_t{p[4 * i + 3]};
  }
  for (int i = 16; i < 64; ++i) {
    const std::uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
    const std::uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
    w[i] = w[i - 16] + s0 + w[i - 7] + s1;
  }
  std::uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], k = h[7];
  for (int i = 0; i < 64; ++i) {
    const std::uint32_t t1 = k + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) +
                             kK[static_cast<std::size_t>(i)] + w[i];
    const std::uint32_t t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
    k = g;
    g = f;
    f = e;
    e = d + t1;
    d = c;
    c = b;
    b = a;
    a = t1 + t2;
  }
  h[0] += a;
  h[1] += b;
  h[2] += c;
  h[3] += d;
  h[4] += e;
  h[5] += f;
  h[6] += g;
  h[7] += k;
}

// ---- running the compiler --------------------------------------------------------------------------

std::string unique_suffix() {
  static std::atomic<unsigned> counter{0};
  return "." + std::to_string(::getpid()) + "." + std::to_string(counter++) + ".tmp";
}

/// Runs argv (no shell: paths with spaces stay one argument) with stdout and stderr into `log`.
int run_process(const std::vector<std::string>& argv, const std::string& log) {
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_adddup2(&fa, 1, 2);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  const int rc = posix_spawnp(&pid, args[0], &fa, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) return -rc - 1000;  // could not start
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::ostringstream os;
  os << f.rdbuf();
  return os.str();
}

/// Opens `so`, checks its bytes against the hash in `sum`, and dlopens that same file descriptor.
/// Returns nullptr when the entry is missing or does not check out.
std::shared_ptr<void> load_verified(const std::filesystem::path& so, const std::filesystem::path& sum,
                                    bool& corrupt, std::pair<dev_t, ino_t>& file) {
  corrupt = false;
  std::error_code ec;
  if (!std::filesystem::exists(so, ec) || !std::filesystem::exists(sum, ec)) return nullptr;
  const int fd = ::open(so.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return nullptr;
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    ::close(fd);
    return nullptr;
  }
  file = {st.st_dev, st.st_ino};  // the file this descriptor reads, whatever the name points at now
  std::string bytes;
  char buf[1 << 16];
  for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) != 0;) {
    if (n < 0) {
      if (errno == EINTR) continue;
      ::close(fd);
      return nullptr;
    }
    bytes.append(buf, static_cast<std::size_t>(n));
  }
  std::string expected = slurp(sum.string());
  while (!expected.empty() && std::isspace(static_cast<unsigned char>(expected.back()))) expected.pop_back();
  if (sha256_hex(bytes) != expected) {
    ::close(fd);
    corrupt = true;
    return nullptr;
  }
  // The descriptor stays open while the library is loaded: the dynamic loader recognises a library
  // it already has by its name, and "/proc/self/fd/N" must not name two libraries at once.
  const std::string fd_path = "/proc/self/fd/" + std::to_string(fd);
  void* handle = ::dlopen(fd_path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char* err = ::dlerror();
    ::close(fd);
    throw Error("kd::compile: dlopen of " + so.string() + " failed: " + (err ? err : "unknown error"));
  }
  return std::shared_ptr<void>(handle, [fd](void* h) {
    ::dlclose(h);
    ::close(fd);
  });
}

/// The libraries this process has loaded, by path, while any kernel still holds one. A library is
/// opened once: the dynamic loader would recognise a second "/proc/self/fd/M" of the same file as
/// the loaded library and keep M as another name of it, and once M is closed and reused for a
/// different library, dlopen("/proc/self/fd/M") would return the old one (its kernels, run on the
/// new shapes, read and write out of bounds).
std::shared_ptr<void> load_once(const std::filesystem::path& so, const std::filesystem::path& sum,
                                bool& corrupt) {
  static std::mutex mutex;
  static std::map<std::pair<dev_t, ino_t>, std::weak_ptr<void>> loaded;  // by file, not by name
  std::lock_guard<std::mutex> lock(mutex);
  corrupt = false;
  struct stat st {};
  if (::stat(so.c_str(), &st) != 0) return nullptr;
  const std::pair<dev_t, ino_t> file{st.st_dev, st.st_ino};
  if (auto it = loaded.find(file); it != loaded.end()) {
    // Loaded, and checked then; its descriptor is still open, so its inode is this file's.
    if (std::shared_ptr<void> lib = it->second.lock()) return lib;
    loaded.erase(it);
  }
  std::pair<dev_t, ino_t> opened;
  std::shared_ptr<void> lib = load_verified(so, sum, corrupt, opened);
  if (lib) loaded[opened] = lib;
  return lib;
}

}  // namespace

std::string sha256_hex(const std::string& bytes) {
  std::array<std::uint32_t, 8> h = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                    0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
  std::size_t n = bytes.size(), i = 0;
  for (; i + 64 <= n; i += 64) sha256_block(h, p + i);
  unsigned char tail[128] = {};
  const std::size_t rest = n - i;
  std::memcpy(tail, p + i, rest);
  tail[rest] = 0x80;
  const std::size_t len = rest + 9 <= 64 ? 64 : 128;
  const std::uint64_t bits = static_cast<std::uint64_t>(n) * 8;
  for (int b = 0; b < 8; ++b)
    tail[len - 1 - static_cast<std::size_t>(b)] = static_cast<unsigned char>(bits >> (8 * b));
  for (std::size_t k = 0; k < len; k += 64) sha256_block(h, tail + k);
  static const char* hex = "0123456789abcdef";
  std::string out;
  for (std::uint32_t x : h)
    for (int s = 28; s >= 0; s -= 4) out += hex[(x >> s) & 0xf];
  return out;
}

std::string default_compiler() { return KINDLING_CXX_COMPILER; }

std::filesystem::path cache_dir(const CompileOptions& options) {
  std::filesystem::path dir = options.cache_dir;
  if (dir.empty()) {
    if (const char* e = std::getenv("KINDLING_CACHE_DIR"); e && *e)
      dir = e;
    else if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x)
      dir = std::filesystem::path(x) / "kindling" / "compile";
    else if (const char* home = std::getenv("HOME"); home && *home)
      dir = std::filesystem::path(home) / ".cache" / "kindling" / "compile";
    else
      dir = std::filesystem::temp_directory_path() / "kindling-compile";
  }
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw Error("kd::compile: cannot create the cache folder " + dir.string() + ": " + ec.message());
  return dir;
}

std::shared_ptr<void> build_library(const std::string& source, const CompileOptions& options,
                                    CompileStats* stats, const std::string& what) {
  const std::string compiler = options.compiler.empty() ? default_compiler() : options.compiler;
  std::string key_text = source + '\0' + compiler;
  for (const std::string& f : options.flags) key_text += '\0' + f;
  for (const std::string& l : options.libs) key_text += '\1' + l;
  const std::string key = sha256_hex(key_text).substr(0, 32);
  const std::filesystem::path dir = cache_dir(options);
  const std::filesystem::path so = dir / (key + ".so"), sum = dir / (key + ".so.sha256");

  bool corrupt = false;
  if (auto lib = load_once(so, sum, corrupt)) {
    if (stats) ++stats->cache_hits;
    return lib;
  }
  if (corrupt && stats) ++stats->rejected;

  // Build into temporary names, then rename: a reader never sees half a library.
  const std::string tmp = unique_suffix();
  const std::filesystem::path cpp = dir / (key + ".cpp");
  kindling::detail::write_file_atomically(cpp.string(), source, "kd::compile");
  const std::string tmp_so = (dir / (key + ".so" + tmp)).string(),
                    log = (dir / (key + ".log" + tmp)).string();
  std::vector<std::string> argv{compiler};
  argv.insert(argv.end(), options.flags.begin(), options.flags.end());
  argv.insert(argv.end(), {cpp.string(), "-o", tmp_so});
  argv.insert(argv.end(), options.libs.begin(), options.libs.end());
  const int rc = run_process(argv, log);
  std::string output = slurp(log);
  std::error_code ec;
  std::filesystem::remove(log, ec);
  if (rc != 0) {
    std::filesystem::remove(tmp_so, ec);
    std::string cmd;
    for (const std::string& a : argv) cmd += (cmd.empty() ? "" : " ") + a;
    if (output.size() > 4000) output = output.substr(0, 4000) + "\n...";
    throw Error("kd::compile: compiling the fused regions " + what + " failed (" +
                (rc <= -1000 ? "could not start the compiler: " + std::string(std::strerror(-rc - 1000))
                             : "exit status " + std::to_string(rc)) +
                ").\ncommand: " + cmd + "\n" + output +
                "Hint: CompileOptions{.fuse = false} runs the model without generated code.");
  }
  const std::string hash =
      sha256_hex(slurp(tmp_so));  // of the bytes the compiler wrote, before they are public
  std::filesystem::rename(tmp_so, so, ec);
  if (ec)
    throw Error("kd::compile: cannot move the compiled library to " + so.string() + ": " + ec.message());
  kindling::detail::write_file_atomically(sum.string(), hash + "\n", "kd::compile");
  if (stats) ++stats->compiled;
  auto lib = load_once(so, sum, corrupt);
  if (!lib)
    throw Error("kd::compile: the library just built at " + so.string() + " changed before it was loaded");
  return lib;
}

}  // namespace kindling::jit::detail
