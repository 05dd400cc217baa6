// kd::set_flush_denormal against torch.set_flush_denormal: the same values with flushing on and off.
#include <catch2/catch.hpp>
#include <kindling/tensor.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "torch_oracle.hpp"

namespace kd = kindling;

namespace {

// Denormal inputs (1e-39, 3e-39), a normal one (1e-30) and a product whose result is denormal:
// with flushing on, a denormal input is read as zero (DAZ) and a denormal result is zero (FTZ).
std::vector<double> kindling_values(bool on) {
  REQUIRE(kd::set_flush_denormal(on));
  const kd::Tensor x = kd::tensor({1e-39f, 3e-39f, 1e-30f});
  std::vector<double> out;
  for (const kd::Tensor& t : {x * 0.5, x + 0.0, x.sum().reshape({1}),
                              kd::tensor({1e-20f}) * kd::tensor({1e-20f})}) {
    for (float v : t.to_vector<float>()) out.push_back(v);
  }
  kd::set_flush_denormal(false);
  return out;
}

std::vector<double> parse(const std::string& s) {
  std::istringstream in(s);
  std::vector<double> out;
  for (std::string word; in >> word;) out.push_back(std::stod(word));
  return out;
}

}  // namespace

TEST_CASE("set_flush_denormal: denormal inputs and results are zero while on, as torch.set_flush_denormal") {
  const auto py = kd::testing::python_eval({"values(True)", "values(False)"}, R"(
def values(on):
    assert torch.set_flush_denormal(on)
    x = torch.tensor([1e-39, 3e-39, 1e-30])
    out = []
    for t in (x * 0.5, x + 0.0, x.sum().reshape(1), torch.tensor([1e-20]) * torch.tensor([1e-20])):
        out += [repr(float(v)) for v in t]
    torch.set_flush_denormal(False)
    return ' '.join(out)
)");
  const std::vector<double> on = kindling_values(true), off = kindling_values(false);
  CHECK(on == parse(py[0]));
  CHECK(off == parse(py[1]));
  CHECK(on[0] == 0.0);  // flushed
  CHECK(off[0] > 0.0);  // kept: the default
  CHECK_FALSE(kd::flush_denormal());
  kd::set_flush_denormal(true);
  CHECK(kd::flush_denormal());
  kd::set_flush_denormal(false);
  CHECK_FALSE(kd::flush_denormal());
}
