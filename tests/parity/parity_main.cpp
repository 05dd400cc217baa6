// Runs every PARITY_CASE of this binary against the oracle's files and reports each difference.
//   parity_<suite> <oracle output dir> [case-name-substring]
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <set>

#include <nlohmann/json.hpp>

#include "parity.hpp"

namespace parity {
namespace {
std::map<std::string, CaseFn>& registry() {
  static std::map<std::string, CaseFn> r;
  return r;
}

// Largest |a - b| - (atol + rtol |b|) over all elements (> 0 means out of tolerance), NaNs must match.
std::string compare(const kd::Tensor& got, const kd::Tensor& want, double rtol, double atol) {
  if (got.shape() != want.shape()) {
    return "shape " + kd::shape_str(got.shape()) + " != expected " + kd::shape_str(want.shape());
  }
  auto g = got.to_vector<double>(), w = want.to_vector<double>();
  double worst = 0;
  std::size_t worst_i = 0;
  for (std::size_t i = 0; i < g.size(); ++i) {
    if (std::isnan(w[i]) || std::isnan(g[i])) {
      if (std::isnan(w[i]) != std::isnan(g[i])) return "NaN mismatch at flat index " + std::to_string(i);
      continue;
    }
    if (std::isinf(w[i]) || std::isinf(g[i])) {
      if (g[i] != w[i]) return "inf mismatch at flat index " + std::to_string(i);
      continue;
    }
    const double excess = std::abs(g[i] - w[i]) - (atol + rtol * std::abs(w[i]));
    if (excess > worst) worst = excess, worst_i = i;
  }
  if (worst > 0) {
    char buf[256];
    std::snprintf(buf, sizeof buf, "value at flat index %zu: got %.9g, expected %.9g (rtol %g, atol %g)",
                  worst_i, g[worst_i], w[worst_i], rtol, atol);
    return buf;
  }
  return "";
}
}  // namespace

kd::Tensor& Inputs::operator[](const std::string& name) {
  auto it = tensors_.find(name);
  if (it == tensors_.end()) throw kd::ValueError("parity case: no input named '" + name + "'");
  return it->second;
}

bool register_case(const char* name, CaseFn fn) {
  if (!registry().emplace(name, std::move(fn)).second) {
    std::fprintf(stderr, "parity: duplicate C++ case '%s'\n", name);
    std::abort();
  }
  return true;
}

GradHooks& grad_hooks() {
  static GradHooks h;
  return h;
}

namespace {
std::string& oracle_dir_storage() {
  static std::string d;
  return d;
}
}  // namespace
const std::string& oracle_dir() { return oracle_dir_storage(); }

}  // namespace parity

