// The graded tests' side of the grader's protocol (grading.hpp): inputs in, reports out.
//
// The grader runs each graded test in its own process with KINDLING_GRADE_CASE=<folder>: the test's
// inputs are <folder>/in/<name>.npy (made by its PyTorch twin), and every reported result is appended,
// one JSON object per line, to <folder>/out/reports.jsonl. The values a report carries are read here
// straight from memory through the tensor's own shape, strides and offset — never through a library
// function an exercise may have replaced — so a report says exactly what the learner's code produced.
#include "grading.hpp"

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <typeinfo>

namespace grading {
namespace {

std::string case_dir() {
  static const std::string dir = [] {
    const char* v = std::getenv("KINDLING_GRADE_CASE");
    return std::string(v ? v : "");
  }();
  if (dir.empty()) {
    throw std::runtime_error("this graded test reads its inputs from the grader and reports to it: run it "
                             "with `make grade EX=chNN.exK` (or scripts/grade.py), not by hand");
  }
  return dir;
}

nlohmann::json number(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return v;
}

void write_report(nlohmann::json rec) {
  static std::FILE* out = [] {
    const std::string path = case_dir() + "/out/reports.jsonl";
    std::FILE* f = std::fopen(path.c_str(), "a");
    if (!f) throw std::runtime_error("cannot open " + path + " to report a result");
    return f;
  }();
  // error_handler::replace: a message may hold invalid UTF-8; the line must still parse.
  const std::string line = rec.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  if (std::fwrite(line.data(), 1, line.size(), out) != line.size() || std::fflush(out) != 0) {
    throw std::runtime_error("could not write a report (disk full?)");
  }
}

/// Element k (row-major order of t's shape) of t, read through t's strides.
template <class T> T element(const kd::Tensor& t, const char* base, const std::vector<std::int64_t>& idx) {
  std::int64_t off = 0;
  for (std::size_t d = 0; d < idx.size(); ++d) off += idx[d] * t.strides()[d];
  T v;
  std::memcpy(&v, base + off * static_cast<std::int64_t>(sizeof(T)), sizeof(T));
  return v;
}

nlohmann::json values_of(const kd::Tensor& t) {
  nlohmann::json data = nlohmann::json::array();
  const std::int64_t n = t.numel();
  if (n == 0) return data;
  const char* base = static_cast<const char*>(t.raw_data_ptr());  // element [0, 0, ...]
  std::vector<std::int64_t> idx(t.dim(), 0);
  const kd::Shape& shape = t.shape();
  for (std::int64_t k = 0; k < n; ++k) {
    switch (t.dtype()) {
      case kd::kFloat32: data.push_back(number(element<float>(t, base, idx))); break;
      case kd::kFloat64: data.push_back(number(element<double>(t, base, idx))); break;
      case kd::kInt64: data.push_back(element<std::int64_t>(t, base, idx)); break;
      case kd::kUInt8: data.push_back(element<std::uint8_t>(t, base, idx)); break;
      case kd::kBool: data.push_back(element<std::uint8_t>(t, base, idx) != 0); break;
      default: throw std::runtime_error(std::string("report: dtype ") + kd::dtype_name(t.dtype()) + " not supported");
    }
    for (std::int64_t d = t.dim() - 1; d >= 0; --d) {  // next index, last dimension fastest
      if (++idx[d] < shape[d]) break;
      idx[d] = 0;
    }
  }
  return data;
}

nlohmann::json ints_json(const std::vector<std::int64_t>& v) {
  nlohmann::json a = nlohmann::json::array();
  for (auto x : v) a.push_back(x);
  return a;
}

std::string error_class(const kd::Error& e) {
  if (dynamic_cast<const kd::ShapeError*>(&e)) return "ShapeError";
  if (dynamic_cast<const kd::IndexError*>(&e)) return "IndexError";
  if (dynamic_cast<const kd::DTypeError*>(&e)) return "DTypeError";
  if (dynamic_cast<const kd::DeviceError*>(&e)) return "DeviceError";
  if (dynamic_cast<const kd::ValueError*>(&e)) return "ValueError";
  if (dynamic_cast<const kd::IOError*>(&e)) return "IOError";
  if (dynamic_cast<const kd::AutogradError*>(&e)) return "AutogradError";
  return "Error";
}

}  // namespace

std::string ints_str(const std::vector<std::int64_t>& v) {
  std::string s = "[";
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

std::string describe(const kd::Tensor& t) {
  if (!t.defined()) return "an undefined tensor";
  std::string s = std::string(kd::dtype_name(t.dtype())) + " tensor of shape " +
                  ints_str(std::vector<std::int64_t>(t.shape().begin(), t.shape().end()));
  if (t.numel() <= 12) s += " " + values_of(t).dump();
  return s;
}

kd::Tensor input(const std::string& name) {
  return kd::load_npy(case_dir() + "/in/" + name + ".npy");
}

std::string input_text(const std::string& name) {
  const std::string path = case_dir() + "/in/" + name + ".txt";
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) throw std::runtime_error("grading: no text input " + path);
  std::string text;
  char buf[4096];
  for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;) text.append(buf, n);
  std::fclose(f);
  return text;
}

void expect(const std::string& name, const kd::Tensor& value) {
  if (!value.defined()) {
    write_report({{"name", name}, {"kind", "tensor"}, {"undefined", true}});
    return;
  }
  write_report({{"name", name},
                {"kind", "tensor"},
                {"dtype", kd::dtype_name(value.dtype())},
                {"shape", ints_json(std::vector<std::int64_t>(value.shape().begin(), value.shape().end()))},
                {"data", values_of(value)}});
}

void expect_ints(const std::string& name, const std::vector<std::int64_t>& value) {
  write_report({{"name", name}, {"kind", "ints"}, {"data", ints_json(value)}});
}
void expect(const std::string& name, bool value) {
  write_report({{"name", name}, {"kind", "bool"}, {"data", value}});
}
void expect(const std::string& name, std::int64_t value) {
  write_report({{"name", name}, {"kind", "int"}, {"data", value}});
}
void expect(const std::string& name, double value) {
  write_report({{"name", name}, {"kind", "float"}, {"data", number(value)}});
}
void expect(const std::string& name, const std::string& value) {
  write_report({{"name", name}, {"kind", "str"}, {"data", value}});
}
void expect(const std::string& name, const std::vector<std::string>& value) {
  write_report({{"name", name}, {"kind", "strs"}, {"data", value}});
}

std::string expect_error(const std::string& name, const std::function<void()>& f) {
  try {
    f();
  } catch (const kd::NotImplemented&) {
    throw;  // a stub: the exercise is not done yet (the grader says so)
  } catch (const kd::Error& e) {
    write_report({{"name", name}, {"kind", "error"}, {"error", error_class(e)}, {"message", e.what()}});
    return e.what();
  } catch (const std::exception& e) {
    write_report({{"name", name}, {"kind", "error"}, {"error", std::string("std::exception (") + typeid(e).name() + ")"},
                  {"message", e.what()}});
    return e.what();
  }
  write_report({{"name", name}, {"kind", "error"}, {"error", nullptr}});
  return "";
}

}  // namespace grading
