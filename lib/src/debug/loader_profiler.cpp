// The loader profile's verdict.
#include "kindling/debug/loader_profiler.hpp"

#include <cstdio>
#include <string>

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
  for (const WorkerProfile& w : workers) {
    const std::string who = w.worker < 0 ? "loop thread" : "worker " + std::to_string(w.worker);
    char line[200];
    std::snprintf(line, sizeof line, "\n  %s: %lld samples, in get() %.3f s, idle %.3f s (%.0f%% busy)",
                  who.c_str(), static_cast<long long>(w.samples), w.get_seconds, w.idle_seconds,
                  100 * w.busy_share());
    out += line;
  }
  return out;
}

}  // namespace kindling::debug
