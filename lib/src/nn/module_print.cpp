// print(model): PyTorch's Module.__repr__, reproduced exactly (same indentation, same order).
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <ostream>
#include <sstream>

#include "kindling/nn/functional.hpp"
#include "kindling/nn/module.hpp"
#include "nn/repr.hpp"

namespace kindling::nn {

namespace {
// torch.nn.modules.module._addindent: indent every line but the first by `spaces`.
std::string add_indent(const std::string& s, int spaces) {
  std::string out;
  const std::string pad(static_cast<std::size_t>(spaces), ' ');
  for (char c : s) {
    out += c;
    if (c == '\n') out += pad;
  }
  return out;
}

std::vector<std::string> split_lines(const std::string& s) {
  std::vector<std::string> lines;
  std::stringstream ss(s);
  std::string line;
  while (std::getline(ss, line)) lines.push_back(line);
  return lines;
}
}  // namespace

std::string Module::to_string() const {
  const std::string extra = extra_repr();
  std::vector<std::string> extra_lines = extra.empty() ? std::vector<std::string>{} : split_lines(extra);
  std::vector<std::string> child_lines;
  for (const Child& c : children_) child_lines.push_back("(" + c.name + "): " + add_indent(c.module->to_string(), 2));
  std::string s = type_name() + "(";
  if (extra_lines.size() == 1 && child_lines.empty()) {
    s += extra_lines[0];
  } else if (!extra_lines.empty() || !child_lines.empty()) {
    std::string body;
    for (const auto& l : extra_lines) body += "\n  " + l;
    for (const auto& l : child_lines) body += "\n  " + l;
    s += body + "\n";
  }
  return s + ")";
}

std::ostream& operator<<(std::ostream& os, const Module& module) { return os << module.to_string(); }

namespace detail {

std::string py_float(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  // Shortest digits that round-trip, in scientific form: "1e-05" → digits "1", exponent -5.
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
  std::string sci(buf, res.ptr);
  const auto e = sci.find('e');
  std::string mant = sci.substr(0, e);
  const int exp10 = std::atoi(sci.c_str() + e + 1);
  std::string sign;
  if (mant[0] == '-') {
    sign = "-";
    mant = mant.substr(1);
  }
  std::string digits;
  for (char c : mant)
    if (c != '.') digits += c;
  // Python's float_repr_style 'short': fixed notation when -4 <= exp < 16, else scientific.
  if (exp10 >= -4 && exp10 < 16) {
    std::string out;
    if (exp10 < 0) {
      out = "0." + std::string(static_cast<std::size_t>(-exp10 - 1), '0') + digits;
    } else if (static_cast<int>(digits.size()) <= exp10 + 1) {
      out = digits + std::string(static_cast<std::size_t>(exp10 + 1 - static_cast<int>(digits.size())), '0') + ".0";
    } else {
      out = digits.substr(0, static_cast<std::size_t>(exp10 + 1)) + "." + digits.substr(static_cast<std::size_t>(exp10 + 1));
    }
    return sign + out;
  }
  std::string m = digits.size() == 1 ? digits : digits.substr(0, 1) + "." + digits.substr(1);
  char ebuf[16];
  std::snprintf(ebuf, sizeof ebuf, "e%c%02d", exp10 < 0 ? '-' : '+', std::abs(exp10));
  return sign + m + ebuf;
}

std::string py_tuple(const std::vector<std::int64_t>& v) {
  std::string s = "(";
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + (v.size() == 1 ? ",)" : ")");
}

}  // namespace detail

std::string functional::IntPair::str(bool as_tuple) const {
  if (is_scalar && !as_tuple) return std::to_string(h);
  std::string s = "(";  // appended piece by piece: g++ 12 warns (wrongly) on "(" + std::to_string(h)
  s += std::to_string(h);
  s += ", ";
  s += std::to_string(w);
  s += ")";
  return s;
}

}  // namespace kindling::nn
