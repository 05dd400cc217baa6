#pragma once
/// @file
/// Chapter 2's exercises: re-implement the pieces of autograd yourself — backward formulas, the
/// broadcasting rule of gradients, matmul's backward, the engine's graph order and a finite-difference
/// gradient checker. The graded tests compare your answers with the library's autograd (which is
/// parity-tested against PyTorch) on many shapes, and check the properties an answer must have.
///
/// Write your answers in the matching .cpp files of this folder, then run `make grade CH=02`.
#include <cstddef>
#include <functional>
#include <memory>
#include <utility>
#include <vector>

#include <kindling/autograd.hpp>

namespace kindling::exercises::ch02 {

// ---- ex1: backward formulas ------------------------------------------------------------------------
// Each function gets the gradient of the loss w.r.t. the op's output (`grad`, same shape as the
// output) and what the op saved in the forward pass, and returns the gradient(s) w.r.t. its input(s).
// Here all tensors have the same shape (no broadcasting: that is ex2). Library counterparts: the rows
// `mul`, `div`, `exp`, `tanh` of the derivative table (MulBackward0, DivBackward0, ExpBackward0,
// TanhBackward0).

/// out = a * b  ->  {d loss/d a, d loss/d b}.
std::pair<Tensor, Tensor> mul_backward(const Tensor& grad, const Tensor& a, const Tensor& b);
/// out = a / b  ->  {d loss/d a, d loss/d b}.
std::pair<Tensor, Tensor> div_backward(const Tensor& grad, const Tensor& a, const Tensor& b);
/// out = exp(x); `result` is the saved output exp(x) (x itself is not needed)  ->  d loss/d x.
Tensor exp_backward(const Tensor& grad, const Tensor& result);
/// out = tanh(x); `result` is the saved output tanh(x)  ->  d loss/d x.
Tensor tanh_backward(const Tensor& grad, const Tensor& result);

// ---- ex2: gradients of broadcast inputs ------------------------------------------------------------

/// An input of shape `shape` was broadcast to grad.shape() in the forward pass (a bias [10] added to
/// logits [32, 10]). Its gradient is `grad` summed over every dimension broadcasting expanded: the
/// extra leading dimensions, and the dimensions where `shape` has size 1 (kept, with size 1).
/// Returns a tensor of exactly `shape`. Throws ShapeError naming both shapes (use shape_str) when
/// `shape` does not broadcast to grad.shape(). Library counterpart: what the engine does for every
/// broadcasting op (e.g. the gradient of x.expand(grad.shape())).
Tensor unbroadcast(const Tensor& grad, const Shape& shape);

// ---- ex3: backward of matmul -----------------------------------------------------------------------

/// out = a.matmul(b) with a: [..., n, k] and b: [..., k, m] (both at least 2-D; the batch dimensions
/// "..." broadcast like elementwise ops), grad: [..., n, m]  ->  {d loss/d a (a's shape), d loss/d b
/// (b's shape)}. You may use your unbroadcast from ex2. Library counterpart: MmBackward0 / BmmBackward0.
std::pair<Tensor, Tensor> matmul_backward(const Tensor& grad, const Tensor& a, const Tensor& b);

// ---- ex4: the order backward runs the graph in -----------------------------------------------------

/// Every node reachable from `root` through next_functions() (skip invalid edges), each exactly
/// once, in an order where every node comes before all the nodes of its inputs (its next_functions):
/// a topological order of the backward graph, root first. That is the order the engine may run the
/// nodes in, so that a node has received all its gradient contributions before it runs. Graphs can
/// be 100,000 nodes deep (a long chain): do not recurse. A null root gives an empty vector.
std::vector<std::shared_ptr<autograd::Node>> topological_order(const std::shared_ptr<autograd::Node>& root);

// ---- ex5: a finite-difference gradient checker -----------------------------------------------------

/// The function under test: float64 tensors in, one tensor out.
using Function = std::function<Tensor(const std::vector<Tensor>&)>;

/// The Jacobian of f w.r.t. inputs[wrt] by central differences, (f(x + eps) - f(x - eps)) / (2 eps)
/// for every element of inputs[wrt]: a float64 tensor [f(inputs).numel(), inputs[wrt].numel()] with
/// J[i, j] = d out_flat[i] / d in_flat[j] (row-major flattening). The values of `inputs` are the same
/// afterwards, and nothing is recorded for backward. Inputs are float64 and contiguous.
Tensor numerical_jacobian(const Function& f, const std::vector<Tensor>& inputs, std::size_t wrt,
                          double eps = 1e-6);

/// The same Jacobian computed by autograd: row i is the gradient of out_flat[i] w.r.t. inputs[wrt]
/// (zeros where the output does not depend on it). Leaves every input's .grad() untouched (use
/// kd::autograd::grad, not backward()). inputs[wrt] requires grad.
Tensor analytical_jacobian(const Function& f, const std::vector<Tensor>& inputs, std::size_t wrt);

/// gradcheck: true when, for every input that requires grad, every entry satisfies
/// |analytical - numerical| <= atol + rtol * |numerical|. Library counterpart: kd::autograd::gradcheck.
bool check_gradients(const Function& f, const std::vector<Tensor>& inputs, double eps = 1e-6,
                     double atol = 1e-5, double rtol = 1e-3);

}  // namespace kindling::exercises::ch02
