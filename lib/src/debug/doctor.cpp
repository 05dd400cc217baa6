// The training doctor. Each check is a small experiment on one batch; the model's weights,
// buffers, gradients and train/eval modes are snapshotted first and put back after every
// experiment that changes them, so running the doctor does not change what you train.
#include "kindling/debug/doctor.hpp"

#include <cmath>
#include <optional>

#include "kindling/autograd/grad_mode.hpp"
#include "kindling/autograd/hooks.hpp"
#include "kindling/debug/grad_report.hpp"
#include "kindling/nn/activation.hpp"
#include "kindling/nn/dropout.hpp"
#include "kindling/nn/normalization.hpp"

namespace kindling::debug {

bool DoctorReport::has(std::string_view check) const {
  for (const Finding& f : findings)
    if (f.check == check) return true;
  return false;
}

std::string DoctorReport::to_string() const {
  std::string out;
  for (const Finding& f : findings) out += "FOUND " + f.check + "\n  cause: " + f.cause + "\n  fix:   " + f.fix + "\n";
  if (!passed.empty()) {
    out += "passed:";
    for (const auto& p : passed) out += " " + p;
    out += "\n";
  }
  if (!skipped.empty()) {
    out += "skipped:";
    for (const auto& s : skipped) out += " " + s;
    out += "\n";
  }
  return out + (findings.empty() ? "no problems found\n" : std::to_string(findings.size()) + " problem(s) found\n");
}

namespace {

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

// A copy on the host that nothing else shares (a device tensor is copied down; a CPU one cloned).
Tensor host_copy(const Tensor& t) { return t.device().is_cpu() ? t.detach().clone() : t.detach().cpu(); }

// Everything the experiments may change (kept on the host; put back with copy_, on any device).
class Snapshot {
 public:
  explicit Snapshot(nn::Module& m) : model_(m) {
    autograd::NoGradGuard no_grad;
    for (const Tensor& p : m.parameters()) {
      params_.push_back(p);
      values_.push_back(host_copy(p));
      grads_.push_back(p.grad().defined() ? host_copy(p.grad()) : Tensor());
    }
    for (const Tensor& b : m.buffers()) {
      buffers_.push_back(b);
      buffer_values_.push_back(host_copy(b));
    }
    for (nn::Module* sub : m.modules()) modes_.push_back({sub, sub->is_training()});
  }
  void restore() {
    autograd::NoGradGuard no_grad;
    for (std::size_t i = 0; i < params_.size(); ++i) {
      Tensor p = params_[i];
      p.copy_(values_[i]);
      const Tensor& g = grads_[i];
      p.set_grad(!g.defined() ? Tensor() : p.device().is_cpu() ? g.clone() : g.to(p.device()));
    }
    for (std::size_t i = 0; i < buffers_.size(); ++i) {
      Tensor b = buffers_[i];
      b.copy_(buffer_values_[i]);
    }
    for (auto& [sub, training] : modes_) sub->train(training);  // pre-order: children last
  }

