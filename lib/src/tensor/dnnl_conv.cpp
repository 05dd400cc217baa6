// A float32 convolution's forward on oneDNN's convolution primitive.
//
// Why: im2col + GEMM (lib/src/nn/conv2d.cpp) copies every input value kh·kw times into a column
// matrix, and the GEMM then reads it back; for ResNet-18 at 224x224 that copying and the GEMM's own
// packing were ~15 % of a forward. oneDNN's direct convolution reads the input in place, in a
// "blocked" layout of 8 channels at a time (nChw8c with AVX2) that its kernels vectorise over. It
// is what LibTorch runs for the same layers (mkldnn_convolution, oneDNN 2.6 as here).
//
// The tensors stay NCHW: the input is reordered into the primitive's layout, the output back, and
// the weights each call (they may have changed since the last one), as LibTorch does for plain
// tensors. A primitive is made once per shape (per thread) and reused; its buffers come from
// Kindling's caching allocator, so a forward allocates no fresh pages.
#include "dnnl_conv.hpp"

#ifdef KINDLING_HAVE_DNNL
#include <cstdlib>
#include <cstring>
#include <map>
#include <oneapi/dnnl/dnnl.hpp>
#include <tuple>
#include <unordered_map>

#include "gemm.hpp"
#include "internal.hpp"
#include "kindling/tensor/tensor.hpp"
#endif

