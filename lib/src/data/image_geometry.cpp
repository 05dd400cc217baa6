// Geometric image transforms: resize, crop, pad, flips, rotation — torchvision 0.14's tensor
// implementations, written as plain loops over [planes, H, W].
#include <algorithm>
#include <cmath>
#include <cstring>
#include <numbers>
#include <string>

#include "data/image_common.hpp"
#include "kindling/data/transforms_functional.hpp"

namespace kindling::data::transforms::functional {
using detail::as_planes;
using detail::compute_t;
using detail::dispatch_image;
using detail::new_image;

namespace {
// PyTorch's upsample index/weight computation for linear mode, align_corners=False:
// source = scale * (dst + 0.5) - 0.5, clamped at 0; scale = in / out. As in PyTorch's CPU kernel,
// the scale has the image's float type but the source index is computed in double (matching this
// detail is what makes uint8 results round like torchvision's).
template <class C>
void linear_weights(std::int64_t in, std::int64_t out, std::vector<std::int64_t>& i0, std::vector<std::int64_t>& i1,
                    std::vector<C>& l0, std::vector<C>& l1) {
  const C scale = static_cast<C>(in) / static_cast<C>(out);
  i0.resize(out), i1.resize(out), l0.resize(out), l1.resize(out);
  for (std::int64_t d = 0; d < out; ++d) {
    double src = static_cast<double>(scale) * (static_cast<double>(d) + 0.5) - 0.5;
    if (src < 0) src = 0;
    const auto lo = static_cast<std::int64_t>(src);
    const double lambda1 = std::min(src - static_cast<double>(lo), 1.0);
    i0[d] = lo;
    i1[d] = lo + (lo < in - 1 ? 1 : 0);
    l1[d] = static_cast<C>(lambda1);
    l0[d] = static_cast<C>(1.0 - lambda1);
  }
}
}  // namespace

Tensor resize(const Tensor& image, std::int64_t height, std::int64_t width) {
  if (height <= 0 || width <= 0) {
    throw ValueError("resize: the output size must be positive, got [" + std::to_string(height) + ", " +
                     std::to_string(width) + "]");
  }
  auto p = as_planes(image, "resize");
  Tensor out = new_image(p.lead, height, width, image.dtype());
  dispatch_image(image.dtype(), "resize", [&](auto tag) {
    using T = decltype(tag);
    using C = compute_t<T>;
    std::vector<std::int64_t> y0, y1, x0, x1;
    std::vector<C> wy0, wy1, wx0, wx1;
    linear_weights<C>(p.h, height, y0, y1, wy0, wy1);
    linear_weights<C>(p.w, width, x0, x1, wx0, wx1);
    const T* src = p.data.template data_ptr<T>();
    T* dst = out.template data_ptr<T>();
    for (std::int64_t n = 0; n < p.planes; ++n) {
      const T* s = src + n * p.h * p.w;
      T* d = dst + n * height * width;
      for (std::int64_t oy = 0; oy < height; ++oy) {
        const T* r0 = s + y0[oy] * p.w;
        const T* r1 = s + y1[oy] * p.w;
        for (std::int64_t ox = 0; ox < width; ++ox) {
          // Same association as PyTorch's separable kernel: rows first, then the two rows blended.
          C t0 = static_cast<C>(r0[x0[ox]]) * wx0[ox];
          t0 += static_cast<C>(r0[x1[ox]]) * wx1[ox];
          C t1 = static_cast<C>(r1[x0[ox]]) * wx0[ox];
          t1 += static_cast<C>(r1[x1[ox]]) * wx1[ox];
          C v = t0 * wy0[oy];
          v += t1 * wy1[oy];
          if constexpr (std::is_same_v<T, std::uint8_t>) {
            d[oy * width + ox] = static_cast<T>(std::nearbyint(v));  // torch.round: half to even
          } else {
            d[oy * width + ox] = v;
          }
        }
      }
    }
  });
  return out;
}

std::vector<std::int64_t> resized_size(std::int64_t height, std::int64_t width, std::int64_t size,
                                       std::int64_t max_size) {
  if (size <= 0) throw ValueError("Resize: size must be positive, got " + std::to_string(size));
  const std::int64_t shorter = std::min(height, width), longer = std::max(height, width);
  std::int64_t new_short = size;
  auto new_long = static_cast<std::int64_t>(static_cast<double>(size) * static_cast<double>(longer) /
                                            static_cast<double>(shorter));
  if (max_size > 0) {
    if (max_size <= size) {
      throw ValueError("Resize: max_size = " + std::to_string(max_size) +
                       " must be strictly greater than the requested size for the smaller edge = " +
                       std::to_string(size));
    }
    if (new_long > max_size) {
      new_short = static_cast<std::int64_t>(static_cast<double>(max_size) * static_cast<double>(new_short) /
                                            static_cast<double>(new_long));
      new_long = max_size;
    }
  }
  return width <= height ? std::vector<std::int64_t>{new_long, new_short}
                         : std::vector<std::int64_t>{new_short, new_long};
}

Tensor crop(const Tensor& image, std::int64_t top, std::int64_t left, std::int64_t height, std::int64_t width) {
  if (height <= 0 || width <= 0) {
    throw ValueError("crop: the crop size must be positive, got [" + std::to_string(height) + ", " +
                     std::to_string(width) + "]");
  }
  auto p = as_planes(image, "crop");
  Tensor out = new_image(p.lead, height, width, image.dtype());
  const std::size_t es = image.element_size();
  const auto* src = static_cast<const char*>(p.data.raw_data_ptr());
  auto* dst = static_cast<char*>(out.raw_data_ptr());
  std::memset(dst, 0, static_cast<std::size_t>(out.numel()) * es);
  // The part of the window that lies inside the image; the rest stays 0 (torchvision pads).
  const std::int64_t y_lo = std::max<std::int64_t>(0, -top), y_hi = std::min(height, p.h - top);
  const std::int64_t x_lo = std::max<std::int64_t>(0, -left), x_hi = std::min(width, p.w - left);
  if (y_lo >= y_hi || x_lo >= x_hi) return out;
  const std::size_t row_bytes = static_cast<std::size_t>(x_hi - x_lo) * es;
  for (std::int64_t n = 0; n < p.planes; ++n) {
    for (std::int64_t y = y_lo; y < y_hi; ++y) {
      std::memcpy(dst + ((n * height + y) * width + x_lo) * es,
                  src + ((n * p.h + top + y) * p.w + left + x_lo) * es, row_bytes);
    }
  }
  return out;
}

Tensor center_crop(const Tensor& image, std::int64_t height, std::int64_t width) {
  if (image.dim() < 2) return crop(image, 0, 0, height, width);  // crop() reports the error
  Tensor img = image;
  std::int64_t h = image.size(-2), w = image.size(-1);
  if (width > w || height > h) {  // pad first, exactly as torchvision does
    const std::int64_t l = width > w ? (width - w) / 2 : 0, t = height > h ? (height - h) / 2 : 0;
    const std::int64_t r = width > w ? (width - w + 1) / 2 : 0, b = height > h ? (height - h + 1) / 2 : 0;
    img = pad(image, l, t, r, b, 0);
    h = img.size(-2), w = img.size(-1);
    if (width == w && height == h) return img;
  }
  // int(round((h - th) / 2.0)): Python rounds halves to even, as nearbyint does.
  const auto top = static_cast<std::int64_t>(std::nearbyint(static_cast<double>(h - height) / 2.0));
  const auto left = static_cast<std::int64_t>(std::nearbyint(static_cast<double>(w - width) / 2.0));
  return crop(img, top, left, height, width);
}

Tensor pad(const Tensor& image, std::int64_t left, std::int64_t top, std::int64_t right, std::int64_t bottom,
           double fill) {
  if (left < 0 || top < 0 || right < 0 || bottom < 0) {
    throw ValueError("pad: padding must be non-negative (got left " + std::to_string(left) + ", top " +
                     std::to_string(top) + ", right " + std::to_string(right) + ", bottom " +
                     std::to_string(bottom) + ")");
  }
  auto p = as_planes(image, "pad");
  Tensor out = new_image(p.lead, p.h + top + bottom, p.w + left + right, image.dtype());
  out.fill_(fill);
  // out[..., top:top+h, left:left+w] = image
  dispatch_image(image.dtype(), "pad", [&](auto tag) {
    using T = decltype(tag);
    const T* s = p.data.template data_ptr<T>();
    T* d = out.template data_ptr<T>();
    const std::int64_t oh = p.h + top + bottom, ow = p.w + left + right;
    for (std::int64_t n = 0; n < p.planes; ++n)
      for (std::int64_t y = 0; y < p.h; ++y)
        std::memcpy(d + (n * oh + top + y) * ow + left, s + (n * p.h + y) * p.w, static_cast<std::size_t>(p.w) * sizeof(T));
  });
  return out;
}

// hflip is chapter 4's exercise 3 (data/pieces.hpp): in the answer file.

Tensor vflip(const Tensor& image) {
  auto p = as_planes(image, "vflip");
  Tensor out = new_image(p.lead, p.h, p.w, image.dtype());
  const std::size_t row = static_cast<std::size_t>(p.w) * image.element_size();
  const auto* s = static_cast<const char*>(p.data.raw_data_ptr());
  auto* d = static_cast<char*>(out.raw_data_ptr());
  for (std::int64_t n = 0; n < p.planes; ++n)
    for (std::int64_t y = 0; y < p.h; ++y)
      std::memcpy(d + (n * p.h + y) * row, s + (n * p.h + (p.h - 1 - y)) * row, row);
  return out;
}

Tensor rotate(const Tensor& image, double angle, double fill) {
  auto p = as_planes(image, "rotate");
  Tensor out = new_image(p.lead, p.h, p.w, image.dtype());
  // torchvision: the inverse affine matrix for angle -angle about the centre, in double…
  const double rot = -angle * (std::numbers::pi / 180.0);
  const double m[6] = {std::cos(rot), std::sin(rot), 0.0, -std::sin(rot), std::cos(rot), 0.0};
  dispatch_image(image.dtype(), "rotate", [&](auto tag) {
    using T = decltype(tag);
    using C = compute_t<T>;
    // …then theta in the image's float type, divided by half the size (affine_grid's rescale).
    const C hw = C(0.5) * static_cast<C>(p.w), hh = C(0.5) * static_cast<C>(p.h);
    const C ax = static_cast<C>(m[0]) / hw, bx = static_cast<C>(m[1]) / hw, cx = static_cast<C>(m[2]) / hw;
    const C ay = static_cast<C>(m[3]) / hh, by = static_cast<C>(m[4]) / hh, cy = static_cast<C>(m[5]) / hh;
    const C W = static_cast<C>(p.w), H = static_cast<C>(p.h);
    const T* s = p.data.template data_ptr<T>();
    T* d = out.template data_ptr<T>();
    const T fill_value = static_cast<T>(fill);
    for (std::int64_t oy = 0; oy < p.h; ++oy) {
      const C y = static_cast<C>(oy) - H * C(0.5) + C(0.5);  // pixel centre, origin at the image centre
      for (std::int64_t ox = 0; ox < p.w; ++ox) {
        const C x = static_cast<C>(ox) - W * C(0.5) + C(0.5);
        const C gx = x * ax + y * bx + cx, gy = x * ay + y * by + cy;  // normalised [-1, 1] grid
        // grid_sample (align_corners=False) unnormalises, then nearest rounds half to even.
        const auto ix = static_cast<std::int64_t>(std::nearbyint(((gx + C(1)) * W - C(1)) / C(2)));
        const auto iy = static_cast<std::int64_t>(std::nearbyint(((gy + C(1)) * H - C(1)) / C(2)));
        const bool inside = ix >= 0 && ix < p.w && iy >= 0 && iy < p.h;
        for (std::int64_t n = 0; n < p.planes; ++n) {
          d[(n * p.h + oy) * p.w + ox] = inside ? s[(n * p.h + iy) * p.w + ix] : fill_value;
        }
      }
    }
  });
  return out;
}

}  // namespace kindling::data::transforms::functional