 private:
  nn::Module& model_;
  std::vector<Tensor> params_, values_, grads_, buffers_, buffer_values_;
  std::vector<std::pair<nn::Module*, bool>> modes_;
};

bool finite(double v) { return std::isfinite(v); }

double run_steps(nn::Module& model, const LossFn& loss, optim::Optimizer& opt, const Tensor& x, const Tensor& y,
                 int steps, double* first) {
  double last = 0;
  for (int k = 0; k < steps; ++k) {
    opt.zero_grad();
    Tensor l = loss(model(x), y);
    last = l.item<double>();
    if (k == 0 && first) *first = last;
    if (!finite(last)) return last;
    l.backward();
    opt.step();
  }
  return last;
}

// The share of a ReLU's units that are 0 for every sample of the batch. out: [batch, ...]
double dead_share(const Tensor& out) {
  if (out.dim() < 1 || out.size(0) == 0 || out.numel() == 0) return 0;
  Tensor c = out.detach().cpu().contiguous().to(kFloat64);
  const double* v = c.data_ptr<double>();
  const std::int64_t b = c.size(0), units = c.numel() / b;
  std::int64_t dead = 0;
  for (std::int64_t u = 0; u < units; ++u) {
    bool alive = false;
    for (std::int64_t s = 0; s < b && !alive; ++s) alive = v[s * units + u] > 0;
    if (!alive) ++dead;
  }
  return static_cast<double>(dead) / static_cast<double>(units);
}

}  // namespace

DoctorReport doctor(nn::Module& model, const LossFn& loss, const MakeOptimizer& make_optimizer, const Tensor& x,
                    const Tensor& y, const DoctorOptions& options) {
  DoctorReport r;
  auto found = [&](std::string check, std::string cause, std::string fix) {
    r.findings.push_back({std::move(check), std::move(cause), std::move(fix)});
  };
  const std::vector<std::pair<std::string, Tensor>> named = model.named_parameters();
  if (named.empty()) throw ValueError("doctor: the model has no parameters. Hint: register_module each layer.");
  Snapshot snapshot(model);

  // ---- the batch ---------------------------------------------------------------------------------
  const Tensor& w0 = named.front().second;
  bool data_ok = true;
  if (x.dtype() != w0.dtype()) {
    data_ok = false;
    found("input-dtype", "the batch is " + std::string(dtype_name(x.dtype())) + " but the weights are " +
                             dtype_name(w0.dtype()) + (x.is_floating_point() ? "" : " (raw pixels 0-255?)"),
          "convert the inputs: x.to(kd::kFloat32); for images use transforms::ToTensor (float32 in [0, 1])");
  }
  if (x.device() != w0.device()) {
    data_ok = false;
    found("input-device", "the batch is on " + x.device().str() + " but the model is on " + w0.device().str(),
          "move one of them: x.to(device) or model.to(device), before the forward pass");
  }
  if (x.is_floating_point()) {
    const TensorStats s = tensor_stats(x);
    if (!s.finite()) {
      data_ok = false;
      found("nan-in-data", "the batch holds " + std::to_string(s.nan) + " NaN and " + std::to_string(s.inf) +
                               " Inf values: every loss computed from it is NaN",
            "scan the dataset (kd::debug::scan) and clean or drop the bad samples");
    }
  }
  if (data_ok) r.passed.push_back("data");

  // ---- initialisation ----------------------------------------------------------------------------
  bool init_ok = true;
  for (const auto& [name, p] : named) {
    if (p.dim() < 2 || p.numel() < 2) continue;
    const TensorStats s = tensor_stats(p);
    const double n = static_cast<double>(s.numel);
    const double std = std::sqrt(std::max(0.0, s.norm * s.norm / n - s.mean * s.mean));
    const double fan_in = n / static_cast<double>(p.size(0));
    if (std == 0) {
      init_ok = false;
      found("constant-init", name + " holds one value (" + num(s.mean) + ") everywhere: every unit of the layer "
                                 "computes the same thing and gets the same gradient, so they never differ",
            "keep the layer's default init, or use kd::nn::init::kaiming_uniform_ / xavier_uniform_ "
            "(never zeros or a constant for weights)");
    } else if (std * std::sqrt(fan_in) > 10) {
      init_ok = false;
      found("huge-init", name + " has std " + num(std) + " for a fan-in of " + num(fan_in) +
                             ": activations grow by ~" + num(std * std::sqrt(fan_in)) + "x per layer",
            "scale the init to the fan-in: std ~ 1/sqrt(fan_in) (kaiming/xavier, or the default init)");
    }
  }
  if (init_ok) r.passed.push_back("init");

  // ---- one forward: outputs and ReLUs -------------------------------------------------------------
  std::vector<std::pair<std::string, double>> dead;
  std::vector<autograd::RemovableHandle> handles;
  for (auto& [name, m] : model.named_modules()) {
    if (dynamic_cast<nn::ReLU*>(m) == nullptr) continue;
    std::string label = name.empty() ? "relu" : name;
    handles.push_back(m->register_forward_hook([&dead, label](nn::Module&, const Tensor&, const Tensor& out) {
      dead.push_back({label, dead_share(out)});
      return Tensor();
    }));
  }
  Tensor out;
  try {
    autograd::NoGradGuard no_grad;
    out = model(x);
  } catch (const Error& e) {
    for (auto& h : handles) h.remove();
    found("forward-fails", std::string("the forward pass throws: ") + e.what(), "fix the error above first");
    snapshot.restore();
    return r;
  }
  for (auto& h : handles) h.remove();
  bool outputs_ok = true;
  const TensorStats os = tensor_stats(out);
  if (!os.finite() && data_ok) {
    outputs_ok = false;
    found("nan-output", "the model's outputs hold NaN/Inf on clean data",
          "run the forward under kd::autograd::DetectAnomalyGuard({.check_forward = true}) to find the op");
  }
  if (out.dim() == 2 && out.size(1) > 1 && os.finite()) {
    Tensor c = out.detach().cpu().contiguous().to(kFloat64);
    const double* v = c.data_ptr<double>();
    const std::int64_t b = c.size(0), k = c.size(1);
    bool probs = true;
    for (std::int64_t s = 0; s < b && probs; ++s) {
      double sum = 0;
      for (std::int64_t j = 0; j < k; ++j) {
        probs = probs && v[s * k + j] >= 0 && v[s * k + j] <= 1;
        sum += v[s * k + j];
      }
      probs = probs && std::abs(sum - 1) < 1e-4;
    }
    if (probs) {
      outputs_ok = false;
      found("softmax-before-cross-entropy",
            "every output row is a probability distribution (in [0, 1], sums to 1): the model ends in softmax, "
            "and CrossEntropyLoss applies log_softmax again -- the gradients shrink and learning stalls (or a "
            "hand-written log(softmax) hits log(0) = -inf)",
            "return the logits from forward and give them to CrossEntropyLoss; apply softmax only to read "
            "probabilities at prediction time");
    }
    if (b > 1) {
      bool same = true;
      for (std::int64_t j = 0; j < k && same; ++j) {
        double lo = v[j], hi = v[j];
        for (std::int64_t s = 1; s < b; ++s) lo = std::min(lo, v[s * k + j]), hi = std::max(hi, v[s * k + j]);
        same = hi - lo <= 1e-6 * (1 + std::abs(hi));
      }
      if (same) {
        outputs_ok = false;
        found("all-equal-outputs", "the model gives the same output for every sample of the batch: the input "
                                   "does not reach the output (dead ReLUs, a constant init, or a layer whose "
                                   "output is ignored)",
              "print kd::debug::grad_report after a backward, check the init and that forward uses its input");
      }
    }
  }
  if (outputs_ok) r.passed.push_back("outputs");
  bool relu_ok = true;
  for (const auto& [name, share] : dead) {
    if (share > options.dead_relu_share) {
      relu_ok = false;
      found("dead-relu", num(100 * share) + "% of the units of " + name + " are 0 for the whole batch: they "
                         "pass no gradient and stop learning",
            "lower the learning rate, check the init and the bias (a large negative bias kills units), or use "
            "LeakyReLU");
      break;
    }
  }
  if (relu_ok && !dead.empty()) r.passed.push_back("relu");

  // ---- one backward: does every parameter get a gradient? -----------------------------------------
  for (auto [name, p] : named) p.set_grad(Tensor());
  double first_loss = 0;
  {
    Tensor l = loss(model(x), y);
    first_loss = l.item<double>();
    if (finite(first_loss)) l.backward();
  }
  if (finite(first_loss)) {
    const GradReport g = grad_report(model, {.vanishing_norm = 0, .exploding_norm = options.exploding_norm});
    std::string missing;
    bool any_grad = false;
    for (const auto& pr : g.parameters) {
      if (!pr.has_grad || pr.grad.norm == 0) missing += (missing.empty() ? "" : ", ") + pr.name;
      else any_grad = true;
    }
    if (!missing.empty()) {
      found("no-gradient", "no gradient reaches " + missing + (any_grad ? " (the later layers get one)" : "") +
                               ": something cuts the graph between them and the loss -- a detach(), a "
                               "NoGradGuard in forward, requires_grad_(false), or a layer that outputs zeros",
            "follow the graph from loss.grad_fn() (kd::autograd::to_dot) and remove the cut");
    } else {
      r.passed.push_back("gradients");
    }
    if (g.total_grad_norm > options.exploding_norm || !finite(g.total_grad_norm)) {
      found("exploding-gradients", "the total gradient norm is " + num(g.total_grad_norm) + " (above " +
                                       num(options.exploding_norm) + "): one step moves the weights far",
            "clip between backward and step: kd::nn::utils::clip_grad_norm_(model.parameters(), 1.0); "
            "check the init and the input scale, lower the learning rate");
    } else {
      r.passed.push_back("gradient-norm");
    }
  }
  snapshot.restore();

  // ---- zero_grad: does your step start from a clean gradient? ------------------------------------
  if (options.train_step) {
    for (auto [name, p] : named) p.set_grad(Tensor());
    bool stale = false;
    int calls = 0;
    for (const auto& [name, p] : named) {
      if (!p.requires_grad()) continue;
      Tensor param = p;
      handles.push_back(param.register_hook([param, &stale, &calls](const Tensor&) {
        const Tensor before = param.grad();
        if (calls > 0 && before.defined() && tensor_stats(before).abs_max > 0) stale = true;
        return Tensor();
      }));
    }
    try {
      options.train_step(x, y);
      calls = 1;
      options.train_step(x, y);
    } catch (...) {
      for (auto& h : handles) h.remove();
      snapshot.restore();
      throw;
    }
    for (auto& h : handles) h.remove();
    handles.clear();
    if (stale) {
      found("zero-grad-forgotten", "the gradient from the previous step is still in .grad when the next "
                                   "backward adds to it: gradients pile up step after step",
            "call optimizer.zero_grad() at the start of every step (unless you accumulate on purpose)");
    } else {
      r.passed.push_back("zero-grad");
    }
    snapshot.restore();
  } else {
    r.skipped.push_back("zero-grad (pass .train_step)");
  }

  // ---- eval(): are Dropout and BatchNorm in eval mode when you evaluate? --------------------------
  std::vector<nn::Module*> stochastic;
  for (nn::Module* m : model.modules())
    if (dynamic_cast<nn::Dropout*>(m) || dynamic_cast<nn::BatchNorm*>(m)) stochastic.push_back(m);
  if (options.evaluate && !stochastic.empty()) {
    std::string in_train;
    for (nn::Module* m : stochastic) {
      handles.push_back(m->register_forward_pre_hook([&in_train](nn::Module& mod, const Tensor&) {
        if (mod.is_training() && in_train.find(mod.type_name()) == std::string::npos)
          in_train += (in_train.empty() ? "" : ", ") + mod.type_name();
        return Tensor();
      }));
    }
    try {
      (void)options.evaluate(x);
    } catch (...) {
      for (auto& h : handles) h.remove();
      snapshot.restore();
      throw;
    }
    for (auto& h : handles) h.remove();
    handles.clear();
    if (!in_train.empty()) {
      found("eval-forgotten", in_train + " ran in training mode during evaluation: Dropout drops units and "
                              "BatchNorm uses the batch's statistics (and updates its running ones)",
            "call model.eval() before evaluating (and model.train() before training again)");
    } else {
      r.passed.push_back("eval");
    }
    snapshot.restore();
  } else if (!options.evaluate) {
    r.skipped.push_back("eval (pass .evaluate)");
  }

  // ---- overfit the batch --------------------------------------------------------------------------
  if (finite(first_loss)) {
    model.train();
    double start = 0;
    auto opt = make_optimizer(model.parameters());
    const double last = run_steps(model, loss, *opt, x, y, options.overfit_steps, &start);
    const double lr = opt->lr();
    snapshot.restore();
    if (!finite(last)) {
      found("overfit-diverges", "training on one batch turns the loss into " + num(last) + " (lr " + num(lr) + ")",
            "lower the learning rate (try lr / 10), and clip gradients");
    } else if (last > options.overfit_ratio * start) {
      found("cannot-overfit", "after " + std::to_string(options.overfit_steps) + " steps on one batch the loss "
                              "went from " + num(start) + " to " + num(last) + " only: the model cannot learn "
                              "even what it sees again and again",
            "look for a bug in the model, the loss or the labels before scaling up (and check the other "
            "findings); a too small learning rate also does this");
    } else {
      r.passed.push_back("overfit-one-batch");
    }

    // ---- the learning rate ----------------------------------------------------------------------
    model.train();
    auto at_lr = make_optimizer(model.parameters());
    double l0 = 0;
    const double l_lr = run_steps(model, loss, *at_lr, x, y, options.lr_steps, &l0);
    snapshot.restore();
    model.train();
    auto at_tenth = make_optimizer(model.parameters());
    at_tenth->set_lr(lr / 10);
    const double l_tenth = run_steps(model, loss, *at_tenth, x, y, options.lr_steps, nullptr);
    snapshot.restore();
    if ((!finite(l_lr) || l_lr > l0 * 1.05) && finite(l_tenth) && l_tenth < l0) {
      found("lr-too-large", "after " + std::to_string(options.lr_steps) + " steps the loss is " + num(l_lr) +
                                " at lr " + num(lr) + " (it started at " + num(l0) + ") but " + num(l_tenth) +
                                " at lr " + num(lr / 10),
            "use lr " + num(lr / 10) + " (or a warm-up), and clip gradients");
    } else {
      r.passed.push_back("learning-rate");
    }
  } else {
    r.skipped.push_back("overfit, learning-rate (the loss is not finite)");
  }
  snapshot.restore();
  return r;
}

}  // namespace kindling::debug
