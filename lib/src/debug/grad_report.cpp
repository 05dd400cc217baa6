// The gradient/weight report: one pass over each parameter and its .grad.
#include "kindling/debug/grad_report.hpp"

#include <cmath>
#include <cstdio>

#include "tensor/dispatch.hpp"

namespace kindling::debug {

TensorStats tensor_stats(const Tensor& t) {
  TensorStats s;
  if (!t.defined()) return s;
  s.numel = t.numel();
  if (s.numel == 0) return s;
  // A device tensor is read from a host copy: its memory is not the host's to read.
  Tensor c = t.detach().cpu().contiguous();
  if (c.dtype() != kFloat64) c = c.to(kFloat64);  // every dtype, integers included, widens exactly
  const double* x = c.data_ptr<double>();
  double sum = 0, sq = 0;
  std::int64_t finite = 0, zeros = 0;
  for (std::int64_t i = 0; i < s.numel; ++i) {
    const double v = x[i];
    if (std::isnan(v)) { ++s.nan; continue; }
    if (std::isinf(v)) { ++s.inf; continue; }
    ++finite;
    sum += v;
    sq += v * v;
    if (v == 0) ++zeros;
    s.abs_max = std::max(s.abs_max, std::abs(v));
  }
  s.norm = std::sqrt(sq);
  s.mean = finite ? sum / static_cast<double>(finite) : 0;
  s.zero_fraction = static_cast<double>(zeros) / static_cast<double>(s.numel);
  return s;
}

GradReport grad_report(const nn::Module& model, GradReportOptions options) {
  GradReport r;
  double total_sq = 0;
  for (const auto& [name, p] : model.named_parameters()) {
    if (!p.requires_grad()) continue;
    ParameterReport pr;
    pr.name = name;
    pr.shape = p.shape();
    pr.weight = tensor_stats(p);
    const Tensor g = p.grad();
    pr.has_grad = g.defined();
    if (pr.has_grad) pr.grad = tensor_stats(g);
    pr.nonfinite = !pr.weight.finite() || (pr.has_grad && !pr.grad.finite());
    pr.vanishing = !pr.has_grad || pr.grad.norm < options.vanishing_norm;
    pr.exploding = pr.has_grad && (pr.grad.norm > options.exploding_norm || pr.grad.inf > 0);
    total_sq += pr.grad.norm * pr.grad.norm;
    r.parameters.push_back(std::move(pr));
  }
  r.total_grad_norm = std::sqrt(total_sq);
  return r;
}

bool GradReport::any_vanishing() const {
  for (const auto& p : parameters) if (p.vanishing) return true;
  return false;
}
bool GradReport::any_exploding() const {
  for (const auto& p : parameters) if (p.exploding) return true;
  return false;
}
bool GradReport::any_nonfinite() const {
  for (const auto& p : parameters) if (p.nonfinite) return true;
  return false;
}

std::string GradReport::to_string() const {
  std::string out;
  char line[256];
  std::snprintf(line, sizeof line, "%-14s %-10s %9s %9s %9s %6s  %s\n", "parameter", "shape", "|w|", "|grad|",
                "max|grad|", "zeros", "flags");
  out += line;
  for (const auto& p : parameters) {
    std::string flags;
    if (!p.has_grad) flags += " no-grad";
    if (p.vanishing && p.has_grad) flags += " vanishing";
    if (p.exploding) flags += " exploding";
    if (p.nonfinite) flags += " nan/inf";
    std::snprintf(line, sizeof line, "%-14s %-10s %9.3g %9.3g %9.3g %5.0f%% %s\n", p.name.c_str(),
                  shape_str(p.shape).c_str(), p.weight.norm, p.grad.norm, p.grad.abs_max, 100 * p.grad.zero_fraction,
                  flags.empty() ? " ok" : flags.c_str());
    out += line;
  }
  std::snprintf(line, sizeof line, "total gradient norm %.4g\n", total_grad_norm);
  return out + line;
}

}  // namespace kindling::debug
