// The user's line of a call stack: the addresses are recorded when a node is made (cheap: a few
// hundred nanoseconds, and only in anomaly mode), and turned into file:line only when a node's
// gradient turns out to hold a NaN -- by asking addr2line, as a debugger would, rather than
// linking a symbolizer into every program.
#include "autograd/user_line.hpp"

#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <execinfo.h>
#include <link.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <poll.h>
#include <signal.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <sstream>

extern char** environ;

namespace kindling::autograd::detail {

std::vector<void*> capture_stack() {
  std::vector<void*> frames(32);
  const int n = backtrace(frames.data(), static_cast<int>(frames.size()));
  frames.resize(n > 0 ? static_cast<std::size_t>(n) : 0);
  return frames;
}

namespace {

// The absolute path of binutils' addr2line, looked up once in the system's own folders -- never
// through PATH, where a folder the user can write to (or the current one) could supply another
// program. Empty when none is installed.
const std::string& addr2line_path() {
  static const std::string path = [] {
    for (const char* p : {"/usr/bin/addr2line", "/bin/addr2line", "/usr/local/bin/addr2line"})
      if (access(p, X_OK) == 0) return std::string(p);
    return std::string();
  }();
  return path;
}

// A frame's object file that is the system's (the C library, the C++ runtime, the loader): its line
// tables, when it has any, name the system's sources (glibc's csu/libc-start.c), never the user's.
bool is_system_object(const std::string& object) {
  for (const char* dir : {"/lib/", "/lib64/", "/lib32/", "/usr/lib/", "/usr/lib64/", "/usr/lib32/", "/usr/libexec/"})
    if (object.rfind(dir, 0) == 0) return true;
  return false;
}

// A location in the program's own code: a real file that is not Kindling's or the system's.
bool is_user_file(const std::string& path) {
  if (path.empty() || path[0] == '?') return false;
  if (path.rfind("/usr/", 0) == 0) return false;
  for (const char* lib : {"/lib/src/", "/lib/include/kindling/", "/include/kindling/"})
    if (path.find(lib) != std::string::npos) return false;
  return true;
}

bool all_digits(const std::string& s) {
  return !s.empty() && s.find_first_not_of("0123456789") == std::string::npos;
}

}  // namespace

std::string run_program(const std::string& path, const std::vector<std::string>& args, int limit_ms,
                        std::size_t max_bytes) {
  if (path.empty() || path[0] != '/') return {};  // an absolute path only: no PATH search
  std::vector<std::string> words = args;
  words.insert(words.begin(), path);
  std::vector<char*> argv;
  for (std::string& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);
  // Close-on-exec: a program another thread starts meanwhile must not inherit the pipe (its write
  // end held open elsewhere would keep the read below from ever seeing the end).
  int out[2];
  if (pipe2(out, O_CLOEXEC) != 0) return {};
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);  // dup2 clears close-on-exec
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
  pid_t pid = -1;
  const int rc = posix_spawn(&pid, path.c_str(), &actions, nullptr, argv.data(), environ);  // no shell
  posix_spawn_file_actions_destroy(&actions);
  close(out[1]);
  std::string text;
  if (rc != 0) {
    close(out[0]);
    return {};
  }
  // Read until the end, the time limit or the size cap: a hung or chatty tool costs the program
  // at most `limit_ms`, then it is killed.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(limit_ms);
  bool complete = false;
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) break;
    pollfd pfd{out[0], POLLIN, 0};
    const int ready = poll(&pfd, 1, static_cast<int>(left.count()));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) break;
    char buf[4096];
    const ssize_t got = read(out[0], buf, sizeof buf);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) {
      complete = got == 0;
      break;
    }
    text.append(buf, static_cast<std::size_t>(got));
    if (text.size() > max_bytes) break;
  }
  close(out[0]);
  if (!complete) kill(pid, SIGKILL);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!complete || !WIFEXITED(status) || WEXITSTATUS(status) != 0) text.clear();
  return text;
}

