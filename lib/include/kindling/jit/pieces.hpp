#pragma once
/// @file
/// Chapter 10's exercise pieces: the parts of the jit layer that *you* write
/// (exercises/ch10/), defined in your `exercises/ch10/exK_*.cpp` or the reference
/// `solutions/ch10/exK_*.cpp`.
///
///   ex1  onnx::detail::gemm          ONNX's Gemm: alpha · A' · B' + beta · C
///   ex2  onnx::detail::window_pads   a window op's pads from ONNX's pads and auto_pad
///   ex3  jit::detail::live_nodes     which nodes dead-code elimination keeps
///   ex4  jit::detail::guard_key      when a compiled module must trace again
///
/// The library does the checking around them: the importer checks Gemm's ranks and
/// inner sizes before it calls ex1 and the shape of what it returns; it parses and
/// bounds the pads and auto_pad attributes before ex2 and checks the four pads it gets
/// back (none negative); eliminate_dead_code checks that ex3 returned one flag per node
/// and that every graph output and every input of a kept node is still made by a kept
/// node (an error names the node dropped); the compiled module calls ex4 on every call
/// and looks up (or traces and compiles) the graph stored under the key.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "kindling/tensor/tensor.hpp"

namespace kindling::nn {
class Module;
}

namespace kindling::jit {
struct Graph;
}

namespace kindling::onnx::detail {

// [snippet: gemm]
/// ONNX's Gemm, its arguments checked: Y = alpha · A' · B' + beta · C, where A' is A
/// ([M, K]) or, with trans_a, Aᵀ (A is then [K, M]); B' is B ([K, N]) or, with
/// trans_b, Bᵀ. C is undefined (no bias) or broadcasts to [M, N] (a scalar, [N],
/// [1, N], [M, 1] or [M, N]). Built from recorded ops, so that an imported model
/// trains. Returns [M, N].
Tensor gemm(const Tensor& A, const Tensor& B, const Tensor& C, double alpha,
            double beta, bool trans_a, bool trans_b);
// [end]

// [snippet: window-pads]
/// The pads of a 2-D window op (Conv, MaxPool, AveragePool), as [h_begin, w_begin,
/// h_end, w_end], from ONNX's attributes (already parsed and checked):
/// - auto_pad "NOTSET": the `pads` attribute as given (in the same order; empty
///   means no padding);
/// - "VALID": no padding;
/// - "SAME_UPPER" / "SAME_LOWER": the output has ceil(input / stride) positions
///   along each dim, and the padding that needs is split in two, the odd one at the
///   end (UPPER) or at the beginning (LOWER). The window spans
///   (kernel - 1) · dilation + 1 inputs.
/// `input`, `kernel`, `stride`, `dilation`: {h, w}.
std::array<std::int64_t, 4> window_pads(const std::string& auto_pad,
                                        const std::vector<std::int64_t>& pads,
                                        std::array<std::int64_t, 2> input,
                                        std::array<std::int64_t, 2> kernel,
                                        std::array<std::int64_t, 2> stride,
                                        std::array<std::int64_t, 2> dilation);
// [end]

}  // namespace kindling::onnx::detail

namespace kindling::jit::detail {

// [snippet: live-nodes]
/// Dead-code elimination's question: which of g.nodes does some graph output need? One
/// flag per node, true to keep it. A node is needed when one of its outputs is a graph
/// output (g.outputs) or an input of a needed node. g.nodes is in topological order: a
/// node's inputs are made by nodes before it (g.values[id].producer: the index of the
/// node that makes value id, or -1 for an input, parameter or constant).
std::vector<bool> live_nodes(const Graph& g);
// [end]

// [snippet: guard-key]
/// The compiled module's guard: a string that is equal for two calls exactly when a
/// graph traced for one is right for the other. A trace depends on the input's dtype,
/// shape and strides; on the grad mode (kindling::is_grad_enabled()); on each module's
/// train/eval flag (model.modules(), in order); and on each parameter's requires_grad
/// flag (model.parameters(), in order: constant folding treats a frozen parameter as a
/// constant). Nothing else may go in (a key that changes when nothing that matters
/// changed traces and compiles again for nothing).
std::string guard_key(const Tensor& input, nn::Module& model);
// [end]

}  // namespace kindling::jit::detail
