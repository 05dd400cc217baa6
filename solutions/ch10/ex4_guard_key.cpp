// ch10.ex4 — the compiled module's guard: what a traced graph depends on, besides the parameters'
// values, written as a string.
//
// jit::detail::guard_key (kindling/jit/pieces.hpp): CompiledModule::forward
// (lib/src/jit/compile_module.cpp) calls it on every call and runs the graph stored under the key,
// or traces and compiles a new one.
#include "kindling/jit/pieces.hpp"

#include <sstream>

#include "kindling/autograd/grad_mode.hpp"
#include "kindling/nn/module.hpp"

namespace kindling::jit::detail {

std::string guard_key(const Tensor& input, nn::Module& model) {
  // BEGIN SOLUTION ex4: dtype, shape, strides, grad mode, every train flag, every requires_grad
  std::ostringstream os;
  os << dtype_name(input.dtype()) << shape_str(input.shape()) << shape_str(input.strides())
     << " grad=" << is_grad_enabled() << " train=";
  for (const nn::Module* m : model.modules()) os << m->is_training();
  os << " requires_grad=";
  for (const Tensor& p : model.parameters()) os << p.requires_grad();
  return os.str();
  // END SOLUTION
}

}  // namespace kindling::jit::detail