namespace kindling::detail {

#ifdef KINDLING_HAVE_DNNL
namespace {
namespace dn = dnnl;
using tag = dn::memory::format_tag;
using dt = dn::memory::data_type;

dn::engine& cpu_engine() {
  static dn::engine engine(dn::engine::kind::cpu, 0);
  return engine;
}

/// The primitive for one shape, the reorders between NCHW and its layouts (null where the
/// layouts are the same), and the memory objects it runs on (pointed at each call's data).
struct Conv {
  dn::convolution_forward prim;
  dn::convolution_forward::primitive_desc pd;
  dn::memory::desc src_plain, wei_plain, dst_plain, bias;  // bias: [o], when the convolution has one
  bool reorder_src = false, reorder_wei = false, reorder_dst = false;
  dn::reorder to_src, to_wei, from_dst;
  std::size_t src_bytes = 0, wei_bytes = 0, dst_bytes = 0;
};

/// KINDLING_CONV=im2col turns this path off (to compare the two).
bool enabled() {
  static const bool on = [] {
    const char* v = std::getenv("KINDLING_CONV");
    return !(v && std::strcmp(v, "im2col") == 0);
  }();
  return on;
}

Conv make_conv(const Conv2dShape& s, bool bias) {
  Conv c;
  const dn::memory::dims src{s.n, s.c, s.h, s.w}, dst{s.n, s.o, s.oh, s.ow};
  const dn::memory::dims wei = s.groups == 1 ? dn::memory::dims{s.o, s.c, s.kh, s.kw}
                                             : dn::memory::dims{s.groups, s.o / s.groups, s.c / s.groups, s.kh, s.kw};
  c.src_plain = dn::memory::desc(src, dt::f32, tag::nchw);
  c.dst_plain = dn::memory::desc(dst, dt::f32, tag::nchw);
  c.wei_plain = dn::memory::desc(wei, dt::f32, s.groups == 1 ? tag::oihw : tag::goihw);
  // PyTorch pads both sides by p and floors the window count; oneDNN wants the right padding that
  // gives the same output size (it may be less than p, never negative here).
  const std::int64_t pr_h = (s.oh - 1) * s.sh + (s.kh - 1) * s.dh + 1 - s.h - s.ph;
  const std::int64_t pr_w = (s.ow - 1) * s.sw + (s.kw - 1) * s.dw + 1 - s.w - s.pw;
  if (pr_h < 0 || pr_w < 0) throw dn::error(dnnl_invalid_arguments, "negative right padding");
  if (bias) c.bias = dn::memory::desc({s.o}, dt::f32, tag::x);
  const dn::convolution_forward::desc d(
      dn::prop_kind::forward_inference, dn::algorithm::convolution_direct,
      dn::memory::desc(src, dt::f32, tag::any), dn::memory::desc(wei, dt::f32, tag::any),
      c.bias, dn::memory::desc(dst, dt::f32, tag::any), {s.sh, s.sw},
      {s.dh - 1, s.dw - 1}, {s.ph, s.pw}, {pr_h, pr_w});
  c.pd = dn::convolution_forward::primitive_desc(d, cpu_engine());
  // oneDNN's reference kernels are plain loops: slower than im2col + GEMM.
  if (std::string(c.pd.impl_info_str()).rfind("ref", 0) == 0) throw dn::error(dnnl_unimplemented, "ref");
  c.prim = dn::convolution_forward(c.pd);
  c.reorder_src = c.pd.src_desc() != c.src_plain;
  c.reorder_wei = c.pd.weights_desc() != c.wei_plain;
  c.reorder_dst = c.pd.dst_desc() != c.dst_plain;
  if (c.reorder_src) c.to_src = dn::reorder(dn::reorder::primitive_desc(cpu_engine(), c.src_plain, cpu_engine(), c.pd.src_desc()));
  if (c.reorder_wei) c.to_wei = dn::reorder(dn::reorder::primitive_desc(cpu_engine(), c.wei_plain, cpu_engine(), c.pd.weights_desc()));
  if (c.reorder_dst) c.from_dst = dn::reorder(dn::reorder::primitive_desc(cpu_engine(), c.pd.dst_desc(), cpu_engine(), c.dst_plain));
  c.src_bytes = c.pd.src_desc().get_size();
  c.wei_bytes = c.pd.weights_desc().get_size();
  c.dst_bytes = c.pd.dst_desc().get_size();
  return c;
}

/// Scratch for a reordered tensor: float32 storage from Kindling's allocator.
Tensor scratch(std::size_t bytes) {
  return make_tensor({static_cast<std::int64_t>((bytes + sizeof(float) - 1) / sizeof(float))}, kFloat32);
}

}  // namespace
#endif

bool dnnl_conv2d_forward(const float* x, const float* w, const float* b, float* out, const Conv2dShape& s) {
#ifdef KINDLING_HAVE_DNNL
  if (!enabled()) return false;
  using Key = std::tuple<std::int64_t, std::int64_t, std::int64_t, std::int64_t, std::int64_t, std::int64_t,
                         std::int64_t, std::int64_t, std::int64_t, std::int64_t, std::int64_t, std::int64_t,
                         std::int64_t, std::int64_t, bool>;
  // Per thread, like the bfloat16 GEMM's primitives (bf16_gemm.cpp); a shape oneDNN declined is
  // remembered too (an empty entry), so it is not asked again.
  thread_local std::map<Key, std::unique_ptr<Conv>> cache;
  thread_local dn::stream stream(cpu_engine());
  const Key key{s.n, s.c, s.h, s.w, s.o, s.kh, s.kw, s.sh, s.sw, s.ph, s.pw, s.dh, s.dw, s.groups, b != nullptr};
  auto it = cache.find(key);
  if (it == cache.end()) {
    if (cache.size() >= 256) cache.clear();  // a program of many shapes: start over
    std::unique_ptr<Conv> made;
    try {
      made = std::make_unique<Conv>(make_conv(s, b != nullptr));
    } catch (const dn::error&) {
      made = nullptr;
    }
    it = cache.emplace(key, std::move(made)).first;
  }
  if (!it->second) return false;
  Conv& c = *it->second;
  const double macs = static_cast<double>(s.n * s.o * s.oh * s.ow) * static_cast<double>(s.c / s.groups * s.kh * s.kw);
  gemm_threads(macs, true);
  dn::engine& eng = cpu_engine();
  Tensor src_buf, wei_buf, dst_buf;
  try {
    // oneDNN takes non-const pointers but only reads the sources.
    dn::memory src_user(c.src_plain, eng, const_cast<float*>(x)), wei_user(c.wei_plain, eng, const_cast<float*>(w));
    dn::memory dst_user(c.dst_plain, eng, out);
    dn::memory src = src_user, wei = wei_user, dst = dst_user;
    if (c.reorder_src) {
      src_buf = scratch(c.src_bytes);
      src = dn::memory(c.pd.src_desc(), eng, src_buf.data_ptr<float>());
      c.to_src.execute(stream, src_user, src);
    }
    if (c.reorder_wei) {
      wei_buf = scratch(c.wei_bytes);
      wei = dn::memory(c.pd.weights_desc(), eng, wei_buf.data_ptr<float>());
      c.to_wei.execute(stream, wei_user, wei);
    }
    if (c.reorder_dst) {
      dst_buf = scratch(c.dst_bytes);
      dst = dn::memory(c.pd.dst_desc(), eng, dst_buf.data_ptr<float>());
    }
    std::unordered_map<int, dn::memory> args{{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, wei}, {DNNL_ARG_DST, dst}};
    if (b) args.emplace(DNNL_ARG_BIAS, dn::memory(c.bias, eng, const_cast<float*>(b)));
    c.prim.execute(stream, args);
    if (c.reorder_dst) c.from_dst.execute(stream, dst, dst_user);
    stream.wait();
  } catch (const dn::error&) {
    return false;  // nothing the caller relies on was written: it computes the whole output itself
  }
  return true;
#else
  (void)x, (void)w, (void)b, (void)out, (void)s;
  return false;
#endif
}

}  // namespace kindling::detail