std::map<std::uintptr_t, std::string> user_locations(const std::string& object, const std::vector<std::uintptr_t>& addrs,
                                                    const std::string& output) {
  std::map<std::uintptr_t, std::string> found;
  if (is_system_object(object)) return found;
  // addr2line -C -f -i -a prints, for each address in the order given, "0x<address>" and then a
  // function name and a "file:line" for it and each function inlined at it. Anything else is not
  // trusted: an address line must be the next address asked about, a line number a positive number.
  std::istringstream out(output);
  std::string line;
  std::size_t index = static_cast<std::size_t>(-1);
  bool want_location = false;
  while (std::getline(out, line)) {
    for (char c : line)
      if (static_cast<unsigned char>(c) < 0x20 && c != '\t') return {};  // not addr2line's output
    if (line.rfind("0x", 0) == 0) {  // the next address
      ++index;
      if (index >= addrs.size() || std::strtoull(line.c_str(), nullptr, 16) != addrs[index]) return {};
      want_location = false;
      continue;
    }
    if (index >= addrs.size()) return {};
    if (!want_location) {  // a function name; its location follows
      want_location = true;
      continue;
    }
    want_location = false;
    const std::string location = line.substr(0, line.find(" ("));  // drop "(discriminator N)"
    const std::size_t colon = location.rfind(':');
    if (colon == std::string::npos) continue;
    const std::string path = location.substr(0, colon), number = location.substr(colon + 1);
    if (!found.count(addrs[index]) && is_user_file(path) && all_digits(number) && number.find_first_not_of('0') != std::string::npos) {
      const std::size_t slash = path.find_last_of('/');
      found[addrs[index]] = (slash == std::string::npos ? path : path.substr(slash + 1)) + ":" + number;
    }
  }
  return found;
}

std::string user_line(const std::vector<void*>& stack) {
  // Each frame as (object file, address within it), in stack order. A return address points
  // after the call; one byte back is inside it.
  struct Where {
    std::string file;
    std::uintptr_t addr;
  };
  std::vector<Where> frames;
  for (void* p : stack) {
    Dl_info info{};
    const auto pc = reinterpret_cast<std::uintptr_t>(p) - 1;
    if (dladdr(reinterpret_cast<void*>(pc), &info) == 0 || info.dli_fbase == nullptr) continue;
    // A position-independent object (ET_DYN: a PIE program or a shared library) is looked up by
    // offset from where it was loaded; a fixed-address program (ET_EXEC) by the address itself.
    const auto* header = static_cast<const ElfW(Ehdr)*>(info.dli_fbase);
    const std::uintptr_t base = reinterpret_cast<std::uintptr_t>(info.dli_fbase);
    const std::uintptr_t addr = header->e_type == ET_DYN ? pc - base : pc;
    std::string file = info.dli_fname ? info.dli_fname : "";
    if (file.empty() || file[0] != '/') {  // the main program: glibc gives argv[0] or nothing
      char self[4096];
      const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
      if (n <= 0) continue;
      file.assign(self, static_cast<std::size_t>(n));
    }
    frames.push_back({file, addr});
  }
  // One addr2line per object file; -a prints each address before its (inlined first) locations.
  // Each run is limited to 5 seconds and 1 MiB of output: anomaly mode must not hang a program.
  const std::string& tool = addr2line_path();
  if (tool.empty()) return {};
  std::map<std::string, std::vector<std::uintptr_t>> by_file;
  for (const Where& w : frames) by_file[w.file].push_back(w.addr);
  std::map<std::pair<std::string, std::uintptr_t>, std::string> found;  // frame -> user file:line
  for (const auto& [file, addrs] : by_file) {
    if (is_system_object(file)) continue;
    std::vector<std::string> args = {"-C", "-f", "-i", "-a", "-e", file};
    for (std::uintptr_t a : addrs) {
      char buf[32];
      std::snprintf(buf, sizeof buf, "0x%jx", static_cast<std::uintmax_t>(a));
      args.emplace_back(buf);
    }
    for (const auto& [addr, where] : user_locations(file, addrs, run_program(tool, args, 5000, 1 << 20)))
      found[{file, addr}] = where;
  }
  for (const Where& w : frames)
    if (auto it = found.find({w.file, w.addr}); it != found.end()) return it->second;
  return {};
}

}  // namespace kindling::autograd::detail
