// Strict CSV field parsing (see kindling/data/csv_parse.hpp).
#include "kindling/data/csv_parse.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>

#include "kindling/tensor/error.hpp"

namespace kindling::data::csv {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

std::vector<std::string_view> split_fields(std::string_view line, char delimiter) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  for (;;) {
    const std::size_t pos = line.find(delimiter, start);
    out.push_back(trim(line.substr(start, pos == std::string_view::npos ? std::string_view::npos : pos - start)));
    if (pos == std::string_view::npos) return out;
    start = pos + 1;
  }
}

std::optional<double> parse_number(std::string_view field) {
  if (field.empty()) return std::nullopt;
  const std::string text(field);  // strtod needs a terminated string
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size()) return std::nullopt;
  // ERANGE: overflow ("1e999") is refused; underflow ("1e-400") is a tiny number and kept as such.
  if (errno == ERANGE && std::isinf(v)) return std::nullopt;
  return v;
}

std::optional<std::string> label_problem(double value) {
  constexpr double kMaxExact = 9007199254740992.0;  // 2^53
  if (std::isnan(value)) return "NaN is not a class label";
  if (std::isinf(value)) return "infinity is not a class label";
  if (value != std::floor(value)) return "it is not a whole number (class labels are 0, 1, 2...)";
  if (std::fabs(value) > kMaxExact) return "it is too large to be a class index";
  return std::nullopt;
}

std::int64_t to_class_label(double value, const std::string& what) {
  if (auto problem = label_problem(value)) throw ValueError(what + ": " + *problem);
  return static_cast<std::int64_t>(value);
}

}  // namespace kindling::data::csv
