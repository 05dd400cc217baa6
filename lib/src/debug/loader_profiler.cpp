// The loader profile's verdict.
#include "kindling/debug/loader_profiler.hpp"

#include <cstdio>

namespace kindling::debug {

std::string LoaderProfile::to_string() const {
  char buf[320];
  std::snprintf(buf, sizeof buf, "%lld batches: waiting for data %.3f s (%.0f%%), compute %.3f s",
                static_cast<long long>(batches), wait_seconds, 100 * wait_share(), compute_seconds);
  std::string out = buf;
  if (starved()) {
    out += " -- the model is starved: add DataLoader workers (num_workers), or do the heavy get() work once and "
           "cache it";
  }
  return out;
}

}  // namespace kindling::debug