int main(int argc, char** argv) {
  using namespace parity;
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s ORACLE_DIR [filter]\n", argv[0]);
    return 2;
  }
  const std::string dir = argv[1];
  oracle_dir_storage() = dir;
  const std::string filter = argc > 2 ? argv[2] : "";
  std::ifstream mf(dir + "/manifest.json");
  if (!mf) {
    std::fprintf(stderr, "parity: %s/manifest.json not found — run the oracle first\n", dir.c_str());
    return 2;
  }
  const auto manifest = nlohmann::json::parse(mf);
  int passed = 0, failed = 0;
  std::set<std::string> seen;
  for (const auto& c : manifest["cases"]) {
    const std::string name = c["name"];
    seen.insert(name);
    if (!filter.empty() && name.find(filter) == std::string::npos) continue;
    const std::string cdir = dir + "/" + c["dir"].get<std::string>() + "/";
    std::vector<std::string> problems;
    auto it = registry().find(name);
    if (it == registry().end()) {
      problems.push_back("no C++ PARITY_CASE with this name");
    } else {
      try {
        Inputs in;
        for (const auto& iname : c["inputs"]) {
          kd::Tensor t = kd::load_npy(cdir + "in_" + iname.get<std::string>() + ".npy");
          const auto bf16 = c.value("bfloat16_inputs", nlohmann::json::array());
          if (std::find(bf16.begin(), bf16.end(), iname) != bf16.end()) t = t.to(kd::kBFloat16);  // exact
          const auto& nograd = c["nograd"];
          const bool excluded = std::find(nograd.begin(), nograd.end(), iname) != nograd.end();
          if (c["grad"].get<bool>() && t.is_floating_point() && !excluded) {
            if (!grad_hooks().requires_grad) throw kd::Error("grad case in a suite without autograd");
            grad_hooks().requires_grad(t);
          }
          in.all()[iname.get<std::string>()] = t;
        }
        if (c["expect_error"].get<bool>()) {
          try {
            it->second(in);
            problems.push_back("PyTorch raises (" + c["torch_error"].get<std::string>() +
                               ") but Kindling did not throw");
          } catch (const kd::Error&) {
          }
        } else {
          auto outs = it->second(in).tensors;
          const auto& eouts = c["outputs"];
          if (outs.size() != eouts.size()) {
            problems.push_back("returned " + std::to_string(outs.size()) + " outputs, PyTorch " +
                               std::to_string(eouts.size()));
          }
          for (std::size_t k = 0; k < outs.size() && k < eouts.size(); ++k) {
            kd::Tensor want = kd::load_npy(cdir + "out_" + std::to_string(k) + ".npy");
            if (eouts[k]["dtype"] == "bfloat16") want = want.to(kd::kBFloat16);  // NumPy has none: float32
            if (outs[k].dtype() != want.dtype()) {
              problems.push_back("output " + std::to_string(k) + ": dtype " + kd::dtype_name(outs[k].dtype()) +
                                 ", PyTorch gives " + kd::dtype_name(want.dtype()));
            }
            auto diff = compare(outs[k], want, eouts[k]["rtol"], eouts[k]["atol"]);
            if (!diff.empty()) problems.push_back("output " + std::to_string(k) + ": " + diff);
          }
          if (c.contains("graphs") && problems.empty()) {
            for (std::size_t k = 0; k < outs.size() && k < c["graphs"].size(); ++k) {
              const std::string want = c["graphs"][k].dump(), got = grad_hooks().graph(outs[k]);
              if (got != want) {
                problems.push_back("graph of output " + std::to_string(k) + ":\n       PyTorch  " + want +
                                   "\n       Kindling " + got);
              }
            }
          }
          if (c["grad"].get<bool>() && problems.empty()) {
            std::vector<kd::Tensor> douts, gouts;
            for (const auto& k : c["gouts"]) {
              douts.push_back(outs[k.get<int>()]);
              kd::Tensor g = kd::load_npy(cdir + "gout_" + std::to_string(k.get<int>()) + ".npy");
              gouts.push_back(g.to(outs[k.get<int>()].dtype()));  // bfloat16 travels as float32
            }
            grad_hooks().backward(douts, gouts);
            for (const auto& g : c["grads"]) {
              const std::string iname = g["input"];
              kd::Tensor want = kd::load_npy(cdir + "grad_" + iname + ".npy");
              kd::Tensor got = grad_hooks().grad(in[iname]);
              if (!got.defined() && g["none"].get<bool>()) continue;  // PyTorch gives None too
              if (!got.defined()) {
                problems.push_back("grad of " + iname + ": undefined (backward did not reach it)");
                continue;
              }
              auto diff = compare(got, want, g["rtol"], g["atol"]);
              if (!diff.empty()) problems.push_back("grad of " + iname + ": " + diff);
            }
          }
        }
      } catch (const std::exception& e) {
        problems.push_back(std::string("threw: ") + e.what());
      }
    }
    if (problems.empty()) {
      ++passed;
    } else {
      ++failed;
      std::printf("FAIL %s\n", name.c_str());
      for (auto& p : problems) std::printf("     %s\n", p.c_str());
    }
  }
  for (const auto& [name, fn] : registry()) {
    if (!seen.count(name) && (filter.empty() || name.find(filter) != std::string::npos)) {
      ++failed;
      std::printf("FAIL %s\n     C++ case has no PyTorch twin in the suite's .py file\n", name.c_str());
    }
  }
  std::printf("parity %s: %d passed, %d failed (PyTorch %s)\n", manifest["suite"].get<std::string>().c_str(),
              passed, failed, manifest["torch"].get<std::string>().c_str());
  return failed == 0 && passed > 0 ? 0 : 1;
}
