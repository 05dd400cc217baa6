// The passes over kd::compile's IR. Each is a free function on the Graph, so that a learner can run
// one, print the graph, and run the next: dead-code elimination, constant folding, and the fusion of
// elementwise ops (the one that makes compiled code fast -- see the chapter's bytes-moved argument).
#include <algorithm>
#include <set>

#include "compile_detail.hpp"
#include "kindling/jit/pieces.hpp"
#include "kindling/autograd.hpp"

namespace kindling::jit {
namespace {

std::size_t at(int i) { return static_cast<std::size_t>(i); }

/// Every node's outputs point back at it (after nodes were removed or reordered).
void renumber_producers(Graph& g) {
  for (std::size_t i = 0; i < g.nodes.size(); ++i)
    for (int o : g.nodes[i].outputs) g.values[at(o)].producer = static_cast<int>(i);
}

/// Reorders `nodes` so that every node comes after the producers of its inputs, keeping the given
/// order wherever it already is one (fusion moves a region to where its last input is ready).
std::vector<Node> topological(std::vector<Node> nodes, const Graph& g) {
  std::vector<bool> ready(g.values.size(), false);
  for (std::size_t v = 0; v < g.values.size(); ++v) {
    ready[v] = g.values[v].kind != ValueKind::Intermediate;
  }
  std::vector<Node> out;
  std::vector<bool> done(nodes.size(), false);
  while (out.size() < nodes.size()) {
    bool progress = false;
    for (std::size_t i = 0; i < nodes.size(); ++i) {
      if (done[i]) continue;
      if (!std::all_of(nodes[i].inputs.begin(), nodes[i].inputs.end(), [&](int v) { return ready[at(v)]; }))
        continue;
      for (int o : nodes[i].outputs) ready[at(o)] = true;
      out.push_back(std::move(nodes[i]));
      done[i] = true;
      progress = true;
      break;  // restart from the front: the earliest ready node goes first
    }
    if (!progress) throw Error("kd::compile: internal error: the graph has a cycle after fusion");
  }
  return out;
}

/// Runs a fused node's ops one after the other (its eager form; also its backward's recomputation).
std::vector<Tensor> run_body(const std::vector<Node>& body, const std::vector<int>& inputs,
                             const std::vector<int>& outputs, const std::vector<Tensor>& args) {
  std::vector<std::pair<int, Tensor>> env;
  for (std::size_t i = 0; i < inputs.size(); ++i) env.emplace_back(inputs[i], args[i]);
  auto find = [&](int id) -> const Tensor& {
    for (const auto& [v, t] : env)
      if (v == id) return t;
    throw Error("kd::compile: internal error: value %" + std::to_string(id) +
                " is not computed in its fused node");
  };
  for (const Node& n : body) {
    std::vector<Tensor> in;
    for (int v : n.inputs) in.push_back(find(v));
    std::vector<Tensor> out = n.eager(in);
    for (std::size_t k = 0; k < out.size(); ++k) env.emplace_back(n.outputs[k], out[k]);
  }
  std::vector<Tensor> result;
  for (int o : outputs) result.push_back(find(o));
  return result;
}

/// Would making `members` one node create a cycle? It would when a path leaves the set and comes
/// back: member -> outside node -> ... -> member.
bool creates_cycle(const Graph& g, const std::set<int>& members) {
  const int first = *members.begin(), last = *members.rbegin();
  std::vector<bool> tainted(g.nodes.size(), false);  // outside nodes that depend on a member
  for (int i = first; i <= last; ++i) {
    const Node& n = g.nodes[at(i)];
    bool depends = false;
    for (int v : n.inputs) {
      const int p = g.values[at(v)].producer;
      if (p < 0) continue;
      if (members.count(p) ? false : tainted[at(p)]) depends = true;
      if (members.count(p) && !members.count(i)) depends = true;
    }
    if (members.count(i)) {
      if (depends) return true;
    } else {
      tainted[at(i)] = depends;
    }
  }
  return false;
}

}  // namespace

// ---- dead-code elimination -------------------------------------------------------------------------

int eliminate_dead_code(Graph& g) {
  // Which nodes to keep is chapter 10's exercise 3 (kindling/jit/pieces.hpp); what it answers must
  // leave a graph that still runs: every output made, every kept node's inputs made.
  const std::vector<bool> keep = detail::live_nodes(g);
  if (keep.size() != g.nodes.size())
    throw Error("eliminate_dead_code: jit::detail::live_nodes (ch10.ex3) returned " + std::to_string(keep.size()) +
                " flags for a graph of " + std::to_string(g.nodes.size()) + " nodes (one per node)");
  auto made_by_kept = [&](int v, const std::string& what) {
    const int p = g.values[at(v)].producer;
    if (p >= 0 && !keep[at(p)])
      throw Error("eliminate_dead_code: jit::detail::live_nodes (ch10.ex3) drops node " + std::to_string(p) + " (" +
                  g.nodes[at(p)].op + "), which makes " + what + " " + detail::ref(g, v) + ": it is needed");
  };
  for (int o : g.outputs) made_by_kept(o, "the graph output");
  for (std::size_t i = 0; i < g.nodes.size(); ++i)
    if (keep[i])
      for (int v : g.nodes[i].inputs) made_by_kept(v, "an input of kept node " + std::to_string(i) + ",");
  std::vector<Node> kept;
  for (std::size_t i = 0; i < g.nodes.size(); ++i)
    if (keep[i]) kept.push_back(std::move(g.nodes[i]));
  const int removed = static_cast<int>(g.nodes.size() - kept.size());
  g.nodes = std::move(kept);
  for (Value& v : g.values)
    if (v.kind == ValueKind::Intermediate) v.producer = -1;
  renumber_producers(g);
  return removed;
}

// ---- constant folding ------------------------------------------------------------------------------

int fold_constants(Graph& g) {
  auto constant = [&](int id) {
    const Value& v = g.values[at(id)];
    return v.kind == ValueKind::Constant || (v.kind == ValueKind::Parameter && !v.requires_grad);
  };
  std::vector<Node> kept;
  int folded = 0;
  for (Node& n : g.nodes) {
    // A module node may hold state or randomness (Dropout): it always runs.
    const bool foldable =
        n.op != "module" && !n.inputs.empty() && std::all_of(n.inputs.begin(), n.inputs.end(), constant);
    if (!foldable) {
      kept.push_back(std::move(n));
      continue;
    }
    std::vector<Tensor> in;
    for (int v : n.inputs) {
      in.push_back(g.values[at(v)].tensor);
      if (g.values[at(v)].kind == ValueKind::Parameter &&
          std::find(g.folded_reads.begin(), g.folded_reads.end(), v) == g.folded_reads.end()) {
        g.folded_reads.push_back(v);
      }
    }
    std::vector<Tensor> out;
    {
      NoGradGuard no_grad;
      out = n.eager(in);
    }
    for (std::size_t k = 0; k < n.outputs.size(); ++k) {
      Value& v = g.values[at(n.outputs[k])];
      v.kind = ValueKind::Constant;
      v.tensor = out[k].detach();
      v.producer = -1;
    }
    ++folded;
  }
  g.nodes = std::move(kept);
  renumber_producers(g);
  return folded;
}

// ---- elementwise fusion ----------------------------------------------------------------------------

bool is_elementwise(const Graph& g, const Node& n) {
  if (!detail::known_pointwise(n.op) || n.outputs.size() != 1) return false;
  const Value& out = g.values[at(n.outputs[0])];
  if (out.dtype != kFloat32) return false;
  for (int v : n.inputs) {
    if (detail::is_literal(g, v)) continue;
    const Value& in = g.values[at(v)];
    if (in.dtype != kFloat32 || in.shape.size() > out.shape.size()) return false;
  }
  return true;
}

int fuse_elementwise(Graph& g) {
  const std::size_t n = g.nodes.size();
  std::vector<int> region(n, -1);      // the region a node belongs to (its id), or -1
  std::vector<std::set<int>> members;  // by region id
  for (std::size_t i = 0; i < n; ++i) {
    const Node& node = g.nodes[i];
    if (!is_elementwise(g, node)) continue;
    const Shape& shape = g.values[at(node.outputs[0])].shape;
    std::vector<int> candidates;  // regions that make one of this node's inputs, with its shape
    for (int v : node.inputs) {
      const int p = g.values[at(v)].producer;
      if (p < 0 || region[at(p)] < 0 || g.values[at(v)].shape != shape) continue;
      if (std::find(candidates.begin(), candidates.end(), region[at(p)]) == candidates.end()) {
        candidates.push_back(region[at(p)]);
      }
    }
    auto join = [&](const std::vector<int>& rs) {
      std::set<int> s{static_cast<int>(i)};
      for (int r : rs) s.insert(members[at(r)].begin(), members[at(r)].end());
      if (creates_cycle(g, s)) return false;
      const int target = rs.front();
      for (int m : s) region[at(m)] = target;
      for (std::size_t k = 1; k < rs.size(); ++k) members[at(rs[k])].clear();
      members[at(target)] = std::move(s);
      return true;
    };
    bool joined = !candidates.empty() && join(candidates);  // all of them: a diamond closes here
    for (std::size_t k = 0; !joined && k < candidates.size(); ++k) joined = join({candidates[k]});
    if (!joined) {
      region[i] = static_cast<int>(members.size());
      members.push_back({static_cast<int>(i)});
    }
  }

  // Which values leave a region: read by a node outside it, or a graph output.
  std::vector<int> readers_outside(g.values.size(), 0);
  for (std::size_t i = 0; i < n; ++i)
    for (int v : g.nodes[i].inputs) {
      const int p = g.values[at(v)].producer;
      if (p >= 0 && (region[at(p)] < 0 || region[at(p)] != region[i])) ++readers_outside[at(v)];
    }
  for (int o : g.outputs) ++readers_outside[at(o)];

  std::vector<Node> out;
  int fused = 0;
  std::vector<bool> placed(members.size(), false);
  for (std::size_t i = 0; i < n; ++i) {
    const int r = region[i];
    if (r < 0 || members[at(r)].size() < 2) {
      out.push_back(std::move(g.nodes[i]));
      continue;
    }
    if (placed[at(r)]) continue;
    placed[at(r)] = true;
    Node f;
    f.op = "fused";
    std::set<int> made;
    for (int m : members[at(r)]) {
      Node& b = g.nodes[at(m)];
      for (int v : b.inputs)
        if (!made.count(v) && std::find(f.inputs.begin(), f.inputs.end(), v) == f.inputs.end())
          f.inputs.push_back(v);
      for (int o : b.outputs) {
        made.insert(o);
        if (readers_outside[at(o)] > 0) f.outputs.push_back(o);
      }
      f.body.push_back(std::move(b));
    }
    f.eager = [body = f.body, ins = f.inputs, outs = f.outputs](const std::vector<Tensor>& args) {
      return run_body(body, ins, outs, args);
    };
    out.push_back(std::move(f));
    ++fused;
  }
  g.nodes = topological(std::move(out), g);
  renumber_producers(g);
  return fused;
}

// ---- LayerNorm: a row reduction joins the chain that feeds it -------------------------------------

int fuse_layer_norm(Graph& g) {
  std::vector<int> readers(g.values.size(), 0);
  for (const Node& n : g.nodes)
    for (int v : n.inputs) ++readers[at(v)];
  for (int o : g.outputs) ++readers[at(o)];
  std::vector<bool> absorbed(g.nodes.size(), false);
  int count = 0;
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    Node& ln = g.nodes[i];
    // scalars (compile_ops.cpp): eps, has weight, has bias, the number of normalised trailing dims.
    if (ln.op != "layer_norm" || ln.scalars.size() != 4 || ln.scalars[3] != 1.0 || ln.outputs.size() != 1) continue;
    const Value& y = g.values[at(ln.outputs[0])];
    const int x = ln.inputs[0];
    if (y.shape.empty() || numel_of(y.shape) == 0 || y.shape.back() > detail::kMaxNormRow) continue;
    bool floats = y.dtype == kFloat32;
    for (int v : ln.inputs) floats = floats && g.values[at(v)].dtype == kFloat32;
    const std::set<int> distinct(ln.inputs.begin(), ln.inputs.end());
    if (!floats || distinct.size() != ln.inputs.size()) continue;

    // The chain that makes x, when the LayerNorm is all that reads x: a fused node, or a lone
    // elementwise node, of the same shape, that neither runs in place nor reads weight or bias.
    const int p = g.values[at(x)].producer;
    bool absorb = p >= 0 && !absorbed[at(p)] && readers[at(x)] == 1 && g.values[at(x)].shape == y.shape;
    if (absorb) {
      const Node& c = g.nodes[at(p)];
      absorb = c.outputs.size() == 1 && c.inplace_input < 0 && (c.op == "fused" || is_elementwise(g, c));
      for (std::size_t k = 1; absorb && k < ln.inputs.size(); ++k)
        absorb = std::find(c.inputs.begin(), c.inputs.end(), ln.inputs[k]) == c.inputs.end();
    }
    Node f;
    f.op = "fused";
    if (absorb) {
      const Node& c = g.nodes[at(p)];
      f.inputs = c.inputs;
      f.body = c.op == "fused" ? c.body : std::vector<Node>{c};
    }
    for (std::size_t k = absorb ? 1 : 0; k < ln.inputs.size(); ++k) f.inputs.push_back(ln.inputs[k]);
    if (!detail::make_row_plan(g, f.inputs, y.shape)) {
      if (!absorb) continue;
      // The chain's operands do not walk by rows (a transposed view): the LayerNorm alone, then.
      absorb = false;
      f.inputs = ln.inputs;
      f.body.clear();
      if (!detail::make_row_plan(g, f.inputs, y.shape)) continue;
    }
    f.outputs = ln.outputs;
    f.body.push_back(std::move(ln));
    f.eager = [body = f.body, ins = f.inputs, outs = f.outputs](const std::vector<Tensor>& args) {
      return run_body(body, ins, outs, args);
    };
    if (absorb) absorbed[at(p)] = true;
    g.nodes[i] = std::move(f);  // where the LayerNorm was: every input is made before it
    ++count;
  }
  std::vector<Node> kept;
  for (std::size_t i = 0; i < g.nodes.size(); ++i)
    if (!absorbed[i]) kept.push_back(std::move(g.nodes[i]));
  g.nodes = std::move(kept);
  renumber_producers(g);
  return count;
}

