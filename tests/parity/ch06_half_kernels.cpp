// float16/bfloat16 kernels: the Kindling twin of every case in ch06_half_kernels.py.
#include <kindling/kindling.hpp>

#include "parity.hpp"

namespace kd = kindling;
namespace F = kindling::nn::functional;
using kd::Tensor;

#define HALF_KERNEL_CASES(tag)                                                                        \
  PARITY_CASE(tag "/gelu") { return F::gelu(in["x"]); }                                              \
  PARITY_CASE(tag "/gelu-tanh") { return F::gelu(in["x"], "tanh"); }                                 \
  PARITY_CASE(tag "/silu") { return F::silu(in["x"]); }                                              \
  PARITY_CASE(tag "/elu") { return F::elu(in["x"]); }                                                \
  PARITY_CASE(tag "/softplus") { return F::softplus(in["x"]); }                                      \
  PARITY_CASE(tag "/leaky-relu") { return F::leaky_relu(in["x"], 0.2); }                             \
  PARITY_CASE(tag "/tril-triu") { return {in["x"].tril(), in["x"].triu(1)}; }                        \
  PARITY_CASE(tag "/masked-fill") { return in["x"].masked_fill(in["m"], -1.5); }                     \
  PARITY_CASE(tag "/gather") { return in["x"].gather(1, in["i"]); }                                  \
  PARITY_CASE(tag "/sort") {                                                                          \
    auto [v, i] = in["x"].sort(1, true);                                                              \
    return {v, i};                                                                                    \
  }                                                                                                   \
  PARITY_CASE(tag "/topk") {                                                                          \
    auto [v, i] = in["x"].topk(3);                                                                    \
    return {v, i};                                                                                    \
  }                                                                                                   \
  PARITY_CASE(tag "/take-along-dim") { return kd::take_along_dim(in["x"], in["i"], 0); }             \
  PARITY_CASE(tag "/scatter") { return in["x"].scatter(1, in["i"], in["s"]); }                       \
  PARITY_CASE(tag "/scatter-add") { return in["x"].scatter_add(1, in["i"], in["s"]); }               \
  PARITY_CASE(tag "/interpolate-nearest") {                                                           \
    return F::interpolate(in["x"], {.scale_factor = {2.0}, .mode = "nearest"});                      \
  }                                                                                                   \
  PARITY_CASE(tag "/interpolate-bilinear") {                                                          \
    return F::interpolate(in["x"], {.size = {5, 7}, .mode = "bilinear", .align_corners = false});    \
  }                                                                                                   \
  PARITY_CASE(tag "/embedding-grad") { return F::embedding(in["i"], in["w"]); }
HALF_KERNEL_CASES("half")
HALF_KERNEL_CASES("bfloat16")
#undef HALF_KERNEL_CASES

PARITY_CASE("bfloat16/nll-loss") { return F::nll_loss(in["x"], in["t"]); }
PARITY_CASE("bfloat16/cross-entropy") { return F::cross_entropy(in["x"], in["t"]); }
PARITY_CASE("bfloat16/cross-entropy-none") {
  return F::cross_entropy(in["x"], in["t"], {.reduction = kd::nn::Reduction::None});
}
PARITY_CASE("nll-loss/empty-float-target") {
  return F::nll_loss(in["x"], in["t"], {.reduction = kd::nn::Reduction::Sum});
}
PARITY_CASE("nll-loss/float-target") { return F::nll_loss(in["x"], in["t"]); }
PARITY_CASE("linear/in-features-0") { return F::linear(in["x"], in["w"], in["b"]); }
