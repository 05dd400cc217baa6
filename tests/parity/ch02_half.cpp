// float16 / bfloat16 parity: the Kindling twin of every case in ch02_half.py.
#include <cmath>
#include <cstdint>

#include "parity.hpp"

using kd::Tensor;

namespace {

/// The 16 bits of each element as int64 (what `t.view(torch.int16).long() & 0xFFFF` gives), every
/// NaN written `nan` when nan >= 0.
template <class T> Tensor bits_of(const Tensor& t, std::int64_t nan = -1) {
  const Tensor c = t.contiguous();
  std::vector<std::int64_t> out(static_cast<std::size_t>(c.numel()));
  const T* p = c.data_ptr<T>();
  for (std::size_t i = 0; i < out.size(); ++i) {
    const bool is_nan = std::isnan(static_cast<float>(p[i]));
    out[i] = (is_nan && nan >= 0) ? nan : p[i].bits;
  }
  return kd::tensor(out, c.shape());
}
Tensor bits(const Tensor& t) {
  return t.dtype() == kd::kFloat16 ? bits_of<kd::Half>(t) : bits_of<kd::BFloat16>(t);
}
Tensor bf16_bits(const Tensor& t) { return bits_of<kd::BFloat16>(t, 0x7FC0); }
Tensor half_nan_as(const Tensor& t) { return bits_of<kd::Half>(t, 0x7E00); }

}  // namespace

// ---- conversions ----------------------------------------------------------------------------------
PARITY_CASE("to-half/float32-all-rounding-cases") { return bits(in["x"].to(kd::kHalf)); }
PARITY_CASE("to-bfloat16/float32-all-rounding-cases") { return bf16_bits(in["x"].to(kd::kBFloat16)); }
PARITY_CASE("to-half/float64") { return bits(in["x"].to(kd::kHalf)); }
PARITY_CASE("to-half/float64-tiny") { return bits(in["x"].to(kd::kHalf)); }
PARITY_CASE("to-bfloat16/float64") { return bf16_bits(in["x"].to(kd::kBFloat16)); }
PARITY_CASE("to-half/int64") { return bits(in["x"].to(kd::kHalf)); }
PARITY_CASE("to-bfloat16/int64") { return bf16_bits(in["x"].to(kd::kBFloat16)); }
PARITY_CASE("to-half/uint8-bool") { return {bits(in["a"].to(kd::kHalf)), bits(in["b"].to(kd::kHalf))}; }
PARITY_CASE("half/all-patterns-to-float32") { return in["x"].to(kd::kFloat32); }
PARITY_CASE("half/all-patterns-to-float64") { return in["x"].to(kd::kFloat64); }
PARITY_CASE("half/all-patterns-to-bfloat16") { return bf16_bits(in["x"].to(kd::kBFloat16)); }
PARITY_CASE("bfloat16/all-patterns-to-half") { return half_nan_as(in["x"].to(kd::kHalf)); }
PARITY_CASE("bfloat16/all-patterns-to-float32") { return in["x"].to(kd::kFloat32); }
PARITY_CASE("half/transposed-copy") { return bits(in["x"].t().to(kd::kHalf)); }
PARITY_CASE("half/to-bool") { return in["x"].to(kd::kBool); }

// ---- type promotion -------------------------------------------------------------------------------
PARITY_CASE("promote/half-bfloat16") { return in["a"] + in["b"]; }
PARITY_CASE("promote/half-float32") { return in["a"] + in["b"]; }
PARITY_CASE("promote/bfloat16-float64") { return in["a"] * in["b"]; }
PARITY_CASE("promote/half-int64") { return in["a"] + in["b"]; }
PARITY_CASE("promote/int64-0d-half") { return in["a"] * in["b"]; }
PARITY_CASE("promote/half-0d-float32") { return in["a"] + in["b"]; }
PARITY_CASE("promote/bfloat16-0d-float64") { return in["a"] + in["b"]; }
PARITY_CASE("promote/half-0d-half-0d-float32") { return in["a"] + in["b"]; }
PARITY_CASE("promote/half-python-float") { return in["a"] * 0.5; }
PARITY_CASE("promote/bfloat16-python-int") { return in["a"] + 3; }
PARITY_CASE("promote/int64-python-float-stays-float32") { return in["a"] * 0.5; }
PARITY_CASE("promote/cat-half-bfloat16") { return kd::cat({in["a"], in["b"]}); }
PARITY_CASE("promote/where-half-float32") { return kd::where(in["c"], in["a"], in["b"]); }

