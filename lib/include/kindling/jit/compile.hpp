#pragma once
/// @file
/// kd::compile: Kindling's counterpart of `torch.compile` with TorchInductor's CPU backend, small
/// enough to read in an afternoon. Four steps, each a free function so that a learner can run them
/// one at a time and print the graph in between:
///
///     kd::jit::Graph g = kd::jit::trace(model, x);  // one forward, recorded: the ops autograd sees
///     std::cout << g.str();                          // %3 = gelu(%2) : [256, 512] float32
///     kd::jit::eliminate_dead_code(g);               // drop what no output needs
///     kd::jit::fold_constants(g);                    // compute what depends on no input now
///     kd::jit::fuse_elementwise(g);                  // chains of pointwise ops -> one "fused" node
///     kd::jit::fuse_layer_norm(g);                   // ... and the LayerNorm that reads one
///     kd::jit::compile_kernels(g, {});               // generate C++, run the compiler, dlopen it
///     std::vector<kd::Tensor> y = kd::jit::run(g, {x});
///
/// or all at once, as a Module: `auto fast = kd::compile(model); y = (*fast)(x);`.
///
/// What it is like and unlike PyTorch: the trace is torch.jit.trace's (the ops one forward ran,
/// control flow unrolled), not TorchDynamo's bytecode analysis; guards re-trace on a new input shape,
/// stride, dtype, train/eval mode or grad mode, like Dynamo's. An op the IR cannot capture makes the
/// *module* that ran it one eager node (a "graph break"); `explain` lists them. A tensor the forward
/// computes without autograd seeing it (integer ops, comparisons, a detached result) cannot be
/// traced: the module that made it runs eagerly. A tensor created inside forward from nothing
/// (`kd::ones`) is treated the same way, except a 0-d one (a Python-style number, `x * 2.0`), which
/// is a constant. A module that reads a value out of a tensor (`x * x.sum().item<double>()`,
/// `to_vector()`, printing a tensor) runs eagerly, as torch.compile breaks on `.item()`: the number
/// would otherwise be frozen at its traced value. The trace cannot tell a 0-d number from one the
/// forward computed without autograd and never read out (a 0-d `x.detach().sum()`): that value is
/// frozen, as torch.jit.trace freezes it (with a warning). Keep data-dependent numbers in tensors
/// that autograd sees. A forward the trace cannot follow at all -- one that
/// throws while traced (an in-place op on its input, which the trace makes require grad) or whose
/// output no recorded op made (an integer or bool input) -- becomes one eager node for the whole
/// model, as torch.compile falls back to eager; `explain` says why. A forward that eager refuses
/// throws its own error.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <iosfwd>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "kindling/nn/module.hpp"

namespace kindling::jit {

/// Where a value of the graph comes from.
enum class ValueKind {
  Input,         ///< the module's input
  Parameter,     ///< a parameter or buffer of the model (the live tensor: training updates it)
  Constant,      ///< a tensor fixed at trace time (a 0-d number, or a folded result)
  Intermediate,  ///< the output of a node
};

/// One tensor of the graph (PyTorch FX's Node-as-value, TorchScript's Value).
struct Value {
  ValueKind kind = ValueKind::Intermediate;
  Shape shape;
  Strides strides;  ///< as traced (element strides); the kernels are generated for these
  DType dtype = kFloat32;
  std::string name;            ///< "input", "fc1.weight", or empty (printed as %id)
  Tensor tensor;               ///< Parameter and Constant: the tensor itself; otherwise undefined
  int producer = -1;           ///< the node that makes it (index into Graph::nodes), or -1
  bool requires_grad = false;  ///< a Parameter that trains (never folded)
};

/// Runs one node eagerly: input tensors in, output tensors out. Every node has one, so any node
/// the compiler does not understand still runs (the fused node's is its ops, one after the other).
using EagerFn = std::function<std::vector<Tensor>(const std::vector<Tensor>&)>;

struct Kernel;  // a loaded, generated function (compile_detail.hpp)

/// One operation: `%5, %6 = op(%1, %2) {attrs}`.
struct Node {
  std::string op;               ///< "addmm", "gelu", "module", "fused"
  std::vector<int> inputs;      ///< value ids, in the op's argument order
  std::vector<int> outputs;     ///< value ids
  std::string attrs;            ///< the non-tensor arguments, printable ("alpha=1")
  std::vector<double> scalars;  ///< the same, as numbers the code generator reads
  EagerFn eager;
  std::string origin;                    ///< "module": the module's path and type; a break: why
  bool graph_break = false;              ///< a module run whole because the trace met an op it cannot capture
  std::vector<Node> body;                ///< "fused": the elementwise nodes it stands for, in order
  std::shared_ptr<const Kernel> kernel;  ///< "fused", after compile_kernels
  int inplace_input = -1;  ///< "fused": an input (position) whose buffer the kernel may overwrite
};

/// The IR: values and nodes in topological order (every node's inputs come before it).
class Graph {
 public:
  std::vector<Value> values;
  std::vector<Node> nodes;
  std::vector<int> inputs, outputs;
  /// Parameters and buffers (value ids) that fold_constants baked into constants: the compiled
  /// module re-traces when one of them changes in place (its version counter moves).
  std::vector<int> folded_reads;

