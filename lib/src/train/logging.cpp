// Progress bar, per-epoch log lines, and the CSV/JSONL history (the book plots it with matplotlib).
#include "kindling/train/logging.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <sstream>
#include <utility>
#include <vector>

#include "kindling/tensor/dtype.hpp"
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

// A CSV field: quoted (shapes hold commas), inner quotes doubled (RFC 4180).
std::string csv_text(const std::string& v) {
  std::string out = "\"";
  for (char c : v) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

// A JSON string: quotes, backslashes and control characters escaped.
std::string json_text(const std::string& v) {
  std::string out = "\"";
  for (unsigned char c : v) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
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
  const EpochRecord* previous = history_.empty() ? nullptr : &history_.back();
  std::string line = "Epoch [" + std::to_string(r.epoch) +
                     (total_epochs_ ? "/" + std::to_string(total_epochs_) : std::string()) + "]";
  line += fmt(" lr %.1e", r.lr);
  line += fmt(" | train %.4f", r.train_loss);
  if (!std::isnan(r.val_loss)) line += fmt(" | val %.4f", r.val_loss);
  if (!std::isnan(r.val_accuracy)) line += fmt(" acc %.2f%%", 100 * r.val_accuracy);
  line += fmt(" | %.1f s", r.seconds);
  if (r.peak_rss_mb > 0) line += fmt(" | %.0f MB", r.peak_rss_mb);  // peak resident memory
  std::fprintf(out, "%s\n", line.c_str());
  // The extra lines only when measured, so a log that records none of it looks as before.
  std::string phases;
  for (auto [name, v] : {std::pair{"data", r.data_seconds}, std::pair{"compute", r.compute_seconds},
                         std::pair{"val", r.val_seconds}}) {
    if (!std::isnan(v)) phases += (phases.empty() ? "" : ", ") + std::string(name) + fmt(" %.2f s", v);
  }
  if (!phases.empty()) std::fprintf(out, "  phases: %s\n", phases.c_str());
  // Shapes and the data summary when they change: epoch 1, and whenever the input does.
  if (!r.input_shape.empty() && (!previous || previous->input_shape != r.input_shape ||
                                 previous->output_shape != r.output_shape)) {
    std::fprintf(out, "  batch %s -> %s\n", r.input_shape.c_str(),
                 r.output_shape.empty() ? "?" : r.output_shape.c_str());
  }
  if (!r.data_summary.empty() && (!previous || previous->data_summary != r.data_summary)) {
    std::fprintf(out, "  data: %s\n", r.data_summary.c_str());
  }
  std::fflush(out);
  history_.push_back(r);
}

void TrainingLog::write_csv(const std::string& path) const {
  std::ostringstream s;
  s << "epoch,lr,train_loss,val_loss,val_accuracy,seconds,peak_rss_mb,tensor_mb,data_seconds,compute_seconds,"
       "val_seconds,input_shape,output_shape,data_summary\n";
  s.precision(9);
  for (const auto& r : history_) {
    s << r.epoch << ',' << r.lr << ',' << r.train_loss << ',' << r.val_loss << ',' << r.val_accuracy << ','
      << r.seconds << ',' << r.peak_rss_mb << ',' << r.tensor_mb << ',' << r.data_seconds << ','
      << r.compute_seconds << ',' << r.val_seconds << ',' << csv_text(r.input_shape) << ','
      << csv_text(r.output_shape) << ',' << csv_text(r.data_summary) << '\n';
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
      << ", \"tensor_mb\": " << num(r.tensor_mb) << ", \"data_seconds\": " << num(r.data_seconds)
      << ", \"compute_seconds\": " << num(r.compute_seconds) << ", \"val_seconds\": " << num(r.val_seconds)
      << ", \"input_shape\": " << json_text(r.input_shape) << ", \"output_shape\": " << json_text(r.output_shape)
      << ", \"data_summary\": " << json_text(r.data_summary) << "}\n";
  }
  write_atomically(path, s.str());
}

std::string shape_string(const Tensor& t) {
  std::string out = "[";
  for (std::int64_t d = 0; d < t.dim(); ++d) out += (d ? ", " : "") + std::to_string(t.size(d));
  return out + "]";
}

std::string describe_batch(const Tensor& x, const Tensor& y) {
  if (!x.defined()) throw ValueError("describe_batch: x is an undefined tensor");
  if (!is_floating_point(x.dtype())) {
    throw DTypeError("describe_batch: x must be floating point, got " + std::string(dtype_name(x.dtype())) +
                     " (hint: the images after ToTensor; pass integer labels as y)");
  }
  // In double, over the finite values only: one NaN must not hide the range of the rest.
  const Tensor xd = x.detach().to(kFloat64).contiguous();
  const double* v = xd.data_ptr<double>();
  double lo = std::numeric_limits<double>::infinity(), hi = -lo, sum = 0, sq = 0;
  std::int64_t finite = 0, bad = 0;
  for (std::int64_t i = 0; i < xd.numel(); ++i) {
    if (!std::isfinite(v[i])) {
      ++bad;
      continue;
    }
    lo = std::min(lo, v[i]);
    hi = std::max(hi, v[i]);
    sum += v[i];
    ++finite;
  }
  const double mean = finite ? sum / static_cast<double>(finite) : 0.0;
  for (std::int64_t i = 0; i < xd.numel(); ++i) {
    if (std::isfinite(v[i])) sq += (v[i] - mean) * (v[i] - mean);
  }
  std::string out = std::string("x ") + dtype_name(x.dtype());
  if (finite > 0) {
    const double sd = finite > 1 ? std::sqrt(sq / static_cast<double>(finite - 1)) : 0.0;  // like torch.std
    out += fmt(" min %.3f", lo) + fmt(" max %.3f", hi) + fmt(" mean %.3f", mean) + fmt(" std %.3f", sd);
  }
  out += " nan/inf " + std::to_string(bad);
  if (!y.defined()) return out;
  out += std::string(" | y ") + dtype_name(y.dtype());
  if (is_floating_point(y.dtype()) || y.numel() == 0) return out + " " + shape_string(y);
  const Tensor yl = y.detach().to(kInt64).contiguous();
  const std::int64_t* t = yl.data_ptr<std::int64_t>();
  const auto [mn, mx] = std::minmax_element(t, t + yl.numel());
  out += " " + std::to_string(*mn) + ".." + std::to_string(*mx);
  // How many distinct labels the batch holds, for class labels (a small range); a batch of one class
  // is a sampler or a shuffle that went wrong.
  if (static_cast<double>(*mx) - static_cast<double>(*mn) < 4096) {
    std::vector<char> seen(static_cast<std::size_t>(*mx - *mn + 1), 0);
    for (std::int64_t i = 0; i < yl.numel(); ++i) seen[static_cast<std::size_t>(t[i] - *mn)] = 1;
    out += ", " + std::to_string(std::count(seen.begin(), seen.end(), 1)) + " distinct";
  }
  return out;
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
