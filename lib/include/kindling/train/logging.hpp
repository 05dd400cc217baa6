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

#include "kindling/tensor/tensor.hpp"

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
  // Time per phase (seconds; NaN: not measured): waiting for the loader's next batch, the training
  // steps themselves (forward, backward, step), and the evaluation.
  double data_seconds = std::numeric_limits<double>::quiet_NaN();
  double compute_seconds = std::numeric_limits<double>::quiet_NaN();
  double val_seconds = std::numeric_limits<double>::quiet_NaN();
  // What went in and came out (shape_string() of the epoch's first batch and of the model's output
  // for it), and describe_batch() of that batch. Empty: not recorded.
  std::string input_shape;
  std::string output_shape;
  std::string data_summary;
};

/// "[64, 1, 28, 28]" (PyTorch's torch.Size order; "[]" for a 0-d tensor).
std::string shape_string(const Tensor& t);

/// A one-line summary of a batch, the check that the data is what the model thinks it is:
/// "x float32 min -0.810 max 2.022 mean 0.007 std 1.001 nan/inf 0 | y int64 0..9, 10 distinct".
/// x: any floating-point tensor; y: integer labels (undefined: left out).
std::string describe_batch(const Tensor& x, const Tensor& y = Tensor());

/// Prints one line per epoch and keeps the history; can write it as CSV or JSON lines.
class TrainingLog {
 public:
  explicit TrainingLog(std::int64_t total_epochs = 0) : total_epochs_(total_epochs) {}
  /// Records and prints `Epoch [3/20] lr 1.0e-03 | train 0.4123 | val 0.4312 acc 84.56% | 2.1 s | 45 MB`,
  /// then, when measured, `  phases: data 0.1 s, compute 1.9 s, val 0.1 s` and, when they differ from
  /// the previous epoch's, `  batch [64, 1, 28, 28] -> [64, 10]` and `  data: <summary>`.
  void log(const EpochRecord& record, std::FILE* out = stdout);
  const std::vector<EpochRecord>& history() const { return history_; }
  /// Atomic writes of the whole history; every EpochRecord field is a column (CSV: text quoted,
  /// NaN as "nan"; JSONL: NaN as null).
  void write_csv(const std::string& path) const;
  void write_jsonl(const std::string& path) const;

 private:
  std::int64_t total_epochs_;
  std::vector<EpochRecord> history_;
};

/// Peak resident set size of this process in MiB (VmHWM from /proc/self/status).
double peak_rss_mb();

}  // namespace kindling::train
