// The derivative of each elementwise op the code generator knows, as C++ expressions: what a fused
// region's generated backward adds to each input's gradient. The formulas are PyTorch's
// (tools/autograd/derivatives.yaml) and the eager backward's (lib/src/autograd/*_backward.cpp), so the
// generated gradients equal eager's up to float rounding; test_compile.cpp checks them against eager.
//
// In a region every value is one float per loop iteration: `a` are the op's operands, `v` its result
// and `g` the gradient arriving at `v`. Reverse mode over the region is then plain code: the loop body
// computes the forward values again (they are cheap, and were never stored), then walks the region's
// ops backwards, adding each op's contributions to its operands' gradients.
#include <string>

#include "compile_detail.hpp"

namespace kindling::jit::detail {
namespace {

// A scalar as a float literal the forward's code generator also writes (inf and NaN as builtins),
// in parentheses: "-" + num(-1.5) must not read as a decrement.
std::string num(double v) { return "(" + float_literal(v) + ")"; }

}  // namespace

std::vector<std::string> pointwise_grads(const Node& n, const std::vector<std::string>& a, const std::string& v,
                                         const std::string& g) {
  const std::string& op = n.op;
  auto sc = [&](std::size_t i) { return num(n.scalars.at(i)); };
  // Binary ops (their second operand may be the same value as the first: x * x adds both terms).
  if (op == "add") return {g, n.scalars.at(0) == 1.0 ? g : sc(0) + " * " + g};
  if (op == "sub") return {g, n.scalars.at(0) == 1.0 ? "-" + g : "-" + sc(0) + " * " + g};
  if (op == "mul") return {g + " * " + a[1], g + " * " + a[0]};
  if (op == "div") return {g + " / " + a[1], "-" + g + " * " + a[0] + " / (" + a[1] + " * " + a[1] + ")"};
  if (op == "maximum" || op == "minimum") {
    // Each operand gets the gradient where it does not lose, and a tie splits it, as PyTorch's
    // maximum/minimum backward (masked_fill where it loses): with a NaN on either side both get it.
    const std::string loses = op == "maximum" ? "<" : ">";
    return {"(" + a[0] + " " + loses + " " + a[1] + " ? 0.0f : " + a[0] + " == " + a[1] + " ? 0.5f * " + g +
                " : " + g + ")",
            "(" + a[1] + " " + loses + " " + a[0] + " ? 0.0f : " + a[0] + " == " + a[1] + " ? 0.5f * " + g +
                " : " + g + ")"};
  }
  // Unary ops.
  if (op == "rsub") return {"-" + sc(1) + " * " + g};  // v = s0 - s1 * a
  if (op == "neg") return {"-" + g};
  if (op == "abs") return {"(" + a[0] + " > 0.0f ? " + g + " : " + a[0] + " < 0.0f ? -" + g + " : 0.0f)"};
  // threshold_backward: zero where the input is <= 0, so a NaN input passes the gradient
  if (op == "relu") return {"(" + a[0] + " <= 0.0f ? 0.0f : " + g + ")"};
  if (op == "leaky_relu") return {"(" + a[0] + " > 0.0f ? " + g + " : " + g + " * " + sc(0) + ")"};
  if (op == "reciprocal") return {"-" + g + " * " + v + " * " + v};
  if (op == "sigmoid") return {g + " * " + v + " * (1.0f - " + v + ")"};
  if (op == "tanh") return {g + " * (1.0f - " + v + " * " + v + ")"};
  if (op == "exp") return {g + " * " + v};
  if (op == "log") return {g + " / " + a[0]};
  if (op == "sqrt") return {g + " / (2.0f * " + v + ")"};
  if (op == "sin") return {g + " * cosf(" + a[0] + ")"};
  if (op == "cos") return {"-" + g + " * sinf(" + a[0] + ")"};
  if (op == "erf") return {g + " * 1.12837916709551257390f * expf(-" + a[0] + " * " + a[0] + ")"};
  if (op == "silu") return {g + " * kd_silu_grad(" + a[0] + ")"};
  if (op == "gelu") return {g + (n.scalars.at(0) != 0 ? " * kd_gelu_tanh_grad(" : " * kd_gelu_grad(") + a[0] + ")"};
  if (op == "pow_scalar") {
    // d/da a^e = e a^(e-1); PyTorch gives 0 for e == 0 (not 0 * a^-1, which is NaN at a = 0).
    if (n.scalars.at(0) == 0.0) return {"0.0f"};
    return {g + " * " + sc(0) + " * powf(" + a[0] + ", " + num(n.scalars.at(0) - 1.0) + ")"};
  }
  if (op == "clamp") {
    // The gradient passes where the input lies within the bounds (both inclusive), as in PyTorch.
    std::string mask;
    if (n.scalars.at(0) != 0) mask = a[0] + " >= " + sc(1);
    if (n.scalars.at(2) != 0) mask += (mask.empty() ? "" : " && ") + a[0] + " <= " + sc(3);
    return {mask.empty() ? g : "(" + mask + " ? " + g + " : 0.0f)"};
  }
  throw Error("kd::compile: internal error: no derivative for elementwise op '" + op + "'");
}

}  // namespace kindling::jit::detail
