// Printing exactly like PyTorch 1.13's repr (torch/_tensor_str.py), so a reader can put Kindling's
// output next to PyTorch's and see the same characters:
//
//   tensor([[1., 2.],
//           [3., 4.]], dtype=torch.float64)
//
// One formatter per tensor picks a style for *all* elements (integers-as-floats "1.", fixed "1.2500"
// or scientific "1.2500e-05") and a common width, so columns line up. Big tensors are summarised
// with "..." keeping `edgeitems` rows/columns at each end.
#include <cmath>
#include <cstdio>
#include <ostream>
#include <string>

#include "kindling/tensor/print.hpp"

#include "internal.hpp"

namespace kindling {
namespace {

PrintOptions g_options;

// Python's "{:.{p}f}" / "{:{w}.{p}e}" for one double (Python writes nan/inf without a sign on nan).
std::string py_format(double v, char style, int precision, int width = 0) {
  std::string s;
  if (std::isnan(v)) {
    s = "nan";
  } else if (std::isinf(v)) {
    s = v > 0 ? "inf" : "-inf";
  } else {
    char buf[512];
    const char fmt[] = {'%', '.', '*', style, '\0'};
    std::snprintf(buf, sizeof(buf), fmt, precision, v);
    s = buf;
  }
  if (static_cast<int>(s.size()) < width) s.insert(0, width - s.size(), ' ');
  return s;
}

// The elements, read out once: doubles for floating tensors, int64 for the rest.
struct Values {
  bool floating = false, boolean = false;
  std::vector<double> f;
  std::vector<std::int64_t> i;
  std::size_t size() const { return floating ? f.size() : i.size(); }
};

// _Formatter: decides int_mode / sci_mode and the common width from (the summarised) values.
class Formatter {
 public:
  Formatter(const Values& v, int precision) : floating_(v.floating), boolean_(v.boolean), precision_(precision) {
    if (!floating_) {
      for (auto x : v.i) width_ = std::max(width_, static_cast<int>(int_str(x).size()));
      return;
    }
    std::vector<double> finite;  // nonzero finite values decide the style
    for (double x : v.f)
      if (std::isfinite(x) && x != 0) finite.push_back(x);
    if (finite.empty()) return;
    double lo = std::abs(finite[0]), hi = lo;
    for (double x : finite) {
      lo = std::min(lo, std::abs(x));
      hi = std::max(hi, std::abs(x));
      if (x != std::ceil(x)) int_mode_ = false;
    }
    if (int_mode_) {
      // All whole numbers: print "3." — unless the range is so wide that scientific reads better.
      sci_mode_ = hi / lo > 1000.0 || hi > 1.0e8;
      for (double x : finite) {
        const int len = sci_mode_ ? static_cast<int>(py_format(x, 'e', precision_).size())
                                  : static_cast<int>(py_format(x, 'f', 0).size()) + 1;
        width_ = std::max(width_, len);
      }
    } else {
      sci_mode_ = hi / lo > 1000.0 || hi > 1.0e8 || lo < 1.0e-4;
      for (double x : finite)
        width_ = std::max(width_, static_cast<int>(py_format(x, sci_mode_ ? 'e' : 'f', precision_).size()));
    }
  }

  int width() const { return width_; }

  std::string format_float(double x) const {
    std::string s;
    if (sci_mode_) s = py_format(x, 'e', precision_, width_);
    else if (int_mode_) s = py_format(x, 'f', 0) + (std::isfinite(x) ? "." : "");
    else s = py_format(x, 'f', precision_);
    return pad(s);
  }
  std::string format_int(std::int64_t x) const { return pad(int_str(x)); }

 private:
  std::string int_str(std::int64_t x) const { return boolean_ ? (x ? "True" : "False") : std::to_string(x); }
  std::string pad(std::string s) const {
    if (static_cast<int>(s.size()) < width_) s.insert(0, width_ - s.size(), ' ');
    return s;
  }
  bool floating_, boolean_;
  int precision_;
  bool int_mode_ = true, sci_mode_ = false;
  int width_ = 1;
};

// Renders a contiguous block of values with shape `shape` (torch's _tensor_str_with_formatter).
class Printer {
 public:
  Printer(const Shape& shape, const Values& values, bool summarize, const PrintOptions& o)
      : shape_(shape), strides_(contiguous_strides(shape)), v_(values), summarize_(summarize), o_(o) {}

  // get_summarized_data: only the values that will be shown decide the formatter.
  Values summarized() const {
    Values out;
    out.floating = v_.floating;
    out.boolean = v_.boolean;
    collect(0, 0, out);
    return out;
  }

  std::string render(const Formatter& f, int indent) const { return tensor_str(f, 0, 0, indent); }

 private:
  bool cut(std::size_t level) const { return summarize_ && shape_[level] > 2 * o_.edgeitems; }

  void push(std::int64_t off, Values& out) const {
    if (v_.floating) out.f.push_back(v_.f[off]);
    else out.i.push_back(v_.i[off]);
  }

  void collect(std::size_t level, std::int64_t off, Values& out) const {
    if (level == shape_.size()) return push(off, out);
    for (std::int64_t k = 0; k < shape_[level]; ++k) {
      if (cut(level) && k == o_.edgeitems) k = shape_[level] - o_.edgeitems;
      collect(level + 1, off + k * strides_[level], out);
    }
  }