// ---- epilogues -------------------------------------------------------------------------------------

namespace {

/// The epilogue `n` reads addmm node `p`'s result (input position k). When the addmm adds a bias of
/// one value per column with beta = alpha = 1 (Linear's), the addmm becomes an mm and the bias add
/// the region's first op: the GEMM no longer makes a second pass over its result to add the bias,
/// and the region adds it to each element as it reads it. The product keeps its value id; the
/// region's chain reads a new one, the sum. Returns whether it moved the bias.
bool move_bias_into(Graph& g, Node& n, std::size_t k) {
  Node& p = g.nodes[at(g.values[at(n.inputs[k])].producer)];
  if (p.op != "addmm" || p.scalars.size() != 2 || p.scalars[0] != 1.0 || p.scalars[1] != 1.0) return false;
  const int product = n.inputs[k], bias = p.inputs[0];
  const Value& b = g.values[at(bias)];
  const Shape& shape = g.values[at(product)].shape;
  if (b.dtype != kFloat32 || shape.size() != 2 || !(b.shape == Shape{shape[1]} || b.shape == Shape{1, shape[1]}))
    return false;
  std::vector<int> inputs = n.inputs;
  if (std::find(inputs.begin(), inputs.end(), bias) == inputs.end()) inputs.push_back(bias);
  // A row kernel (a LayerNorm region) must still walk every operand by rows; a [cols] bias does.
  if (!n.body.empty() && n.body.back().op == "layer_norm" && !detail::make_row_plan(g, inputs, shape)) return false;

  Value with_bias = g.values[at(product)];
  with_bias.name.clear();
  with_bias.producer = -1;  // made inside the region
  const int sum = g.add_value(with_bias);
  for (Node& b2 : n.body)
    for (int& v : b2.inputs)
      if (v == product) v = sum;
  Node add;
  add.op = "add";
  add.inputs = {product, bias};
  add.outputs = {sum};
  add.scalars = {1.0};
  add.eager = [](const std::vector<Tensor>& t) { return std::vector<Tensor>{kindling::add(t[0], t[1])}; };
  n.body.insert(n.body.begin(), std::move(add));
  n.inputs = std::move(inputs);
  n.eager = [body = n.body, ins = n.inputs, outs = n.outputs](const std::vector<Tensor>& args) {
    return run_body(body, ins, outs, args);
  };

  p.op = "mm";
  p.inputs = {p.inputs[1], p.inputs[2]};
  p.attrs.clear();
  p.scalars.clear();
  p.eager = [](const std::vector<Tensor>& t) { return std::vector<Tensor>{kindling::mm(t[0], t[1])}; };
  return true;
}

}  // namespace

