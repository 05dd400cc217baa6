// ONNX's Resize (and the older Upsample) for the importer, in Kindling ops (run_node hands both
// here: onnx_ops_tensor.cpp).
//
// Separable: along each resized axis, output[i] = sum_k coeff_k * input[tap_k] where the taps sit
// around x_orig (the output coordinate mapped back by coordinate_transformation_mode) and the
// coefficients are nearest (one tap), linear (two) or cubic (four, Keys' kernel with
// cubic_coeff_a). Taps past the edge read the edge pixel (exclude_outside: they get weight 0 and
// the rest renormalise). Each axis is one matmul with an [out, in] weight matrix, so the op is
// differentiable. The arithmetic is ONNX's reference implementation's (onnx/backend/test/case/
// node/resize.py).
#include <algorithm>
#include <cmath>
#include <limits>

#include "kindling/tensor/creation.hpp"
#include "kindling/tensor/ops.hpp"
#include "onnx_detail.hpp"

namespace kindling::onnx::detail {

std::vector<Tensor> run_resize(const OnnxModule::Impl& impl, const pb::NodeProto& node, const std::vector<Tensor>& in) {
  const Attrs a{node};
  const std::string& op = node.op_type();
  const std::int64_t opset = impl.opset;
  auto arg = [&](std::size_t i) -> const Tensor& { return required_input(node, in, i); };
  auto opt = [&](std::size_t i) { return optional_input(in, i); };
  const Tensor& x = arg(0);
  const std::int64_t r = static_cast<std::int64_t>(x.shape().size());
  Tensor roi, sc, sz;
  std::vector<double> scales(static_cast<std::size_t>(r), 1.0);
  if (op == "Upsample") {
    if (opset >= 9) sc = arg(1);
    else {
      auto f = a.find("scales");
      if (!f) fail(node_label(node) + ": attribute scales is missing");
      sc = kindling::tensor(std::vector<float>(f->floats().begin(), f->floats().end()), {f->floats_size()});
    }
  } else if (opset < 11) {
    sc = arg(1);
  } else {
    roi = opt(1), sc = opt(2), sz = opt(3);
  }
  std::vector<std::int64_t> sizes(static_cast<std::size_t>(r));
  if (sc.defined() && sc.numel() > 0) {
    if (sc.numel() != r) fail(node_label(node) + ": input scales must hold one value per dim");
    const Tensor s = sc.to(kFloat32).to(kFloat64).contiguous();
    for (std::int64_t d = 0; d < r; ++d) {
      scales[d] = s.data_ptr<double>()[d];
      if (!(scales[d] > 0 && scales[d] < double(1 << 20))) fail(node_label(node) + ": input scales holds " + std::to_string(scales[d]));
      sizes[d] = static_cast<std::int64_t>(std::floor(scales[d] * static_cast<double>(x.size(d))));
    }
  } else if (sz.defined() && sz.numel() > 0) {
    sizes = to_ints(sz);
    if (static_cast<std::int64_t>(sizes.size()) != r) fail(node_label(node) + ": input sizes must hold one value per dim");
    for (std::int64_t d = 0; d < r; ++d) {
      if (sizes[d] < 0 || sizes[d] > (std::int64_t{1} << 31)) fail(node_label(node) + ": input sizes holds " + std::to_string(sizes[d]));
      if (x.size(d) == 0) fail(node_label(node) + ": an input dim of size 0 cannot be resized");
      scales[d] = static_cast<double>(sizes[d]) / static_cast<double>(x.size(d));
    }
  } else {
    fail(node_label(node) + ": one of the inputs scales and sizes is required");
  }
  check_size(node, Shape(sizes.begin(), sizes.end()));
  const std::string mode = a.s("mode", "nearest");
  const std::string ctm = op == "Upsample" || opset < 11 ? std::string("asymmetric")
                                                          : a.s("coordinate_transformation_mode", "half_pixel");
  const std::string nearest = op == "Upsample" ? std::string("floor") : a.s("nearest_mode", "round_prefer_floor");
  const double A = a.f("cubic_coeff_a", -0.75f), extrapolation = a.f("extrapolation_value", 0.f);
  const bool exclude = a.i("exclude_outside", 0) != 0;
  if (mode != "nearest" && mode != "linear" && mode != "cubic" && mode != "bilinear")
    fail(node_label(node) + ": attribute mode " + mode + " is not supported");
  std::vector<double> roi_v;
  if (ctm == "tf_crop_and_resize") {
    if (!roi.defined() || roi.numel() != 2 * r) fail(node_label(node) + ": input roi must hold 2 values per dim");
    const Tensor rv = roi.to(kFloat64).contiguous();
    roi_v.assign(rv.data_ptr<double>(), rv.data_ptr<double>() + 2 * r);
  }
  Tensor y = is_floating_point(x.dtype()) ? x : x.to(kFloat64);
  for (std::int64_t d = 0; d < r; ++d) {
    const std::int64_t in = x.size(d), out = sizes[d];
    if (out == in && scales[d] == 1.0 && ctm != "tf_crop_and_resize") continue;  // every x_orig is i itself
    if (in == 0) fail(node_label(node) + ": an input dim of size 0 cannot be resized");
    if (static_cast<double>(out) * static_cast<double>(in) > double(1 << 26))
      fail(node_label(node) + ": resizing a dim of " + std::to_string(in) + " to " + std::to_string(out) +
           " is beyond this importer's [out, in] weight matrix (2^26 entries)");
    std::vector<double> weights(static_cast<std::size_t>(out * in), 0.0), outside(static_cast<std::size_t>(out), 0.0);
    const double out_w = scales[d] * static_cast<double>(in);  // the reference's output_width (may be fractional)
    for (std::int64_t i = 0; i < out; ++i) {
      const double xi = static_cast<double>(i);
      double xo = 0;
      if (ctm == "align_corners") xo = out_w == 1 ? 0.0 : xi * static_cast<double>(in - 1) / (out_w - 1);
      else if (ctm == "asymmetric") xo = xi / scales[d];
      else if (ctm == "pytorch_half_pixel") xo = out_w == 1 ? -0.5 : (xi + 0.5) / scales[d] - 0.5;
      else if (ctm == "half_pixel") xo = (xi + 0.5) / scales[d] - 0.5;
      else if (ctm == "tf_half_pixel_for_nn") xo = (xi + 0.5) / scales[d];
      else if (ctm == "tf_crop_and_resize") {
        const double lo = roi_v[d], hi = roi_v[d + r];
        xo = out_w == 1 ? (hi - lo) * static_cast<double>(in - 1) / 2 : xi * (hi - lo) * static_cast<double>(in - 1) / (out_w - 1);
        xo += lo * static_cast<double>(in - 1);
        if (xo < 0 || xo > static_cast<double>(in - 1)) {
          outside[i] = 1;  // extrapolation_value there
          continue;
        }
      } else {
        fail(node_label(node) + ": attribute coordinate_transformation_mode " + ctm + " is not supported");
      }
      // A NaN roi or scale gives no coordinate; one far outside reads the edge pixel like any tap
      // past the edge, so it is brought within a few pixels of the input (no huge integer casts).
      if (std::isnan(xo)) fail(node_label(node) + ": the input roi or scales give no coordinate (NaN)");
      xo = std::clamp(xo, -8.0, static_cast<double>(in) + 8.0);
      // The taps start at base + 1 - n/2 for n taps; ratio in (0, 1] (1 when xo is a whole number).
      const double fl = std::floor(xo);
      const bool whole = xo == fl;
      const auto base = static_cast<std::int64_t>(whole ? fl - 1 : fl);
      const double ratio = whole ? 1.0 : xo - fl;
      std::vector<double> c;
      if (mode == "nearest") {
        bool right = true;  // a whole xo is base + 1
        if (!whole) {
          if (nearest == "round_prefer_floor") right = ratio > 0.5;
          else if (nearest == "round_prefer_ceil") right = ratio >= 0.5;
          else if (nearest == "floor") right = false;
          else if (nearest == "ceil") right = true;
          else fail(node_label(node) + ": attribute nearest_mode " + nearest + " is not supported");
        }
        c = {right ? 0.0 : 1.0, right ? 1.0 : 0.0};
      } else if (mode == "linear" || mode == "bilinear") {
        c = {1 - ratio, ratio};
      } else {
        const double s = ratio + 1, t = 1 - ratio, u = t + 1;
        c = {((A * s - 5 * A) * s + 8 * A) * s - 4 * A, ((A + 2) * ratio - (A + 3)) * ratio * ratio + 1,
             ((A + 2) * t - (A + 3)) * t * t + 1, ((A * u - 5 * A) * u + 8 * A) * u - 4 * A};
      }
      const std::int64_t first = base + 1 - static_cast<std::int64_t>(c.size()) / 2;
      if (exclude) {
        double total = 0;
        for (std::size_t k = 0; k < c.size(); ++k) {
          const std::int64_t tap = first + static_cast<std::int64_t>(k);
          if (tap < 0 || tap >= in) c[k] = 0;
          total += c[k];
        }
        for (double& v : c) v /= total;
      }
      for (std::size_t k = 0; k < c.size(); ++k) {
        const std::int64_t tap = std::clamp<std::int64_t>(first + static_cast<std::int64_t>(k), 0, in - 1);
        weights[static_cast<std::size_t>(i * in + tap)] += c[k];
      }
    }
    // y: [..., in at d, ...] -> [..., out at d, ...] by one matmul along d (an axis grown before
    // another shrinks may pass through a larger shape than the output's: checked too)
    Shape next = y.shape();
    next[static_cast<std::size_t>(d)] = out;
    check_size(node, next);
    const Tensor w = kindling::tensor(weights, {out, in}).to(y.dtype());
    Tensor moved = matmul(y.transpose(d, r - 1), w.t());
    if (extrapolation != 0 && std::any_of(outside.begin(), outside.end(), [](double v) { return v != 0; }))
      moved = moved + kindling::tensor(outside, {out}).to(y.dtype()) * extrapolation;
    y = moved.transpose(d, r - 1);
  }
  return {is_floating_point(x.dtype()) ? y.contiguous() : y.round().to(x.dtype())};
}

}  // namespace kindling::onnx::detail
