#pragma once
// A field of /proc/self/status in kB ("VmHWM", "RssAnon", "RssFile"), or 0 if there is none. Shared by
// M1's two sides (bench/training.cpp's --m1-child and bench/peers/p1_libtorch.cpp; C++17, no Kindling).
//   RssAnon  resident anonymous memory: the heap, tensors, allocator caches -- what a framework allocates
//   RssFile  resident file-backed memory: mostly the code of the shared libraries it maps (LibTorch's
//            libtorch_cpu.so alone is ~200 MB of text, of which the pages touched are resident)
//   VmHWM    the peak of the two together (and of shared memory)
#include <cstdio>
#include <cstring>

namespace peers {

inline long proc_status_kb(const char* key) {
  std::FILE* f = std::fopen("/proc/self/status", "r");
  if (!f) return 0;
  char line[256];
  long kb = 0;
  const std::size_t n = std::strlen(key);
  while (std::fgets(line, sizeof line, f))
    if (std::strncmp(line, key, n) == 0 && line[n] == ':') {
      std::sscanf(line + n + 1, "%ld", &kb);
      break;
    }
  std::fclose(f);
  return kb;
}

}  // namespace peers