// ---- ops -------------------------------------------------------------------------------------------
#define LOWP_CASES(tag)                                                                             \
  PARITY_CASE(tag "/add-broadcast") { return in["a"] + in["b"]; }                                   \
  PARITY_CASE(tag "/sub-transposed") { return in["a"].t() - in["b"]; }                              \
  PARITY_CASE(tag "/mul") { return in["a"] * in["b"]; }                                             \
  PARITY_CASE(tag "/div") { return in["a"] / in["b"]; }                                             \
  PARITY_CASE(tag "/overflow-to-inf") { return in["a"] * in["a"]; }                                 \
  PARITY_CASE(tag "/0d") { return in["a"] * in["b"]; }                                              \
  PARITY_CASE(tag "/empty") { return in["a"] + in["b"]; }                                           \
  PARITY_CASE(tag "/exp") { return kd::exp(in["x"]); }                                              \
  PARITY_CASE(tag "/log") { return kd::log(in["x"]); }                                              \
  PARITY_CASE(tag "/tanh") { return kd::tanh(in["x"]); }                                            \
  PARITY_CASE(tag "/sigmoid") { return kd::sigmoid(in["x"]); }                                      \
  PARITY_CASE(tag "/relu") { return kd::relu(in["x"]); }                                            \
  PARITY_CASE(tag "/neg-abs") { return {-in["x"], in["x"].abs()}; }                                 \
  PARITY_CASE(tag "/clamp") { return in["x"].clamp(-0.5, 0.5); }                                    \
  PARITY_CASE(tag "/pow-scalar") { return in["x"].pow(2); }                                         \
  PARITY_CASE(tag "/compare") { return {in["a"] < in["b"], in["a"] == in["a"]}; }                   \
  PARITY_CASE(tag "/sum") { return in["x"].sum(); }                                                 \
  PARITY_CASE(tag "/sum-dim") { return in["x"].sum(0); }                                            \
  PARITY_CASE(tag "/mean-dim-keepdim") { return in["x"].mean(1, true); }                            \
  PARITY_CASE(tag "/max-min") {                                                                     \
    auto [v, i] = in["x"].min(1);                                                                   \
    return {in["x"].max(), v, i};                                                                   \
  }                                                                                                 \
  PARITY_CASE(tag "/argmax") { return in["x"].argmax(1); }                                          \
  PARITY_CASE(tag "/var-std") { return {in["x"].var(1, false), in["x"].std()}; }                           \
  PARITY_CASE(tag "/softmax") { return in["x"].softmax(-1); }                                       \
  PARITY_CASE(tag "/log-softmax") { return in["x"].log_softmax(0); }                                \
  PARITY_CASE(tag "/where") { return kd::where(in["c"], in["a"], in["b"]); }                        \
  PARITY_CASE(tag "/views-reshape-cat") { return kd::cat({in["a"].t().reshape({-1}), in["b"]}); }
LOWP_CASES("half")
LOWP_CASES("bfloat16")
#undef LOWP_CASES

#define MATMUL_CASES(tag)                                                                           \
  PARITY_CASE(tag "/matmul") { return in["a"].matmul(in["b"]); }                                    \
  PARITY_CASE(tag "/matmul-transposed-batched") { return in["a"].matmul(in["b"].transpose(-1, -2)); } \
  PARITY_CASE(tag "/matmul-grad") { return in["a"].matmul(in["b"]); }
MATMUL_CASES("half")
MATMUL_CASES("bfloat16")
#undef MATMUL_CASES
PARITY_CASE("bfloat16/mul-sum-grad") { return (in["a"] * in["b"]).sum(1); }
PARITY_CASE("bfloat16/exp-tanh-grad") { return kd::tanh(in["x"]).exp(); }
PARITY_CASE("half/add-mul-grad") { return in["a"] * in["b"] + in["a"]; }
