// ONNX's own conformance data (Debian's libonnx-testdata): every node test case is a
// folder with model.onnx and test_data_set_0/{input,output}_N.pb. Each model is loaded
// with kd::onnx::load, run on the inputs, and its outputs are compared with the
// expected ones. (The test suite runs the same cases, each in a process of its own,
// against an exclusion list with a reason per case: tests/onnx/onnx_conformance.cpp.)
#include <filesystem>
#include <map>

#include "common.hpp"

namespace fs = std::filesystem;

std::vector<fs::path> numbered(const fs::path& dir, const std::string& stem) {
  std::vector<fs::path> files;
  for (int i = 0; fs::exists(dir / (stem + "_" + std::to_string(i) + ".pb")); ++i)
    files.push_back(dir / (stem + "_" + std::to_string(i) + ".pb"));
  return files;
}

// [snippet: case]
// "passed", "failed" or "not supported" (an op or attribute the importer refuses).
std::string run_case(const fs::path& dir) {
  try {
    auto model = kd::onnx::load(dir / "model.onnx");
    std::vector<kd::Tensor> inputs, expected;
    for (const auto& p : numbered(dir / "test_data_set_0", "input"))
      inputs.push_back(kd::onnx::load_tensor(p));
    for (const auto& p : numbered(dir / "test_data_set_0", "output"))
      expected.push_back(kd::onnx::load_tensor(p));
    const std::vector<kd::Tensor> got = model->forward_all(inputs);
    if (got.size() < expected.size()) return "failed";
    for (std::size_t i = 0; i < expected.size(); ++i) {
      if (got[i].shape() != expected[i].shape() ||
          got[i].dtype() != expected[i].dtype())
        return "failed";
      // ONNX's own tolerance (rtol 1e-3), with atol 1e-5 for float32 sums near zero
      const kd::Tensor g = got[i].to(kd::kFloat64), e = expected[i].to(kd::kFloat64);
      if (!kd::allclose(g, e, 1e-3, 1e-5, /*equal_nan=*/true)) return "failed";
    }
    return "passed";
  } catch (const kd::Error& e) {
    return std::string(e.what()).find("not supported") != std::string::npos
               ? "not supported"
               : "failed";
  }
}
// [end]

int main() {
  const fs::path root = "/usr/share/libonnx-testdata/data/node";
  std::vector<fs::path> cases;
  for (const auto& entry : fs::directory_iterator(root))
    if (fs::exists(entry.path() / "model.onnx")) cases.push_back(entry.path());
  std::sort(cases.begin(), cases.end());
  std::map<std::string, int> count;
  std::map<std::string, std::vector<std::string>> examples;
  for (const fs::path& dir : cases) {
    const std::string status = run_case(dir);
    ++count[status];
    examples[status].push_back(dir.filename().string());
  }
  std::printf("%zu node test cases in %s\n", cases.size(), root.c_str());
  for (const char* status : {"passed", "failed", "not supported"})
    std::printf("%-14s %4d (%.1f%%)\n", status, count[status],
                100.0 * count[status] / static_cast<double>(cases.size()));
  for (const char* status : {"failed", "not supported"}) {
    const auto& names = examples[status];
    if (names.empty()) continue;
    std::printf("%s, the first few:", status);
    for (std::size_t i = 0; i < names.size() && i < 4; ++i)
      std::printf(" %s", names[i].c_str());
    std::printf("\n");
  }
}
