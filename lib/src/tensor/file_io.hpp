#pragma once
// Files, treated as hostile on the way in and as precious on the way out. Internal to the library
// (every layer's loaders and savers use it; lib/src is on each layer's private include path).
//
//  - check_regular_file: a loader's first step. A folder, a device or a missing path each get their
//    own message ("is a directory"), never a misleading "empty" or "not a .npy file".
//  - AtomicWriter: a save never leaves a half-written file where a good one was. It writes a unique
//    temporary file next to the target (".<name>.tmp.<pid>.XXXXXX"), checks every write, fsyncs,
//    renames over the target and fsyncs the folder. Any failure (disk full, quota, EIO) removes the
//    temporary and throws IOError; the old file is untouched. Temporaries left by a writer killed
//    with kill -9 are removed by the next save to the same path (once their process is gone).
//    A save through a symbolic link writes the file it names (the link stays); a replaced file keeps
//    its permissions, a new one gets 0666 minus the umask, as any file the program creates.
#include <cstdint>
#include <string>

namespace kindling::detail {

/// Size of `path` when it is a regular file we may read; otherwise throws IOError "<who>: <path>: ...".
std::uint64_t check_regular_file(const std::string& path, const std::string& who);

/// The whole file, refusing (IOError) anything larger than `max_bytes` before reading it.
std::string read_file(const std::string& path, std::uint64_t max_bytes, const std::string& who);

class AtomicWriter {
 public:
  /// Creates the temporary file (and removes stale ones of dead writers). `who` names the saver.
  AtomicWriter(std::string path, std::string who);
  ~AtomicWriter();  // not committed: removes the temporary
  AtomicWriter(const AtomicWriter&) = delete;
  AtomicWriter& operator=(const AtomicWriter&) = delete;

  /// Writes all `n` bytes or throws IOError (the temporary is removed).
  void write(const void* data, std::size_t n);
  void write(const std::string& s) { write(s.data(), s.size()); }
  /// fsync, close, rename over the target, fsync the folder. Throws IOError on any failure.
  void commit();
  const std::string& temp_path() const { return tmp_; }

 private:
  [[noreturn]] void fail(const std::string& what);
  std::string path_, who_, tmp_;
  int fd_ = -1;
  unsigned mode_ = 0644;  // the saved file's permissions (see the constructor)
};

/// Writes `contents` to `path` with an AtomicWriter.
void write_file_atomically(const std::string& path, const std::string& contents, const std::string& who);

/// Removes ".<name>.tmp.<pid>.*" temporaries next to `path` whose writer process no longer exists.
void remove_stale_temporaries(const std::string& path);

}  // namespace kindling::detail
