// Chapter 10's milestone: your importer runs the grader's ONNX files, and your compiled module
// matches PyTorch with fewer kernels than eager. Your pieces are all on the path: Gemm (ex1) in
// model_gemm.onnx, the window pads (ex2) in model_window.onnx, dead-code elimination (ex3) and the
// guard (ex4) in every kd::compile call.
//
// What it writes to OUT_DIR, and what milestone.py does with it:
//   y_gemm.npy, grad_gemm_<W1..b3>.npy   model_gemm.onnx's output for x_gemm.npy, and the gradient of
//                                        each initializer of sum(y * g_gemm) -> PyTorch's, same weights
//   y_window.npy                         model_window.onnx's output for x_window.npy -> PyTorch's
//   y_train.npy, grad_net_<param>.npy    the compiled model in train() with grad, and the gradients of
//                                        sum(y * g1) -> the checker's PyTorch twin
//   y_eval.npy, y_transposed.npy, y_eval_again.npy   in eval() without grad: another batch size, a
//                                        transposed input, the first again -> the twin
//   compile_stats.npy                    [traces, kernels eager (the traced forward, its dead code
//                                        removed), kernels compiled, nodes dead-code elimination removed]
//
//   milestone_ch10 IN_DIR OUT_DIR   (IN_DIR: model_gemm.onnx, model_window.onnx, x_*.npy, g_gemm.npy,
//                                    net_*.npy)
#include "milestone_main.hpp"
#include <kindling/jit.hpp>
#include <kindling/kindling.hpp>

#include <cstdio>
#include <string>
#include <vector>

namespace kd = kindling;
namespace F = kd::nn::functional;

namespace {

/// In train() the identity, in eval() a half: a forward that depends on the module's flag.
struct Half : kd::nn::Module {
  kd::Tensor forward(const kd::Tensor& x) override { return is_training() ? x : x * 0.5; }
};

// x: [batch, D] -> fc1 [batch, H] -> tanh(h) * gamma + h -> halve -> fc2 [batch, O]
struct Net : kd::nn::Module {
  kd::nn::Linear fc1, fc2;
  kd::Tensor gamma;
  Half halve;
  explicit Net(const std::string& in)
      : fc1(load(in, "fc1_weight").size(1), load(in, "fc1_weight").size(0)),
        fc2(load(in, "fc2_weight").size(1), load(in, "fc2_weight").size(0)) {
    register_module("fc1", fc1);
    register_module("fc2", fc2);
    gamma = register_parameter("gamma", load(in, "gamma"));
    register_module("halve", halve);
    kd::NoGradGuard no_grad;
    fc1.weight.copy_(load(in, "fc1_weight"));
    fc1.bias.copy_(load(in, "fc1_bias"));
    fc2.weight.copy_(load(in, "fc2_weight"));
    fc2.bias.copy_(load(in, "fc2_bias"));
  }
  static kd::Tensor load(const std::string& in, const std::string& name) {
    return kd::load_npy(in + "/net_" + name + ".npy", kd::kFloat32);
  }
  kd::Tensor forward(const kd::Tensor& x) override {
    kd::Tensor h = fc1(x);
    kd::Tensor a = h.tanh() * gamma + h;
    kd::Tensor unused = (a.sin() * 2.0).exp();  // dead: nothing reads it
    return fc2(halve(a));
  }
};

std::string flat(std::string name) {
  for (char& c : name)
    if (c == '.') c = '_';
  return name;
}

int run(const std::string& in, const std::string& out) {
  // 1. ONNX: Gemm nodes (ex1), trained through; windows with auto_pad (ex2).
  {
    auto model = kd::onnx::load(in + "/model_gemm.onnx");
    const kd::Tensor y = (*model)(kd::load_npy(in + "/x_gemm.npy", kd::kFloat32));
    (y * kd::load_npy(in + "/g_gemm.npy", kd::kFloat32)).sum().backward();
    kd::save_npy(y.detach(), out + "/y_gemm.npy");
    for (const auto& [name, p] : model->named_parameters())
      if (p.grad().defined()) kd::save_npy(p.grad(), out + "/grad_gemm_" + name + ".npy");
    std::printf("model_gemm.onnx: output %s\n", kd::shape_str(y.shape()).c_str());
  }
  {
    auto model = kd::onnx::load(in + "/model_window.onnx");
    kd::NoGradGuard no_grad;
    const kd::Tensor y = (*model)(kd::load_npy(in + "/x_window.npy", kd::kFloat32));
    kd::save_npy(y, out + "/y_window.npy");
    std::printf("model_window.onnx: output %s\n", kd::shape_str(y.shape()).c_str());
  }

  // 2. kd::compile (ex3, ex4): four calls, two modes.
  Net net(in);
  auto fast = kd::compile(net, {.cache_dir = "/tmp/kindling-milestone-ch10"});
  const kd::Tensor x1 = Net::load(in, "x1");
  const kd::Tensor y1 = (*fast)(x1);
  (y1 * Net::load(in, "g1")).sum().backward();
  kd::save_npy(y1.detach(), out + "/y_train.npy");
  for (const auto& [name, p] : net.named_parameters())
    kd::save_npy(p.grad(), out + "/grad_net_" + flat(name) + ".npy");
  const std::int64_t compiled_kernels = static_cast<std::int64_t>(fast->graph()->num_kernels());

  net.eval();
  {
    kd::NoGradGuard no_grad;
    const kd::Tensor x2 = Net::load(in, "x2"), x3 = Net::load(in, "x3t").t();  // x3: not contiguous
    kd::save_npy((*fast)(x2), out + "/y_eval.npy");
    kd::save_npy((*fast)(x3), out + "/y_transposed.npy");
    kd::save_npy((*fast)(x2), out + "/y_eval_again.npy");
  }

  // The same forward (train mode) traced by hand: the nodes dead-code elimination removes, and the
  // kernels the rest launches eagerly (one per node but views).
  net.train();
  kd::jit::Graph g = kd::jit::trace(net, x1);
  const std::int64_t removed = kd::jit::eliminate_dead_code(g);
  const std::int64_t eager_kernels = static_cast<std::int64_t>(g.num_kernels());
  const std::int64_t traces = fast->stats().traces;
  kd::save_npy(kd::tensor(std::vector<std::int64_t>{traces, eager_kernels, compiled_kernels, removed}, {4}),
               out + "/compile_stats.npy");
  std::printf("compiled: %lld trace(s), %lld kernels eager, %lld compiled, %lld dead node(s) removed\n",
              static_cast<long long>(traces), static_cast<long long>(eager_kernels),
              static_cast<long long>(compiled_kernels), static_cast<long long>(removed));
  return 0;
}

}  // namespace

int main(int argc, char** argv) { return milestone::main_of(argc, argv, run); }