  /// One line per node, FX/tinygrad style:
  ///     %0 = input : [256, 512] float32
  ///     %4 = addmm(%1, %0, %3) {beta=1, alpha=1} : [256, 512] float32
  ///     %7 = fused[add, gelu](%4, %2) : [256, 512] float32
  std::string str() const;
  /// The same graph for Graphviz (`dot -Tsvg`): a box per node (fused nodes filled, listing their
  /// ops), an ellipse per input and parameter, every edge labelled with the shape it carries.
  std::string dot() const;
  int add_value(Value v);
  /// The kernels a run launches: every node but the views (a fused node is one).
  std::size_t num_kernels() const;
};

/// Records one forward of `model` on `example_input` (in the model's current train/eval mode; its
/// buffers are restored afterwards, so BatchNorm's running statistics are not updated twice).
Graph trace(nn::Module& model, const Tensor& example_input);

// ---- passes: each changes the graph in place and returns how many nodes it changed ---------------
/// Removes nodes none of whose outputs reach a graph output.
int eliminate_dead_code(Graph& g);
/// Runs, once, every node whose inputs are all constants (Constant values, and parameters or buffers
/// that do not require grad: a frozen layer), and makes its outputs constants. The compiled module
/// guards on the versions of the tensors it read, so an in-place update re-traces.
int fold_constants(Graph& g);
/// Is this one of the pointwise ops the code generator knows (float32 in, float32 out)?
bool is_elementwise(const Graph& g, const Node& n);
/// Groups maximal regions (chains and diamonds) of elementwise nodes with one output shape into
/// "fused" nodes; an operand of a smaller shape broadcasts into the region's loop. Returns the
/// number of fused nodes made (a lone elementwise node is left alone: nothing to save).
int fuse_elementwise(Graph& g);

/// Row reductions: a layer_norm over the last dimension (float32, rows of at most 8192) becomes a
/// fused node of its own, and takes in the fused (or lone elementwise) node that makes its input when
/// it is that value's only reader: `LayerNorm(x + gelu(h) * gamma)` is then one kernel that keeps
/// each row's chain results in the output row, sums them for the mean, sums the squared deviations
/// for the variance, and normalises the row in place. Its generated backward recomputes the row the
/// same way. Inductor makes the same choice: a reduction whose input is a pointwise chain becomes one
/// kernel. Returns the number of layer_norm nodes fused.
int fuse_layer_norm(Graph& g);

/// Epilogues: a fused node that is the only reader of a GEMM's result (addmm, mm: what Linear
/// computes) of its own shape runs in place over that result, so the GEMM's output buffer is its
/// output buffer and the epilogue allocates nothing (when no gradient is needed: autograd keeps
/// the GEMM's result for the fused node's backward). An addmm with Linear's bias (one value per
/// column, beta = alpha = 1) becomes an mm, and the bias add the region's first op: the GEMM then
/// makes no second pass over its result to add the bias (the IR says "with its bias"). The GEMM
/// itself stays the library's (oneDNN's or OpenBLAS's sgemm, gemm.cpp); Inductor goes further and
/// applies the epilogue inside its own GEMM template's tiles. Returns the count.
int fuse_epilogues(Graph& g);

/// Bytes of intermediate results the fused nodes never write to memory (the values that stay inside a
/// region): each would have been written by one eager kernel and read back by the next.
std::int64_t bytes_avoided(const Graph& g);

/// How to generate and build the kernels.
struct CompileOptions {
  /// Print the IR before and after each pass, the graph breaks, the kernel counts and the bytes the
  /// fusion saves to `explain_stream` (std::cerr when null); CompiledModule::explain() returns it.
  bool explain = false;
  std::ostream* explain_stream = nullptr;
  bool fold_constants = true;
  /// A fused region's backward: generated C++ (one loop, like its forward) when true; when false, the
  /// eager backward of its ops, recomputed from the saved inputs (see compile_module.cpp).
  bool generate_backward = true;
  bool fuse = true;
  /// Compiled kernels: this folder, else $KINDLING_CACHE_DIR, else $XDG_CACHE_HOME/kindling/compile,
  /// else ~/.cache/kindling/compile.
  std::filesystem::path cache_dir;
  /// The C++ compiler (default: the one that built Kindling), its flags, and the libraries the
  /// kernels link (after the source): glibc's vector math library, libmvec (see compile_codegen.cpp).
  /// -fno-trapping-math lets the compiler evaluate both sides of a select (GELU's inline erf clamps
  /// its input) in every vector lane; the values are the same.
  std::string compiler;
  std::vector<std::string> flags{"-O3",           "-march=native", "-fno-math-errno", "-fno-trapping-math",
                                 "-fopenmp-simd", "-fPIC",         "-shared"};
  std::vector<std::string> libs{"-lmvec"};
};

/// What compile_kernels did (the compiled module sums it over its graphs).
struct CompileStats {
  int compiled = 0;    ///< compiler runs (a cold cache)
  int cache_hits = 0;  ///< libraries loaded from the cache after their hash checked out
  int rejected = 0;    ///< cache entries whose hash did not match: rebuilt, never loaded
  int traces = 0;      ///< graphs traced (one per guard key)
  double compile_seconds = 0;
};

/// The C++ source of every fused node of `g`: one function per node, one loop over its outputs.
/// With `with_backward`, each fused node's backward too (CompileOptions::generate_backward).
std::string generate_cpp(const Graph& g, bool with_backward = false);
/// Builds generate_cpp(g) into a shared library (or takes it from the cache, hash-checked) and
/// points every fused node at its function. Throws kd::Error naming the regions and quoting the
/// compiler when the build fails.
void compile_kernels(Graph& g, const CompileOptions& options, CompileStats* stats = nullptr);
/// Runs the graph: fused nodes with their kernels (one autograd node each when a gradient is
/// needed), every other node eagerly.
std::vector<Tensor> run(const std::shared_ptr<const Graph>& g, const std::vector<Tensor>& inputs);

/// A model behind kd::compile. It holds the model by reference (keep the model alive) and
/// registers it as its child "model", so parameters() and state_dict() are the model's.
class CompiledModule : public nn::Module {
 public:
  CompiledModule(nn::Module& model, CompileOptions options);
  ~CompiledModule() override;
  /// Looks up the graph for this call's guard key (input shape, strides and dtype, train/eval, grad
  /// mode, which parameters require grad), tracing and compiling on a miss, and runs it.
  Tensor forward(const Tensor& input) override;
  /// What explain mode recorded so far (empty unless CompileOptions::explain).
  std::string explain() const;
  /// The generated C++ of the most recent graph.
  std::string source() const;
  /// The most recently used graph (after the passes).
  std::shared_ptr<const Graph> graph() const;
  const CompileStats& stats() const;
  std::string type_name() const override { return "CompiledModule"; }

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

/// torch.compile(model): `auto fast = kd::compile(model, {.explain = true}); auto y = (*fast)(x);`
std::shared_ptr<CompiledModule> compile(nn::Module& model, CompileOptions options = {});

}  // namespace kindling::jit

namespace kindling {
using jit::compile;
using jit::CompileOptions;
}  // namespace kindling
