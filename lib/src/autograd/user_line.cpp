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

#include <cstdint>
#include <cstdio>
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

// Runs `addr2line -C -f -i -a -e file addrs...` (no shell: the path is passed as one argument) and
// returns its output; empty when it cannot run.
std::string run_addr2line(const std::string& file, const std::vector<std::uintptr_t>& addrs) {
  std::vector<std::string> args = {"addr2line", "-C", "-f", "-i", "-a", "-e", file};
  for (std::uintptr_t a : addrs) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "0x%jx", static_cast<std::uintmax_t>(a));
    args.emplace_back(buf);
  }
  std::vector<char*> argv;
  for (std::string& s : args) argv.push_back(s.data());
  argv.push_back(nullptr);
  int out[2];
  if (pipe(out) != 0) return {};
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
  posix_spawn_file_actions_addclose(&actions, out[0]);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
  pid_t pid = -1;
  const int rc = posix_spawnp(&pid, "addr2line", &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(out[1]);
  std::string text;
  if (rc == 0) {
    char buf[4096];
    ssize_t got;
    while ((got = read(out[0], buf, sizeof buf)) > 0) text.append(buf, static_cast<std::size_t>(got));
    int status = 0;
    waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) text.clear();
  }
  close(out[0]);
  return text;
}

// A location in the program's own code: a real file that is not Kindling's or the system's.
bool is_user_file(const std::string& path) {
  if (path.empty() || path[0] == '?') return false;
  if (path.rfind("/usr/", 0) == 0) return false;
  for (const char* lib : {"/lib/src/", "/lib/include/kindling/", "/include/kindling/"})
    if (path.find(lib) != std::string::npos) return false;
  return true;
}

}  // namespace

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
  std::map<std::string, std::vector<std::uintptr_t>> by_file;
  for (const Where& w : frames) by_file[w.file].push_back(w.addr);
  std::map<std::pair<std::string, std::uintptr_t>, std::string> found;  // frame -> user file:line
  for (const auto& [file, addrs] : by_file) {
    std::istringstream out(run_addr2line(file, addrs));
    std::string line;
    std::size_t index = static_cast<std::size_t>(-1);
    bool want_location = false;
    while (std::getline(out, line)) {
      if (line.rfind("0x", 0) == 0) {  // the next address
        ++index;
        want_location = false;
        continue;
      }
      if (index >= addrs.size()) break;
      if (!want_location) {  // a function name; its location follows
        want_location = true;
        continue;
      }
      want_location = false;
      const std::string location = line.substr(0, line.find(" ("));  // drop "(discriminator N)"
      const std::size_t colon = location.rfind(':');
      if (colon == std::string::npos) continue;
      const std::string path = location.substr(0, colon), number = location.substr(colon + 1);
      const auto key = std::make_pair(file, addrs[index]);
      if (!found.count(key) && is_user_file(path) && number != "0" && number != "?") {
        const std::size_t slash = path.find_last_of('/');
        found[key] = (slash == std::string::npos ? path : path.substr(slash + 1)) + ":" + number;
      }
    }
  }
  for (const Where& w : frames)
    if (auto it = found.find({w.file, w.addr}); it != found.end()) return it->second;
  return {};
}

}  // namespace kindling::autograd::detail
