#pragma once
// What kd::compile's files share (not installed):
//   compile_graph.cpp    the IR (printing) and the tracer;
//   compile_ops.cpp      the op table: what each traced op records, and how to run it again;
//   compile_passes.cpp   dead-code elimination, constant folding, elementwise fusion, LayerNorm;
//   compile_codegen.cpp  C++ for each fused node (one loop, shapes and strides baked in);
//   compile_codegen_rows.cpp  ... and for a fused node that ends in a LayerNorm (a loop over rows);
//   compile_derivatives.cpp  the derivative of each elementwise op, for the generated backward;
//   compile_cache.cpp    the compiler run, the on-disk cache (SHA-256 checked) and dlopen;
//   compile_module.cpp   running a graph (the fused nodes' autograd node), guards, CompiledModule.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "kindling/autograd/function.hpp"
#include "kindling/jit/compile.hpp"
#include "kindling/tensor/autograd_hooks.hpp"

namespace kindling::jit {

/// A generated function, loaded: `fn(outs, ins)` writes every output of its fused node. The loop
/// bounds and strides are constants in its code, so it only runs on tensors with the traced shapes
/// and strides (run() checks, and runs the node's ops eagerly otherwise).
struct Kernel {
  using Fn = void (*)(float* const* outs, const float* const* ins);
  std::string name;  // "kd_fused_3": the symbol
  Fn fn = nullptr;
  /// Its backward (CompileOptions::generate_backward): gins[i] = the gradient of input i over the
  /// loop's shape, from the inputs and gouts[k], the (contiguous) gradients of the outputs.
  using BackwardFn = void (*)(float* const* gins, const float* const* ins, const float* const* gouts);
  BackwardFn backward = nullptr;
  std::shared_ptr<void> library;  // the dlopen handle (closed when the last kernel goes)
  Shape shape;                    // every output's shape (the loop's)
  std::vector<int> arg;           // per node input: its slot in `ins`, or -1 (a literal in the code)
  std::vector<Shape> in_shapes;   // per node input, as traced
  std::vector<Strides> in_strides;
  /// Per node input: the backward writes its gradient at the input's own shape, summed over the rows
  /// (a [cols] operand of a row kernel: LayerNorm's weight and bias, a scale), instead of over the
  /// loop's shape for the engine to sum. Such a gradient buffer starts at zero.
  std::vector<bool> row_reduced;
  /// A row kernel (a region that ends in layer_norm): its forward also writes the layer_norm's input,
  /// over the loop's shape, to outs[number of outputs] unless that pointer is null, and its backward
  /// reads it from the `ins` slot after the last input (compile_module.cpp saves it for backward).
  bool saves_rows = false;
};

namespace detail {

/// What the tracer keeps of one call: its tensors (graph inputs of the node), its other arguments
/// (as text and as numbers) and a closure that calls the op again.
struct TracedOp {
  std::string op;
  std::vector<Tensor> tensors;
  std::string attrs;
  std::vector<double> scalars;
  EagerFn eager;
};
/// The op table's reading of a recorded op, or nullopt with `why` (the graph break's reason).
std::optional<TracedOp> read_recorded(const kindling::detail::RecordedOp& op, std::string& why);
/// The Functions the tracer knows (autograd::FunctionCall): the functional activations.
std::optional<TracedOp> read_function(const autograd::FunctionCall& call);


/// "%3", or the value's name for inputs and parameters ("fc1.weight").
std::string ref(const Graph& g, int id);
/// A 0-d floating Constant: the code generator writes it into the code as a number.
bool is_literal(const Graph& g, int id);
/// The elementwise ops the generator knows, and the C++ expression of one (args: C++ expressions).
bool known_pointwise(const std::string& op);
std::string pointwise_expr(const Node& n, const std::vector<std::string>& args);
/// Per operand of elementwise node `n`, the C++ expression its gradient gets from `n`'s result `v`
/// with gradient `g` (compile_derivatives.cpp).
std::vector<std::string> pointwise_grads(const Node& n, const std::vector<std::string>& args,
                                         const std::string& v, const std::string& g);
/// A row kernel's loop (a fused node that ends in layer_norm): `rows` rows of `cols` elements, and
/// per node input its stride along the rows and along a row (both 0 for a literal). nullopt when
/// some input's leading dims do not collapse into one row stride (a transposed view, say).
struct RowPlan {
  std::int64_t rows = 0, cols = 0;
  std::vector<std::pair<std::int64_t, std::int64_t>> in;
};
std::optional<RowPlan> make_row_plan(const Graph& g, const std::vector<int>& inputs, const Shape& shape);
/// Per input of row kernel `n`: is its gradient summed over the rows inside the kernel (Kernel::row_reduced)?
std::vector<bool> row_reduced_inputs(const Graph& g, const Node& n);
/// The longest row a generated LayerNorm takes: its three loops over a row want the row in the
/// L1 cache (32 KiB); longer rows run the eager kernel.
constexpr std::int64_t kMaxNormRow = 8192;

/// The strides of `v` broadcast to `shape` (0 where it broadcasts), and a float as C++ source
/// ("0.5f", "__builtin_inff()"): compile_codegen.cpp's, shared with the row kernels.
std::vector<std::int64_t> strides_over(const Value& v, const Shape& shape);
std::string float_literal(double v);
/// A fused node that ends in layer_norm, as C++: its forward, or (`backward`) its backward
/// (compile_codegen_rows.cpp).
std::string row_kernel_source(const Graph& g, const Node& n, std::size_t index, bool backward);

/// The symbol generate_cpp gives fused node `index` of g.nodes.
std::string kernel_symbol(std::size_t index);

/// The cache folder CompileOptions asks for (created if missing).
std::filesystem::path cache_dir(const CompileOptions& options);
std::string sha256_hex(const std::string& bytes);
/// The shared library built from `source` (cached by the hash of source, compiler and flags);
/// `what` names the regions in error messages.
std::shared_ptr<void> build_library(const std::string& source, const CompileOptions& options,
                                    CompileStats* stats, const std::string& what);
/// The compiler Kindling was built with (baked in by CMake).
std::string default_compiler();

}  // namespace detail
}  // namespace kindling::jit
