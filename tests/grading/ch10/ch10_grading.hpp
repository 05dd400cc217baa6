#pragma once
// Shared by chapter 10's graded tests. Gemm and the window pads are your pieces called directly, and
// the pads also drive a convolution; dead-code elimination runs on graphs built here from the twin's
// encoding (and on a traced module); the guard is judged through kd::compile, by the outputs and the
// number of traces. The twin (tests/grading/ch10/pytorch.py) draws the sizes and graphs per run.
#include <cstdint>
#include <string>
#include <vector>

#include <kindling/jit.hpp>
#include <kindling/jit/pieces.hpp>
#include <kindling/kindling.hpp>

#include "grading.hpp"

namespace ch10_grading {
namespace kd = kindling;
namespace F = kd::nn::functional;
namespace jit = kd::jit;

/// An int64 input as a flat list.
inline std::vector<std::int64_t> ints_of(const std::string& name) {
  const kd::Tensor t = grading::input(name).contiguous().reshape({-1});
  std::vector<std::int64_t> out;
  for (std::int64_t i = 0; i < t.numel(); ++i) out.push_back(t[i].item<std::int64_t>());
  return out;
}

/// A graph from the twin's encoding: `n_in` inputs (values 0 .. n_in-1), then one row per node
/// [kind, a, b]: kind 0 = neg(a), 1 = add(a, b), 2 = chunk(a) into two values. Values are numbered
/// in order of creation; `outputs` are value ids. Every value is a [2] float32 (nothing runs).
inline jit::Graph graph_of(std::int64_t n_in, const std::vector<std::int64_t>& rows,
                           const std::vector<std::int64_t>& outputs) {
  jit::Graph g;
  auto value = [&](jit::ValueKind kind, int producer) {
    jit::Value v;
    v.kind = kind;
    v.shape = {2};
    v.strides = {1};
    v.producer = producer;
    return g.add_value(std::move(v));
  };
  for (std::int64_t i = 0; i < n_in; ++i) g.inputs.push_back(value(jit::ValueKind::Input, -1));
  for (std::size_t r = 0; r + 2 < rows.size(); r += 3) {
    jit::Node n;
    const std::int64_t kind = rows[r];
    n.op = kind == 0 ? "neg" : kind == 1 ? "add" : "chunk";
    n.inputs.push_back(static_cast<int>(rows[r + 1]));
    if (kind == 1) n.inputs.push_back(static_cast<int>(rows[r + 2]));
    const int me = static_cast<int>(g.nodes.size());
    n.outputs.push_back(value(jit::ValueKind::Intermediate, me));
    if (kind == 2) n.outputs.push_back(value(jit::ValueKind::Intermediate, me));
    g.nodes.push_back(std::move(n));
  }
  for (std::int64_t o : outputs) g.outputs.push_back(static_cast<int>(o));
  return g;
}

/// A flag per node as int64 0/1 (what the twin compares).
inline kd::Tensor flags(const std::vector<bool>& keep) {
  std::vector<std::int64_t> v(keep.begin(), keep.end());
  return kd::tensor(v, {static_cast<std::int64_t>(v.size())});
}

/// Where a test's compiled kernels go: the sandbox's private /tmp.
inline jit::CompileOptions compile_options() {
  jit::CompileOptions o;
  o.cache_dir = "/tmp/kindling-grading-compile";
  return o;
}

}  // namespace ch10_grading
