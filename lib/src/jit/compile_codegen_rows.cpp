// C++ for a fused node that ends in layer_norm (fuse_layer_norm, compile_passes.cpp): a row
// reduction after an elementwise chain. compile_codegen.cpp writes the elementwise loops; this file
// writes the row kernels -- their plan (every operand walked by a row stride and a column stride),
// their forward and their backward.
#include <algorithm>
#include <cstdio>
#include <sstream>

#include "compile_detail.hpp"

namespace kindling::jit::detail {
namespace {
using I = std::int64_t;
std::size_t at(int i) { return static_cast<std::size_t>(i); }
}  // namespace

std::optional<RowPlan> make_row_plan(const Graph& g, const std::vector<int>& inputs, const Shape& shape) {
  if (shape.empty()) return std::nullopt;
  RowPlan rp;
  rp.cols = shape.back();
  rp.rows = numel_of(shape) / std::max<I>(rp.cols, 1);
  const std::size_t lead = shape.size() - 1;  // the dims that make the row index
  for (int v : inputs) {
    if (is_literal(g, v)) {
      rp.in.emplace_back(0, 0);
      continue;
    }
    const std::vector<I> s = strides_over(g.values[at(v)], shape);
    // Row r = sum of i_d * inner_d over the leading dims (inner_d: the product of the sizes after d);
    // the operand's offset is r * row stride when every leading dim's stride is inner_d times it.
    std::optional<I> row;
    I inner = 1;
    for (std::size_t d = lead; d-- > 0;) {
      if (shape[d] != 1) {
        if (!row) {
          if (s[d] % inner != 0) return std::nullopt;
          row = s[d] / inner;
        }
        if (s[d] != *row * inner) return std::nullopt;
      }
      inner *= shape[d];
    }
    rp.in.emplace_back(row.value_or(0), s[lead]);
  }
  return rp;
}

std::vector<bool> row_reduced_inputs(const Graph& g, const Node& n) {
  std::vector<bool> reduced(n.inputs.size(), false);
  if (n.body.empty() || n.body.back().op != "layer_norm") return reduced;
  const Shape& shape = g.values[at(n.outputs[0])].shape;
  const std::optional<RowPlan> rp = make_row_plan(g, n.inputs, shape);
  if (!rp) return reduced;
  for (std::size_t i = 0; i < n.inputs.size(); ++i)
    reduced[i] = !is_literal(g, n.inputs[i]) && g.values[at(n.inputs[i])].shape == Shape{rp->cols} &&
                 rp->in[i] == std::pair<I, I>{0, 1};
  return reduced;
}

/// A fused node that ends in layer_norm (fuse_layer_norm): a loop over rows, and in each row three
/// loops over its elements --
///   1. the chain (the body before the layer_norm), its result written into the output row, and summed;
///   2. the squared deviations from the row's mean, summed (two passes: no cancellation);
///   3. the row normalised in place, times the weight, plus the bias.
/// The sums are in double, as the eager kernel's (layer_norm.cpp). In training the forward also copies
/// each row (z, the layer_norm's input) to `zs`, saved for the backward, which sums it again for the
/// mean and variance and then, with ĝ = gy·w and x̂ = (z - mean)·rstd:
///   the weight's gradient gy·x̂ and the bias's gy (summed over the rows here: row_reduced_inputs),
///   Σĝ and Σĝ·x̂; and then gz = rstd·(ĝ - mean(ĝ) - x̂·mean(ĝ·x̂)), which flows back through
///   the chain as in compile_codegen.cpp's kernel_source.
std::string row_kernel_source(const Graph& g, const Node& n, std::size_t index, bool backward) {
  const Node& ln = n.body.back();
  const std::vector<Node> chain(n.body.begin(), n.body.end() - 1);
  const RowPlan rp = make_row_plan(g, n.inputs, g.values[at(n.outputs[0])].shape).value();
  const I N = rp.cols;
  const bool has_w = ln.scalars.at(1) != 0, has_b = ln.scalars.at(2) != 0;
  const int x = ln.inputs.at(0), w = has_w ? ln.inputs.at(1) : -1, b = has_b ? ln.inputs.at(has_w ? 2 : 1) : -1;
  const std::string eps_lit = [&] {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.9g", ln.scalars.at(0));
    return std::string(buf);
  }();
  const std::string n_lit = std::to_string(N) + ".0";
  // Which node inputs the chain (or, with no chain, the layer_norm) reads.
  std::vector<bool> chain_reads(n.inputs.size(), false);
  for (std::size_t i = 0; i < n.inputs.size(); ++i) {
    chain_reads[i] = n.inputs[i] == x;
    for (const Node& c : chain)
      chain_reads[i] = chain_reads[i] || std::find(c.inputs.begin(), c.inputs.end(), n.inputs[i]) != c.inputs.end();
  }
  auto position = [&](int v) {
    return static_cast<std::size_t>(std::find(n.inputs.begin(), n.inputs.end(), v) - n.inputs.begin());
  };
  auto offset = [&](std::size_t i) {
    const auto [rs, cs] = rp.in[i];
    std::string e;
    if (rs != 0) e = rs == 1 ? "r" : "r * " + std::to_string(rs);
    if (cs != 0) e += (e.empty() ? "" : " + ") + (cs == 1 ? std::string("j") : "j * " + std::to_string(cs));
    return e.empty() ? std::string("0") : e;
  };

  std::ostringstream os;
  std::string ops;
  for (const Node& c : n.body) ops += (ops.empty() ? "" : ", ") + c.op;
  os << "\n// " << ref(g, n.outputs[0]) << " = fused[" << ops << "] : "
     << shape_str(g.values[at(n.outputs[0])].shape) << (backward ? ", its backward" : "") << "\n";
  if (backward) {
    os << "extern \"C\" void " << kernel_symbol(index)
       << "_backward(float* const* gins, const float* const* ins, const float* const* gouts) {\n"
       << "  const float* go0 = gouts[0];\n";
  } else {
    os << "extern \"C\" void " << kernel_symbol(index) << "(float* const* outs, const float* const* ins) {\n"
       << "  float* o0 = outs[0];\n"
       << "  float* zs = outs[1];  // null, or where the backward's rows go (training)\n";
  }
  int slot = 0;
  for (std::size_t i = 0; i < n.inputs.size(); ++i) {
    const std::string v = "v" + std::to_string(n.inputs[i]);
    if (is_literal(g, n.inputs[i])) {
      os << "  const float " << v << " = " << float_literal(g.values[at(n.inputs[i])].tensor.item<double>()) << ";\n";
      continue;
    }
    os << "  const float* in" << i << " = ins[" << slot << "];\n";
    if (backward) os << "  float* gin" << i << " = gins[" << slot << "];\n";
    ++slot;
  }
  auto load = [&](std::size_t i, const std::string& in) {
    if (!is_literal(g, n.inputs[i]))
      os << in << "const float v" << n.inputs[i] << " = in" << i << "[" << offset(i) << "];\n";
  };
  // The chain, from the loads to v<x>.
  auto emit_chain = [&](const std::string& in) {
    for (std::size_t i = 0; i < n.inputs.size(); ++i)
      if (chain_reads[i]) load(i, in);
    for (const Node& c : chain) {
      std::vector<std::string> args;
      for (int v : c.inputs) args.push_back("v" + std::to_string(v));
      os << in << "const float v" << c.outputs[0] << " = " << pointwise_expr(c, args) << ";\n";
    }
  };
  const std::string vx = "v" + std::to_string(x);
  const std::string vw = has_w ? " * v" + std::to_string(w) : "", vb = has_b ? " + v" + std::to_string(b) : "";
  if (backward) os << "  const float* zs = ins[" << slot << "];  // the forward's rows\n";
  const std::string row = backward ? "z" : "row";
  os << "  for (std::int64_t r = 0; r < " << rp.rows << "; ++r) {\n";
  os << (backward ? "    const float* z = zs + r * " : "    float* row = o0 + r * ") << N << ";\n";
  os << "    double sum = 0.0;\n"
     << "    #pragma omp simd reduction(+ : sum)\n"
     << "    for (std::int64_t j = 0; j < " << N << "; ++j) {\n";
  if (backward) {
    os << "      sum += z[j];\n";
  } else {
    emit_chain("      ");
    os << "      row[j] = " << vx << ";\n"
       << "      sum += " << vx << ";\n";
  }
  os << "    }\n";
  if (!backward) os << "    if (zs) __builtin_memcpy(zs + r * " << N << ", row, " << N * 4 << ");\n";
  os << "    const float mean = static_cast<float>(sum / " << n_lit << ");\n"
     << "    double sq = 0.0;\n"
     << "    #pragma omp simd reduction(+ : sq)\n"
     << "    for (std::int64_t j = 0; j < " << N << "; ++j) {\n"
     << "      const float d = " << row << "[j] - mean;\n"
     << "      sq += d * d;\n"
     << "    }\n"
     << "    const float rstd = static_cast<float>(1.0 / __builtin_sqrt(sq / " << n_lit << " + " << eps_lit << "));\n";
  if (!backward) {
    os << "    #pragma omp simd\n"
       << "    for (std::int64_t j = 0; j < " << N << "; ++j) {\n";
    if (has_w) load(position(w), "      ");
    if (has_b) load(position(b), "      ");
    os << "      row[j] = (row[j] - mean) * rstd" << vw << vb << ";\n"
       << "    }\n  }\n}\n";
    return os.str();
  }
  // Backward: the weight's and bias's gradients and the two row sums, then the chain's gradients.
  const std::vector<bool> reduced = row_reduced_inputs(g, n);
  os << "    double s1 = 0.0, s2 = 0.0;\n"
     << "    #pragma omp simd reduction(+ : s1, s2)\n"
     << "    for (std::int64_t j = 0; j < " << N << "; ++j) {\n"
     << "      const float gy = go0[r * " << N << " + j];\n"
     << "      const float xhat = (z[j] - mean) * rstd;\n";
  if (has_w) load(position(w), "      ");
  os << "      const float gh = gy" << vw << ";\n"
     << "      s1 += gh;\n"
     << "      s2 += gh * xhat;\n";
  // gin<i>[...]: the gradient of input i at this element, or, for a row-reduced input, summed into
  // its own element j.
  auto gin_at = [&](std::size_t i) {
    return "gin" + std::to_string(i) + (reduced[i] ? "[j] +" : "[r * " + std::to_string(N) + " + j] ");
  };
  if (has_w) os << "      " << gin_at(position(w)) << "= gy * xhat;\n";
  if (has_b) os << "      " << gin_at(position(b)) << "= gy;\n";
  os << "    }\n"
     << "    const float m1 = static_cast<float>(s1 / " << n_lit << "),\n"
     << "                m2 = static_cast<float>(s2 / " << n_lit << ");\n"
     << "    #pragma omp simd\n"
     << "    for (std::int64_t j = 0; j < " << N << "; ++j) {\n";
  emit_chain("      ");
  if (has_w) load(position(w), "      ");
  os << "      const float xhat = (z[j] - mean) * rstd;\n"
     << "      const float gh = go0[r * " << N << " + j]" << vw << ";\n";
  // g<id>: the gradient at value <id>, as in compile_codegen.cpp's kernel_source.
  for (std::size_t i = 0; i < n.inputs.size(); ++i)
    if (chain_reads[i] && !is_literal(g, n.inputs[i])) os << "      float g" << n.inputs[i] << " = 0.0f;\n";
  for (const Node& c : chain) os << "      float g" << c.outputs[0] << " = 0.0f;\n";
  os << "      g" << x << " += rstd * (gh - m1 - xhat * m2);\n";
  for (std::size_t j = chain.size(); j-- > 0;) {
    const Node& c = chain[j];
    std::vector<std::string> args;
    for (int v : c.inputs) args.push_back("v" + std::to_string(v));
    const std::string out = std::to_string(c.outputs[0]);
    const std::vector<std::string> terms = pointwise_grads(c, args, "v" + out, "g" + out);
    for (std::size_t k = 0; k < c.inputs.size() && k < terms.size(); ++k)
      if (!is_literal(g, c.inputs[k])) os << "      g" << c.inputs[k] << " += " << terms[k] << ";\n";
  }
  for (std::size_t i = 0; i < n.inputs.size(); ++i)
    if (chain_reads[i] && !is_literal(g, n.inputs[i]))
      os << "      " << gin_at(i) << "= g" << n.inputs[i] << ";\n";
  os << "    }\n  }\n}\n";
  return os.str();
}

}  // namespace kindling::jit::detail
