// Hostile-file checks and atomic writes (see file_io.hpp for the rules).
#include "file_io.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "kindling/tensor/checked.hpp"
#include "kindling/tensor/error.hpp"

namespace kindling::detail {
namespace fs = std::filesystem;

namespace {
std::string errno_text(int e) { return std::strerror(e); }

fs::path folder_of(const std::string& path) {
  const fs::path p(path);
  return p.has_parent_path() ? p.parent_path() : fs::path(".");
}

// ".<name>.tmp.<pid>." — the pid lets a later save tell a dead writer's litter from a live writer's file.
std::string temp_prefix(const std::string& path) {
  return "." + fs::path(path).filename().string() + ".tmp.";
}

// Where a save to `path` really writes: through symbolic links to the file they name (as `cp`, editors
// and torch.save do), so that saving to a link updates its target and leaves the link a link. A link
// that names a missing file is followed too (the save creates the target). Loops give up after 40 links.
std::string resolve_links(const std::string& path, const std::string& who) {
  fs::path p(path);
  for (int hops = 0; hops < 40; ++hops) {
    struct stat st {};
    if (::lstat(p.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return p.string();
    std::error_code ec;
    const fs::path target = fs::read_symlink(p, ec);
    if (ec) return p.string();
    p = target.is_absolute() ? target : p.parent_path() / target;
  }
  throw IOError(who + ": " + path + " is a loop of symbolic links; give the path of a file to write.");
}

// The process's umask, read without changing it (umask(2) sets it, which would race with other
// threads creating files): Linux reports it in /proc/self/status. 022 when that line is missing.
mode_t current_umask() {
  const int fd = ::open("/proc/self/status", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 022;
  char buf[4096];
  const ssize_t n = ::read(fd, buf, sizeof buf - 1);
  ::close(fd);
  if (n <= 0) return 022;
  buf[n] = '\0';
  const char* line = std::strstr(buf, "\nUmask:");
  if (line == nullptr) return 022;
  return static_cast<mode_t>(std::strtol(line + 7, nullptr, 8) & 0777);
}
}  // namespace

std::uint64_t check_regular_file(const std::string& path, const std::string& who) {
  struct stat st {};
  if (path.empty()) throw IOError(who + ": the path is empty. Hint: pass the file's name.");
  if (::stat(path.c_str(), &st) != 0) {
    const int e = errno;
    if (e == ENOENT || e == ENOTDIR) throw IOError(who + ": " + path + ": no such file.");
    throw IOError(who + ": " + path + ": cannot access it (" + errno_text(e) + ").");
  }
  if (S_ISDIR(st.st_mode)) {
    throw IOError(who + ": " + path + " is a directory, not a file. Hint: pass the path of the file inside it.");
  }
  if (!S_ISREG(st.st_mode)) {
    throw IOError(who + ": " + path + " is not a regular file (a device, pipe or socket); give a file on disk.");
  }
  if (::access(path.c_str(), R_OK) != 0) {
    throw IOError(who + ": " + path + ": cannot read it (" + errno_text(errno) + ").");
  }
  return static_cast<std::uint64_t>(st.st_size);
}

std::string read_file(const std::string& path, std::uint64_t max_bytes, const std::string& who) {
  const std::uint64_t size = check_regular_file(path, who);
  if (size > max_bytes) {
    throw IOError(who + ": " + path + " is " + checked::human_bytes(double(size)) + ", above the limit of " +
                  checked::human_bytes(double(max_bytes)) + " for this kind of file (corrupt, or not what it claims?).");
  }
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw IOError(who + ": " + path + ": cannot open it (" + errno_text(errno) + ").");
  std::string out(size, '\0');
  std::size_t done = 0;
  int error = 0;
  while (done < out.size()) {
    const ssize_t got = ::read(fd, out.data() + done, out.size() - done);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) error = errno;
    if (got <= 0) break;  // an error, or the file shrank while we read it: keep what is there
    done += static_cast<std::size_t>(got);
  }
  ::close(fd);
  if (error != 0) throw IOError(who + ": " + path + ": read error (" + errno_text(error) + ").");
  out.resize(done);
  return out;
}

void remove_stale_temporaries(const std::string& path) {
  const std::string prefix = temp_prefix(path);
  std::error_code ec;
  for (fs::directory_iterator it(folder_of(path), ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.rfind(prefix, 0) != 0) continue;
    // name = prefix + "<pid>." + 6 random characters
    const std::string rest = name.substr(prefix.size());
    const auto dot = rest.find('.');
    if (dot == std::string::npos || dot == 0 || rest.size() != dot + 7) continue;
    char* end_ptr = nullptr;
    const long pid = std::strtol(rest.c_str(), &end_ptr, 10);
    if (end_ptr != rest.c_str() + dot || pid <= 0) continue;
    if (pid == static_cast<long>(::getpid())) continue;  // another thread of ours may be writing it
    if (::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH) {
      std::error_code rm;
      fs::remove(it->path(), rm);
    }
  }
}

AtomicWriter::AtomicWriter(std::string path, std::string who) : path_(std::move(path)), who_(std::move(who)) {
  if (path_.empty()) throw IOError(who_ + ": the path is empty. Hint: pass the file's name.");
  path_ = resolve_links(path_, who_);
  struct stat st {};
  if (::stat(path_.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) throw IOError(who_ + ": " + path_ + " is a directory; give the path of a file to write.");
    mode_ = st.st_mode & 07777;  // a replaced file keeps its permissions
  } else {
    mode_ = 0666 & ~current_umask();  // a new file gets what open(2) would give it
  }
  remove_stale_temporaries(path_);
  tmp_ = (folder_of(path_) / (temp_prefix(path_) + std::to_string(::getpid()) + ".XXXXXX")).string();
  fd_ = ::mkstemp(tmp_.data());
  if (fd_ < 0) {
    const int e = errno;
    tmp_.clear();
    throw IOError(who_ + ": cannot create a temporary file in " + folder_of(path_).string() + " to write " + path_ +
                  " (" + errno_text(e) + "). Hint: does the folder exist, and may we write there?");
  }
}

AtomicWriter::~AtomicWriter() {
  if (fd_ >= 0) ::close(fd_);
  if (!tmp_.empty()) ::unlink(tmp_.c_str());
}

void AtomicWriter::fail(const std::string& what) {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  if (!tmp_.empty()) ::unlink(tmp_.c_str());
  tmp_.clear();
  throw IOError(who_ + ": cannot write " + path_ + ": " + what + ". The previous file (if any) is unchanged.");
}

void AtomicWriter::write(const void* data, std::size_t n) {
  if (fd_ < 0) fail("the file is already closed");
  const char* p = static_cast<const char*>(data);
  while (n > 0) {
    const ssize_t w = ::write(fd_, p, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      const int e = errno;
      fail("write failed (" + errno_text(e) + (e == ENOSPC || e == EDQUOT || e == EFBIG ? ": disk full?" : "") + ")");
    }
    if (w == 0) fail("write wrote nothing (disk full?)");
    p += w;
    n -= static_cast<std::size_t>(w);
  }
}

void AtomicWriter::commit() {
  if (fd_ < 0) fail("the file is already closed");
  if (::fsync(fd_) != 0) fail("fsync failed (" + errno_text(errno) + ")");
  ::fchmod(fd_, mode_);  // mkstemp creates 0600: give the file the mode the replaced one had (or the umask's)
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) fail("close failed (" + errno_text(errno) + ")");
  if (std::rename(tmp_.c_str(), path_.c_str()) != 0) fail("cannot rename the temporary file into place (" + errno_text(errno) + ")");
  tmp_.clear();
  const int dfd = ::open(folder_of(path_).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);  // make the rename durable
  if (dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
}

void write_file_atomically(const std::string& path, const std::string& contents, const std::string& who) {
  AtomicWriter w(path, who);
  w.write(contents);
  w.commit();
}

}  // namespace kindling::detail