  std::string element(const Formatter& f, std::int64_t off) const {
    return v_.floating ? f.format_float(v_.f[off]) : f.format_int(v_.i[off]);
  }

  std::string tensor_str(const Formatter& f, std::size_t level, std::int64_t off, int indent) const {
    const std::size_t remaining = shape_.size() - level;
    if (remaining == 0) return element(f, off);
    std::vector<std::string> parts;
    for (std::int64_t k = 0; k < shape_[level]; ++k) {
      if (cut(level) && k == o_.edgeitems) {
        parts.push_back(remaining == 1 ? " ..." : "...");
        k = shape_[level] - o_.edgeitems;
      }
      const std::int64_t o = off + k * strides_[level];
      parts.push_back(remaining == 1 ? element(f, o) : tensor_str(f, level + 1, o, indent + 1));
    }
    std::string sep;
    if (remaining == 1) {
      // _vector_str: as many elements per line as fit in linewidth.
      const int element_length = f.width() + 2;
      const auto per_line = std::max<std::int64_t>(
          1, static_cast<std::int64_t>(std::floor(double(o_.linewidth - indent) / element_length)));
      std::string s = "[";
      for (std::size_t j = 0; j < parts.size(); ++j) {
        if (j > 0) s += j % per_line == 0 ? ",\n" + std::string(indent + 1, ' ') : ", ";
        s += parts[j];
      }
      return s + "]";
    }
    // Sub-tensors are separated by one newline per remaining dimension beyond the first.
    sep = "," + std::string(remaining - 1, '\n') + std::string(indent + 1, ' ');
    std::string s = "[";
    for (std::size_t j = 0; j < parts.size(); ++j) s += (j ? sep : "") + parts[j];
    return s + "]";
  }

  Shape shape_;
  Strides strides_;
  const Values& v_;
  bool summarize_;
  const PrintOptions& o_;
};

std::string tuple_str(const Shape& s) {
  std::string out = "(";
  for (std::size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
  return out + (s.size() == 1 ? ",)" : ")");
}

// _add_suffixes: ", dtype=..." on the last line if it fits in linewidth, else on a new line.
std::string add_suffixes(std::string s, const std::vector<std::string>& suffixes, int indent, int linewidth) {
  const auto nl = s.rfind('\n');
  std::int64_t last_line_len =
      static_cast<std::int64_t>(s.size()) - (nl == std::string::npos ? -1 : static_cast<std::int64_t>(nl)) + 1;
  for (const auto& suffix : suffixes) {
    const auto len = static_cast<std::int64_t>(suffix.size());
    if (last_line_len + len + 2 > linewidth) {
      s += ",\n" + std::string(indent, ' ') + suffix;
      last_line_len = indent + len;
    } else {
      s += ", " + suffix;
      last_line_len += len + 2;
    }
  }
  return s + ")";
}

}  // namespace

void set_printoptions(const PrintOptions& options) {
  if (options.precision < 0 || options.threshold < 0 || options.edgeitems < 0 || options.linewidth <= 0) {
    throw ValueError("set_printoptions: precision, threshold and edgeitems must be >= 0 and linewidth > 0.");
  }
  g_options = options;
}

const PrintOptions& get_printoptions() { return g_options; }

std::string Tensor::to_string() const {
  if (!defined()) return "[ Tensor (undefined) ]";
  const PrintOptions& o = g_options;
  const std::string prefix = "tensor(";
  const int indent = static_cast<int>(prefix.size());
  std::vector<std::string> suffixes;
  if (!device().is_cpu()) suffixes.push_back("device='" + device().str() + "'");
  const std::string dtype_suffix = std::string("dtype=torch.") + dtype_name(dtype());

  std::string body;
  if (numel() == 0) {
    if (dim() != 1) suffixes.push_back("size=" + tuple_str(shape()));
    if (dtype() != kFloat32) suffixes.push_back(dtype_suffix);  // nothing to tell int from float
    body = "[]";
  } else {
    if (dtype() != kFloat32 && dtype() != kInt64 && dtype() != kBool) suffixes.push_back(dtype_suffix);
    const Tensor host = cpu();
    Values v;
    v.floating = host.is_floating_point();
    v.boolean = host.dtype() == kBool;
    if (v.floating) v.f = host.to_vector<double>();
    else v.i = host.to_vector<std::int64_t>();
    const bool summarize = numel() > o.threshold;
    Printer printer(shape(), v, summarize, o);
    const Formatter f(summarize ? printer.summarized() : v, o.precision);
    body = printer.render(f, indent);
  }

  auto name_of = detail::node_name_fn();
  const std::string node = impl()->autograd_meta && name_of ? name_of(*this) : std::string();
  if (!node.empty()) {
    suffixes.push_back("grad_fn=<" + node + ">");
  } else if (impl()->requires_grad()) {
    suffixes.push_back("requires_grad=True");
  }
  return add_suffixes(prefix + body, suffixes, indent, o.linewidth);
}

std::ostream& operator<<(std::ostream& os, const Tensor& t) { return os << t.to_string(); }

}  // namespace kindling
