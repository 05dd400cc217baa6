// Progress bar, per-epoch log lines, CSV/JSONL history, and a tiny SVG line-chart writer.
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
  line += fmt(" | train loss %.4f", r.train_loss);
  if (!std::isnan(r.val_loss)) line += fmt(" | val loss %.4f", r.val_loss);
  if (!std::isnan(r.val_accuracy)) line += fmt(" acc %.2f%%", 100 * r.val_accuracy);
  line += fmt(" | %.1f s", r.seconds);
  if (r.peak_rss_mb > 0) line += fmt(" | peak %.0f MB", r.peak_rss_mb);
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

void write_svg_plot(const std::string& path, const std::string& title, const std::string& x_label,
                    const std::string& y_label, const std::vector<PlotSeries>& series) {
  const double W = 640, H = 400, L = 70, R = 150, T = 40, B = 50;  // canvas and margins
  double x0 = std::numeric_limits<double>::infinity(), x1 = -x0, y0 = x0, y1 = -x0;
  for (const auto& s : series) {
    for (std::size_t i = 0; i < s.x.size() && i < s.y.size(); ++i) {
      if (!std::isfinite(s.y[i])) continue;
      x0 = std::min(x0, s.x[i]), x1 = std::max(x1, s.x[i]);
      y0 = std::min(y0, s.y[i]), y1 = std::max(y1, s.y[i]);
    }
  }
  if (!std::isfinite(x0)) x0 = 0, x1 = 1, y0 = 0, y1 = 1;
  if (x1 == x0) x1 = x0 + 1;
  if (y1 == y0) y1 = y0 + 1;
  const double pad = 0.05 * (y1 - y0);
  y0 -= pad, y1 += pad;
  auto px = [&](double x) { return L + (x - x0) / (x1 - x0) * (W - L - R); };
  auto py = [&](double y) { return H - B - (y - y0) / (y1 - y0) * (H - T - B); };
  const char* colors[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b"};
  std::ostringstream s;
  s << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << W << "\" height=\"" << H
    << "\" font-family=\"sans-serif\" font-size=\"12\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  s << "<text x=\"" << W / 2 - R / 2 << "\" y=\"22\" text-anchor=\"middle\" font-size=\"15\">" << title << "</text>\n";
  s << "<line x1=\"" << L << "\" y1=\"" << H - B << "\" x2=\"" << W - R << "\" y2=\"" << H - B << "\" stroke=\"black\"/>\n";
  s << "<line x1=\"" << L << "\" y1=\"" << T << "\" x2=\"" << L << "\" y2=\"" << H - B << "\" stroke=\"black\"/>\n";
  for (int i = 0; i <= 4; ++i) {  // ticks
    const double yv = y0 + (y1 - y0) * i / 4, xv = x0 + (x1 - x0) * i / 4;
    s << "<text x=\"" << L - 6 << "\" y=\"" << py(yv) + 4 << "\" text-anchor=\"end\">" << fmt("%.3g", yv) << "</text>\n";
    s << "<line x1=\"" << L << "\" y1=\"" << py(yv) << "\" x2=\"" << W - R << "\" y2=\"" << py(yv)
      << "\" stroke=\"#ddd\"/>\n";
    s << "<text x=\"" << px(xv) << "\" y=\"" << H - B + 16 << "\" text-anchor=\"middle\">" << fmt("%.3g", xv) << "</text>\n";
  }
  s << "<text x=\"" << (L + W - R) / 2 << "\" y=\"" << H - 12 << "\" text-anchor=\"middle\">" << x_label << "</text>\n";
  s << "<text x=\"16\" y=\"" << (T + H - B) / 2 << "\" text-anchor=\"middle\" transform=\"rotate(-90 16 "
    << (T + H - B) / 2 << ")\">" << y_label << "</text>\n";
  for (std::size_t k = 0; k < series.size(); ++k) {
    const auto& sr = series[k];
    const char* c = colors[k % 6];
    s << "<polyline fill=\"none\" stroke=\"" << c << "\" stroke-width=\"2\" points=\"";
    for (std::size_t i = 0; i < sr.x.size() && i < sr.y.size(); ++i) {
      if (std::isfinite(sr.y[i])) s << px(sr.x[i]) << ',' << py(sr.y[i]) << ' ';
    }
    s << "\"/>\n<text x=\"" << W - R + 10 << "\" y=\"" << T + 16 * (k + 1) << "\" fill=\"" << c << "\">" << sr.name
      << "</text>\n";
  }
  s << "</svg>\n";
  write_atomically(path, s.str());
}

}  // namespace kindling::train
