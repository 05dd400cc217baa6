#pragma once
// Shared by chapter 1's graded tests. Views are described by small programs — "t", "permute 2 0 1",
// "slice 1 1 7 2" (dim start stop step), "narrow 0 1 3", "select 0 2", "expand 3 4", "unsqueeze 1",
// "transpose 0 1" — separated by ';'. The PyTorch twin (pytorch.py) writes them and applies the same
// program to the same bytes, so both sides see the same view; expected values come only from there.
#include <sstream>
#include <string>
#include <vector>

#include "grading.hpp"

namespace ch01_grading {
namespace kd = kindling;

inline std::vector<std::int64_t> numbers(std::istringstream& in) {
  std::vector<std::int64_t> v;
  for (std::int64_t x; in >> x;) v.push_back(x);
  return v;
}

/// Applies a view program ("t; slice 1 0 6 2") to `t`.
inline kd::Tensor apply_view(kd::Tensor t, const std::string& program) {
  std::istringstream ops(program);
  for (std::string op; std::getline(ops, op, ';');) {
    std::istringstream in(op);
    std::string verb;
    if (!(in >> verb)) continue;
    const std::vector<std::int64_t> a = numbers(in);
    if (verb == "t") t = t.t();
    else if (verb == "permute") t = t.permute(a);
    else if (verb == "transpose") t = t.transpose(a.at(0), a.at(1));
    else if (verb == "slice") t = t.slice(a.at(0), a.at(1), a.at(2), a.at(3));
    else if (verb == "narrow") t = t.narrow(a.at(0), a.at(1), a.at(2));
    else if (verb == "select") t = t.select(a.at(0), a.at(1));
    else if (verb == "expand") t = t.expand(kd::Shape(a.begin(), a.end()));
    else if (verb == "unsqueeze") t = t.unsqueeze(a.at(0));
    else throw std::runtime_error("ch01_grading: unknown view op '" + verb + "'");
  }
  return t;
}

/// One line of a layouts input: "name|program" — the view is of input base_<k> (k = line number).
struct Layout {
  std::string name, program;
};
inline std::vector<Layout> layouts(const std::string& text) {
  std::vector<Layout> out;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    const auto bar = line.find('|');
    if (bar == std::string::npos) continue;
    out.push_back({line.substr(0, bar), line.substr(bar + 1)});
  }
  return out;
}

/// The views a layouts input describes, built from inputs <prefix>base_0, <prefix>base_1, ...
inline std::vector<std::pair<std::string, kd::Tensor>> views(const std::string& prefix = "") {
  std::vector<std::pair<std::string, kd::Tensor>> out;
  const auto ls = layouts(grading::input_text(prefix + "layouts"));
  for (std::size_t k = 0; k < ls.size(); ++k) {
    out.emplace_back(ls[k].name, apply_view(grading::input(prefix + "base_" + std::to_string(k)), ls[k].program));
  }
  return out;
}

}  // namespace ch01_grading

namespace ch01_grading {

/// A text input of one list of integers per line ("2 3 4"; "-" is the empty list, a 0-d shape).
inline std::vector<std::vector<std::int64_t>> int_lists(const std::string& input_name) {
  std::vector<std::vector<std::int64_t>> out;
  std::istringstream lines(grading::input_text(input_name));
  for (std::string line; std::getline(lines, line);) {
    if (line.empty()) continue;
    std::istringstream in(line == "-" ? "" : line);
    out.push_back(numbers(in));
  }
  return out;
}

/// "[2, 3]" for a list of integers (the same text the twin writes).
inline std::string str(const std::vector<std::int64_t>& v) { return grading::ints_str(v); }

}  // namespace ch01_grading