int fuse_epilogues(Graph& g) {
  std::vector<int> readers(g.values.size(), 0);
  for (const Node& n : g.nodes)
    for (int v : n.inputs) ++readers[at(v)];
  for (int o : g.outputs) ++readers[at(o)];
  int count = 0;
  for (Node& n : g.nodes) {
    if (n.op != "fused" || n.outputs.size() != 1 || n.inplace_input >= 0) continue;
    const Value& out = g.values[at(n.outputs[0])];
    for (std::size_t k = 0; k < n.inputs.size(); ++k) {
      const Value& v = g.values[at(n.inputs[k])];
      const int p = v.producer;
      if (p < 0 || (g.nodes[at(p)].op != "addmm" && g.nodes[at(p)].op != "mm")) continue;
      if (readers[at(n.inputs[k])] != 1 || v.shape != out.shape || v.dtype != kFloat32) continue;
      n.inplace_input = static_cast<int>(k);
      n.attrs = "epilogue of " + detail::ref(g, n.inputs[k]) + ", in place";
      if (move_bias_into(g, n, k)) n.attrs += ", with its bias";
      ++count;
      break;
    }
  }
  return count;
}

std::int64_t bytes_avoided(const Graph& g) {
  std::int64_t bytes = 0;
  for (const Node& n : g.nodes) {
    if (n.op != "fused") continue;
    for (const Node& b : n.body)
      for (int o : b.outputs)
        if (std::find(n.outputs.begin(), n.outputs.end(), o) == n.outputs.end()) {
          const Value& v = g.values[at(o)];
          bytes += numel_of(v.shape) * static_cast<std::int64_t>(element_size(v.dtype));
        }
  }
  return bytes;
}

}  // namespace kindling::jit
