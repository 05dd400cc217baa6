#pragma once
/// @file
/// What a learner wants to see while training: a progress bar (only when stdout is a terminal, so
/// logs and the book stay clean), one line per epoch, and a CSV/JSONL history to plot.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <map>
#include <string>
#include <vector>

namespace kindling::train {

/// A one-line progress bar redrawn in place: `[#####.....] 120/1875 loss 0.4123`.
/// Draws nothing when stdout is not a terminal (CI, captured book output, `| tee`).
class ProgressBar {
 public:
  ProgressBar(std::int64_t total, std::string label = "", bool enabled_if_tty = true);
  ~ProgressBar();
  /// Advances to `done` and shows `postfix` (e.g. "loss 0.41").
  void update(std::int64_t done, const std::string& postfix = "");
  /// Erases the bar (before printing the epoch's line).
  void close();
  bool enabled() const { return enabled_; }

 private:
  std::int64_t total_;
  std::string label_;
  bool enabled_, open_ = false;
  std::chrono::steady_clock::time_point last_draw_{};
};

/// One epoch's numbers. Missing values are NaN and are left out of the printed line.
struct EpochRecord {
  std::int64_t epoch = 0;
  double lr = 0;
  double train_loss = 0;
  double val_loss = std::numeric_limits<double>::quiet_NaN();
  double val_accuracy = std::numeric_limits<double>::quiet_NaN();  // fraction in [0, 1]
  double seconds = 0;
  double peak_rss_mb = 0;   // peak resident memory of the process
  double tensor_mb = 0;     // Kindling storage currently allocated
};

/// Prints one line per epoch and keeps the history; can write it as CSV or JSON lines.
class TrainingLog {
 public:
  explicit TrainingLog(std::int64_t total_epochs = 0) : total_epochs_(total_epochs) {}
  /// Records and prints `Epoch [3/20] lr 1.0e-03 | train 0.4123 | val 0.4312 acc 84.56% | 2.1 s | 45 MB`.
  void log(const EpochRecord& record, std::FILE* out = stdout);
  const std::vector<EpochRecord>& history() const { return history_; }
  /// Atomic writes of the whole history.
  void write_csv(const std::string& path) const;
  void write_jsonl(const std::string& path) const;

 private:
  std::int64_t total_epochs_;
  std::vector<EpochRecord> history_;
};

/// Peak resident set size of this process in MiB (VmHWM from /proc/self/status).
double peak_rss_mb();

}  // namespace kindling::train
