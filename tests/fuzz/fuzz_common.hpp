#pragma once
// What every fuzz target shares. A target feeds one input to one loader; the loader may accept it or
// refuse it with a kindling::Error, and nothing else: any other exception (std::bad_alloc,
// std::system_error, nlohmann's exceptions...) aborts, so libFuzzer reports it as a finding, just like
// a crash, a sanitizer report, a hang (-timeout) or an allocation above -malloc_limit_mb.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <typeinfo>

#include <kindling/tensor/error.hpp>

namespace kdfuzz {

// The loaders read paths, so each input becomes a file: one per process, rewritten every run (it
// stays in the page cache; a few microseconds).
inline const std::string& input_path(const char* suffix) {
  static const std::string path = [&] {
    const char* dir = std::getenv("TMPDIR");
    return std::string(dir && *dir ? dir : "/tmp") + "/kindling-fuzz-" + std::to_string(::getpid()) + suffix;
  }();
  static const bool cleanup = [] { return std::atexit([] { std::remove(path.c_str()); }) == 0; }();
  (void)cleanup;
  return path;
}

inline const std::string& write_input(const std::uint8_t* data, std::size_t size, const char* suffix) {
  const std::string& path = input_path(suffix);
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) std::abort();
  if (size && std::fwrite(data, 1, size, f) != size) std::abort();
  std::fclose(f);
  return path;
}

// Runs `body`; a kindling::Error is a refusal (fine), anything else is a finding.
template <class F>
int run(F&& body) {
  try {
    body();
  } catch (const kindling::Error&) {
    // refused with a clear error: the expected outcome for most inputs
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fuzz: a non-kindling exception escaped (%s): %s\n", typeid(e).name(), e.what());
    std::abort();
  } catch (...) {
    std::fprintf(stderr, "fuzz: an unknown exception escaped\n");
    std::abort();
  }
  return 0;
}

}  // namespace kdfuzz
