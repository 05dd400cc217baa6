// ch11.ex2 — compute_bucket_assignment_by_size (which calls the piece detail::assign_buckets):
// tensors of the twin's sizes and dtypes and the twin's limits, against PyTorch's own
// torch.distributed._compute_bucket_assignment_by_size (the function DDP's reducer calls).
#include "ch11_grading.hpp"

using namespace ch11_grading;

namespace {

/// The twin's tensors: "numels" elements each, of "dtypes" (0 float32, 1 float64, 2 bfloat16);
/// their buckets under the twin's "limits" (bytes), reported one by one.
void report_buckets() {
  const std::vector<std::int64_t> numels = ints_of("numels"), dtypes = ints_of("dtypes");
  const kd::DType codes[] = {kd::kFloat32, kd::kFloat64, kd::kBFloat16};
  std::vector<kd::Tensor> tensors;
  for (std::size_t i = 0; i < numels.size(); ++i) tensors.push_back(kd::zeros({numels[i]}, {.dtype = codes[dtypes[i]]}));
  const auto buckets = dist::compute_bucket_assignment_by_size(tensors, ints_of("limits"));
  grading::expect("number of buckets", static_cast<std::int64_t>(buckets.size()));
  for (std::size_t k = 0; k < buckets.size(); ++k) grading::expect("bucket " + std::to_string(k), buckets[k]);
}

}  // namespace

TEST_CASE("bucket assignment: one dtype, a smaller first bucket", "[ch11][ex2][pts=5]") { report_buckets(); }

TEST_CASE("bucket assignment: mixed dtypes, each dtype its own buckets", "[ch11][ex2][pts=5]") { report_buckets(); }

TEST_CASE("bucket assignment: three limits, and tensors larger than a limit", "[ch11][ex2][pts=5]") {
  report_buckets();
}
