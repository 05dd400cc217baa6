// Progress bar, per-epoch log lines, and the CSV/JSONL history (the book plots it with matplotlib).
#include "kindling/train/logging.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <sstream>

#include "kindling/tensor/error.hpp"
#include "kindling/tensor/storage.hpp"
#include "tensor/file_io.hpp"

namespace kindling::train {
namespace {

// Readers never see half a file: a unique temporary next to `path`, every write checked, fsync,
// rename (tensor/file_io.hpp). A failure removes the temporary and keeps the previous file.
void write_atomically(const std::string& path, const std::string& contents) {
  kindling::detail::write_file_atomically(path, contents, "TrainingLog");
}

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

}  // namespace

ProgressBar::ProgressBar(std::int64_t total, std::string label, bool enabled_if_tty)
    : total_(total), label_(std::move(label)), enabled_(enabled_if_tty && isatty(STDOUT_FILENO)) {}

ProgressBar::~ProgressBar() { close(); }

void ProgressBar::update(std::int64_t done, const std::string& postfix) {
  if (!enabled_) return;
  const auto now = std::chrono::steady_clock::now();
  // Redraw at most ~20 times a second: a terminal write per batch would slow a fast loop down.
  if (done < total_ && now - last_draw_ < std::chrono::milliseconds(50)) return;
  last_draw_ = now;
  const int width = 30;
  const int filled = total_ > 0 ? static_cast<int>(width * std::min(done, total_) / total_) : 0;
  std::printf("\r%s [%s%s] %lld/%lld %s\033[K", label_.c_str(), std::string(filled, '#').c_str(),
              std::string(width - filled, '.').c_str(), static_cast<long long>(done),
              static_cast<long long>(total_), postfix.c_str());
  std::fflush(stdout);
  open_ = true;
}

void ProgressBar::close() {
  if (open_) {
    std::printf("\r\033[K");
    std::fflush(stdout);
    open_ = false;
  }
}

void TrainingLog::log(const EpochRecord& r, std::FILE* out) {
  history_.push_back(r);
  std::string line = "Epoch [" + std::to_string(r.epoch) +
                     (total_epochs_ ? "/" + std::to_string(total_epochs_) : std::string()) + "]";
  line += fmt(" lr %.1e", r.lr);
  line += fmt(" | train %.4f", r.train_loss);
  if (!std::isnan(r.val_loss)) line += fmt(" | val %.4f", r.val_loss);
  if (!std::isnan(r.val_accuracy)) line += fmt(" acc %.2f%%", 100 * r.val_accuracy);
  line += fmt(" | %.1f s", r.seconds);
  if (r.peak_rss_mb > 0) line += fmt(" | %.0f MB", r.peak_rss_mb);  // peak resident memory
  std::fprintf(out, "%s\n", line.c_str());
  std::fflush(out);
}

void TrainingLog::write_csv(const std::string& path) const {
  std::ostringstream s;
  s << "epoch,lr,train_loss,val_loss,val_accuracy,seconds,peak_rss_mb,tensor_mb\n";
  s.precision(9);
  for (const auto& r : history_) {
    s << r.epoch << ',' << r.lr << ',' << r.train_loss << ',' << r.val_loss << ',' << r.val_accuracy << ','
      << r.seconds << ',' << r.peak_rss_mb << ',' << r.tensor_mb << '\n';
  }
  write_atomically(path, s.str());
}

void TrainingLog::write_jsonl(const std::string& path) const {
  std::ostringstream s;
  s.precision(9);
  auto num = [&](double v) -> std::string {
    if (std::isnan(v) || std::isinf(v)) return "null";  // JSON has no NaN
    std::ostringstream o;
    o.precision(9);
    o << v;
    return o.str();
  };
  for (const auto& r : history_) {
    s << "{\"epoch\": " << r.epoch << ", \"lr\": " << num(r.lr) << ", \"train_loss\": " << num(r.train_loss)
      << ", \"val_loss\": " << num(r.val_loss) << ", \"val_accuracy\": " << num(r.val_accuracy)
      << ", \"seconds\": " << num(r.seconds) << ", \"peak_rss_mb\": " << num(r.peak_rss_mb)
      << ", \"tensor_mb\": " << num(r.tensor_mb) << "}\n";
  }
  write_atomically(path, s.str());
}

double peak_rss_mb() {
  std::ifstream f("/proc/self/status");
  std::string line;
  while (std::getline(f, line)) {
    if (line.rfind("VmHWM:", 0) == 0) return std::stod(line.substr(6)) / 1024.0;  // kB → MiB
  }
  return 0;
}

}  // namespace kindling::train
