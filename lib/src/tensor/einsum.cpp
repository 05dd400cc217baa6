// torch.einsum: a product-and-sum written as subscripts, "bij,bjk->bik".
//
// Each letter names a dimension. A letter shared by two operands and absent from the output is summed
// over (contracted); a letter in the output is kept. Everything reduces to ops autograd already knows:
//   1. a letter repeated in one operand ("ii->i") takes the diagonal: multiply by an identity mask and
//      sum one of the two dims away;
//   2. a letter that no later operand and not the output uses is summed out right away;
//   3. two operands become one batched matrix product: A is permuted to [batch, left, contracted] and
//      B to [batch, contracted, right], both reshaped to 3-d, and bmm does the work (like PyTorch's
//      sumproduct_pair);
//   4. the result is permuted to the output's order.
// "..." stands for the dims not named by letters; they broadcast across operands, right-aligned.
#include <algorithm>
#include <string>
#include <vector>

#include "internal.hpp"
#include "kindling/tensor/creation.hpp"
#include "kindling/tensor/ops.hpp"

namespace kindling {
namespace {
using namespace detail;

constexpr int kLetters = 52;  // 'A'-'Z' are labels 0-25, 'a'-'z' 26-51, the dims of "..." 52 and up

[[noreturn]] void fail(const std::string& eq, const std::string& why) {
  throw ValueError("einsum(\"" + eq + "\"): " + why);
}

int letter_label(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return 26 + (c - 'a');
  return -1;
}

std::string label_name(int l) {
  if (l < 26) return std::string(1, static_cast<char>('A' + l));
  if (l < kLetters) return std::string(1, static_cast<char>('a' + l - 26));
  return "...";
}

/// One parsed term: the letter labels before and after "..." (has_ellipsis tells whether it was there).
struct Term {
  std::vector<int> before, after;
  bool has_ellipsis = false;
};

Term parse_term(const std::string& eq, const std::string& t) {
  Term term;
  for (std::size_t i = 0; i < t.size(); ++i) {
    if (t[i] == '.') {
      if (term.has_ellipsis || t.compare(i, 3, "...") != 0) fail(eq, "'.' is only valid as one \"...\" per term.");
      term.has_ellipsis = true;
      i += 2;
      continue;
    }
    const int l = letter_label(t[i]);
    if (l < 0) fail(eq, std::string("invalid subscript '") + t[i] + "': subscripts are letters a-z, A-Z.");
    (term.has_ellipsis ? term.after : term.before).push_back(l);
  }
  return term;
}

/// A tensor and the label of each of its dims.
struct Labelled {
  Tensor t;
  std::vector<int> labels;
};

/// Sums away dim i of a labelled tensor.
void sum_out(Labelled& x, std::size_t i) {
  x.t = x.t.sum(static_cast<std::int64_t>(i));
  x.labels.erase(x.labels.begin() + static_cast<std::ptrdiff_t>(i));
}

/// "ii": keeps the diagonal of every label that appears twice in x.
void take_diagonals(Labelled& x, const std::string& eq) {
  for (std::size_t p = 0; p < x.labels.size(); ++p) {
    for (std::size_t q = p + 1; q < x.labels.size(); ++q) {
      if (x.labels[q] != x.labels[p]) continue;
      const auto ip = static_cast<std::int64_t>(p), iq = static_cast<std::int64_t>(q);
      const std::int64_t n = x.t.size(ip);
      if (x.t.size(iq) != n) {
        fail(eq, "subscript " + label_name(x.labels[p]) + " is repeated for operand dims of sizes " +
                     std::to_string(n) + " and " + std::to_string(x.t.size(iq)) + "; they must be equal.");
      }
      // mask[i, j] = (i == j), placed at dims p and q and broadcast over the others
      Shape sp(x.labels.size(), 1), sq(x.labels.size(), 1);
      sp[p] = n;
      sq[q] = n;
      const Tensor r = arange(0, n, 1, {.dtype = kInt64});
      const Tensor mask = r.reshape(sp) == r.reshape(sq);
      const DType dtype = x.t.dtype();
      x.t = x.t * mask;
      sum_out(x, q);
      // The diagonal is a selection, not a reduction: it keeps the operand's dtype, as PyTorch's
      // (a strided view) does. sum promotes bool and integers to int64, but each of its sums has
      // exactly one term that is not 0, so the cast back is exact.
      if (!is_floating_point(dtype)) x.t = x.t.to(dtype);
      --q;
    }
  }
}

/// The size of each label, checked across operands (size 1 broadcasts).
void check_sizes(const std::vector<Labelled>& ops, const std::string& eq, std::vector<std::int64_t>& size) {
  size.assign(kLetters + 64, -1);
  for (const auto& x : ops) {
    for (std::size_t i = 0; i < x.labels.size(); ++i) {
      const std::int64_t s = x.t.size(static_cast<std::int64_t>(i));
      std::int64_t& known = size[static_cast<std::size_t>(x.labels[i])];
      if (known == -1 || known == 1) known = std::max(known, s);
      else if (s != known && s != 1) {
        fail(eq, "operands do not broadcast: subscript " + label_name(x.labels[i]) + " has size " +
                     std::to_string(s) + " in one operand and " + std::to_string(known) + " in another.");
      }
    }
  }
}

std::size_t position(const std::vector<int>& labels, int l) {
  return static_cast<std::size_t>(std::find(labels.begin(), labels.end(), l) - labels.begin());
}

bool has(const std::vector<int>& labels, int l) { return std::find(labels.begin(), labels.end(), l) != labels.end(); }

/// Permutes x so its labels come in `order` (which holds exactly x's labels).
Tensor arranged(const Labelled& x, const std::vector<int>& order) {
  Shape perm;
  for (int l : order) perm.push_back(static_cast<std::int64_t>(position(x.labels, l)));
  return x.t.permute(perm);
}

std::int64_t product(const Labelled& x, const std::vector<int>& labels) {
  std::int64_t n = 1;
  for (int l : labels) n *= x.t.size(static_cast<std::int64_t>(position(x.labels, l)));
  return n;
}

/// A * B summed over `contracted`: batch labels shared and kept, left/right labels of one side.
Labelled contract(Labelled a, Labelled b, const std::vector<int>& keep_later) {
  // A label in both whose size is 1 on one side: sum the other side over it if it is contracted
  // (1 * sum(b) is the same sum), or expand the size-1 side if it is kept.
  for (std::size_t i = 0; i < a.labels.size(); ++i) {
    const int l = a.labels[i];
    if (!has(b.labels, l)) continue;
    const auto ia = static_cast<std::int64_t>(i), ib = static_cast<std::int64_t>(position(b.labels, l));
    const std::int64_t sa = a.t.size(ia), sb = b.t.size(ib);
    if (sa == sb) continue;
    const bool kept = has(keep_later, l);
    Labelled& one = sa == 1 ? a : b;
    Labelled& big = sa == 1 ? b : a;
    const std::int64_t ibig = sa == 1 ? ib : ia, ione = sa == 1 ? ia : ib;
    if (kept) {
      Shape s = one.t.shape();
      s[static_cast<std::size_t>(ione)] = big.t.size(ibig);
      one.t = one.t.expand(s);
    } else {
      big.t = big.t.sum(ibig, /*keepdim=*/true);
    }
  }
  std::vector<int> batch, left, right, summed;
  for (int l : a.labels) {
    if (has(b.labels, l)) (has(keep_later, l) ? batch : summed).push_back(l);
    else left.push_back(l);
  }
  for (int l : b.labels)
    if (!has(a.labels, l)) right.push_back(l);
  std::vector<int> a_order = batch, b_order = batch;
  a_order.insert(a_order.end(), left.begin(), left.end());
  a_order.insert(a_order.end(), summed.begin(), summed.end());
  b_order.insert(b_order.end(), summed.begin(), summed.end());
  b_order.insert(b_order.end(), right.begin(), right.end());
  const std::int64_t nb = product(a, batch), nl = product(a, left), nc = product(a, summed), nr = product(b, right);
  const Tensor a3 = arranged(a, a_order).reshape({nb, nl, nc});  // [batch, left, contracted]
  const Tensor b3 = arranged(b, b_order).reshape({nb, nc, nr});  // [batch, contracted, right]
  // Nothing contracted ("i,j->ij", "bi,bj->bij"): a broadcast product, as PyTorch's sumproduct_pair
  // does -- every dtype mul takes (bool, uint8, ...), no bmm, and nothing for autocast to narrow.
  const Tensor product3 = summed.empty() ? a3 * b3 : bmm(a3, b3);
  Shape out_shape;
  std::vector<int> out_labels = batch;
  out_labels.insert(out_labels.end(), left.begin(), left.end());
  out_labels.insert(out_labels.end(), right.begin(), right.end());
  for (int l : batch) out_shape.push_back(a.t.size(static_cast<std::int64_t>(position(a.labels, l))));
  for (int l : left) out_shape.push_back(a.t.size(static_cast<std::int64_t>(position(a.labels, l))));
  for (int l : right) out_shape.push_back(b.t.size(static_cast<std::int64_t>(position(b.labels, l))));
  return {product3.reshape(out_shape), out_labels};
}

}  // namespace

Tensor einsum(const std::string& equation, const std::vector<Tensor>& operands) {
  std::string eq;
  for (char c : equation)
    if (c != ' ') eq += c;
  if (operands.empty()) fail(equation, "at least one operand is needed.");
  const auto arrow = eq.find("->");
  const std::string lhs = eq.substr(0, arrow);
  std::vector<Term> terms;
  for (std::size_t start = 0;;) {
    const auto comma = lhs.find(',', start);
    terms.push_back(parse_term(equation, lhs.substr(start, comma == std::string::npos ? std::string::npos : comma - start)));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (terms.size() != operands.size()) {
    fail(equation, std::to_string(terms.size()) + " subscript terms for " + std::to_string(operands.size()) +
                       " operands. Hint: one comma-separated term per tensor.");
  }
  // Label every dim; the dims of "..." get labels kLetters + k, counted from the right.
  std::vector<Labelled> ops;
  std::int64_t ellipsis_dims = 0;
  for (std::size_t i = 0; i < terms.size(); ++i) {
    const Tensor& t = operands[i];
    check_defined(t, "einsum");
    const Term& term = terms[i];
    const auto named = static_cast<std::int64_t>(term.before.size() + term.after.size());
    if (term.has_ellipsis ? named > t.dim() : named != t.dim()) {
      fail(equation, "operand " + std::to_string(i) + " has shape " + shape_str(t.shape()) + " (" +
                         std::to_string(t.dim()) + " dims) but its subscripts name " + std::to_string(named) +
                         ". Hint: one letter per dim, or \"...\" for the rest.");
    }
    const std::int64_t e = t.dim() - named;
    ellipsis_dims = std::max(ellipsis_dims, e);
    Labelled x{t, term.before};
    for (std::int64_t k = e; k-- > 0;) x.labels.push_back(kLetters + static_cast<int>(k));
    x.labels.insert(x.labels.end(), term.after.begin(), term.after.end());
    ops.push_back(std::move(x));
  }
  // Output labels: as written, or "..." then the letters used exactly once, in alphabetical order.
  std::vector<int> out;
  std::vector<int> count(kLetters, 0);
  for (const Term& term : terms) {
    for (int l : term.before) ++count[static_cast<std::size_t>(l)];
    for (int l : term.after) ++count[static_cast<std::size_t>(l)];
  }
  if (arrow == std::string::npos) {
    for (std::int64_t k = ellipsis_dims; k-- > 0;) out.push_back(kLetters + static_cast<int>(k));
    for (int l = 0; l < kLetters; ++l)
      if (count[static_cast<std::size_t>(l)] == 1) out.push_back(l);
  } else {
    const Term o = parse_term(equation, eq.substr(arrow + 2));
    out = o.before;
    if (o.has_ellipsis) {
      for (std::int64_t k = ellipsis_dims; k-- > 0;) out.push_back(kLetters + static_cast<int>(k));
    } else if (ellipsis_dims > 0) {
      fail(equation, "the output has no \"...\" but the inputs' \"...\" cover dims. Hint: write \"...\" in the output.");
    }
    out.insert(out.end(), o.after.begin(), o.after.end());
    for (std::size_t i = 0; i < out.size(); ++i) {
      if (out[i] < kLetters && count[static_cast<std::size_t>(out[i])] == 0) {
        fail(equation, "output subscript " + label_name(out[i]) + " does not appear in the inputs.");
      }
      if (std::count(out.begin(), out.end(), out[i]) > 1) {
        fail(equation, "output subscript " + label_name(out[i]) + " appears more than once.");
      }
    }
  }
  for (auto& x : ops) take_diagonals(x, equation);
  std::vector<std::int64_t> size;
  check_sizes(ops, equation, size);

  // Fold left to right, summing each label out as soon as nothing later needs it.
  auto needed_after = [&](std::size_t i) {
    std::vector<int> keep = out;
    for (std::size_t j = i + 1; j < ops.size(); ++j) keep.insert(keep.end(), ops[j].labels.begin(), ops[j].labels.end());
    return keep;
  };
  auto sum_unneeded = [&](Labelled& x, const std::vector<int>& keep, const Labelled* partner) {
    for (std::size_t i = x.labels.size(); i-- > 0;) {
      const int l = x.labels[i];
      if (!has(keep, l) && !(partner && has(partner->labels, l))) sum_out(x, i);
    }
  };
  Labelled acc = ops[0];
  for (std::size_t i = 1; i < ops.size(); ++i) {
    const std::vector<int> keep = needed_after(i);
    sum_unneeded(acc, keep, &ops[i]);
    sum_unneeded(ops[i], keep, &acc);
    acc = contract(acc, ops[i], keep);
  }
  sum_unneeded(acc, out, nullptr);
  // Dims of "..." that this operand never had (broadcast from others) are added as size 1.
  for (int l : out) {
    if (!has(acc.labels, l)) {
      acc.t = acc.t.unsqueeze(acc.t.dim());
      acc.labels.push_back(l);
    }
  }
  Tensor result = arranged(acc, out);
  // Ellipsis dims of size 1 broadcast against the others' sizes.
  Shape target;
  for (int l : out) target.push_back(std::max<std::int64_t>(size[static_cast<std::size_t>(l)], 1));
  if (result.shape() != target && operands.size() > 1) result = result.expand(target);
  return result.is_same(operands[0]) ? result.view(result.shape()) : result;
}

}  // namespace kindling
