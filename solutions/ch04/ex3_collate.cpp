// ex3 — collate: a list of samples -> one batch (one allocation, one copy per sample).
#include "ch04/data_exercises.hpp"

namespace kindling::exercises::ch04 {

// BEGIN SOLUTION ex3
namespace {
// Stacks one field (data or target) of every sample: [B, ...sample shape].
Tensor stack_field(const std::vector<Example>& samples, bool target) {
  auto field = [&](std::size_t b) -> const Tensor& { return target ? samples[b].target : samples[b].data; };
  const char* what = target ? "target" : "data";
  const Tensor& first = field(0);
  if (!first.defined()) throw ShapeError(std::string("collate: sample 0's ") + what + " is undefined");
  for (std::size_t b = 1; b < samples.size(); ++b) {
    const Tensor& s = field(b);
    if (!s.defined() || s.shape() != first.shape() || s.dtype() != first.dtype()) {
      throw ShapeError("collate: sample " + std::to_string(b) + "'s " + what + " " +
                       (s.defined() ? shape_str(s.shape()) + " " + dtype_name(s.dtype()) : "(undefined)") +
                       " differs from sample 0's " + shape_str(first.shape()) + " " + dtype_name(first.dtype()) +
                       ": every sample of a batch needs the same shape and dtype");
    }
  }
  Shape shape{static_cast<std::int64_t>(samples.size())};  // [B, ...S]
  shape.insert(shape.end(), first.shape().begin(), first.shape().end());
  Tensor out = empty(shape, {.dtype = first.dtype()});
  for (std::size_t b = 0; b < samples.size(); ++b) {
    out.select(0, static_cast<std::int64_t>(b)).copy_(field(b));  // slot b; copy_ follows any strides
  }
  return out;
}
}  // namespace
// STUB
// // ex3: helper functions may go here
// END SOLUTION

Example collate(std::vector<Example> samples) {
  // BEGIN SOLUTION ex3: allocate [B, ...] once, copy sample b into out.select(0, b); same for the labels
  if (samples.empty()) throw ValueError("collate: cannot make a batch out of zero samples");
  return Example{stack_field(samples, false), stack_field(samples, true)};
  // END SOLUTION
}

}  // namespace kindling::exercises::ch04
