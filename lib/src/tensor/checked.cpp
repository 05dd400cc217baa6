// Checked size arithmetic and float -> int conversions (see kindling/tensor/checked.hpp).
#include "kindling/tensor/checked.hpp"
#include "kindling/tensor/small_object_pool.hpp"

#include <cmath>
#include <cstdio>
#include <limits>

#include "internal.hpp"
#include "kindling/tensor/error.hpp"
#include "kindling/tensor/storage.hpp"

namespace kindling::checked {

std::int64_t numel(IntArrayRef shape, std::string_view op) {
  std::int64_t n = 1;
  bool overflow = false;
  for (auto s : shape) {
    if (s < 0) {
      throw ShapeError(std::string(op) + ": negative size in shape " + shape_str(shape) +
                       ". Hint: sizes must be 0 or more.");
    }
    overflow |= !mul(n, s, n);
  }
  // A zero anywhere makes the tensor empty, whatever the other sizes claim.
  for (auto s : shape)
    if (s == 0) return 0;
  if (overflow) {
    throw ShapeError(std::string(op) + ": shape " + shape_str(shape) +
                     " has more elements than an int64 can count (storage size calculation overflowed). "
                     "Hint: check the sizes; a corrupt file or a mistaken argument often claims such a shape.");
  }
  return n;
}

std::size_t storage_nbytes(const Shape& shape, DType dtype, std::string_view op) {
  const std::int64_t n = numel(shape, op);
  std::int64_t bytes = 0;
  if (!mul(n, static_cast<std::int64_t>(element_size(dtype)), bytes)) {
    throw ShapeError(std::string(op) + ": a " + dtype_name(dtype) + " tensor of shape " + shape_str(shape) + " (" +
                     std::to_string(n) + " elements) would need more bytes than memory can address "
                     "(storage size calculation overflowed).");
  }
  return static_cast<std::size_t>(bytes);
}

bool fits_int64(double v, std::int64_t lo, std::int64_t hi) {
  // 2^63 is exactly representable; every double below it converts without undefined behaviour.
  constexpr double two63 = 9223372036854775808.0;
  if (!std::isfinite(v) || v >= two63 || v < -two63) return false;
  const auto i = static_cast<std::int64_t>(v);
  return i >= lo && i <= hi;
}

std::int64_t to_int64(double v, std::string_view what, std::int64_t lo, std::int64_t hi) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  if (!fits_int64(v, lo, hi)) {
    throw ValueError(std::string(what) + " is " + buf + ", expected a whole number in [" + std::to_string(lo) +
                     ", " + std::to_string(hi) + "] (corrupt or hand-edited file?).");
  }
  if (v != std::trunc(v)) {
    throw ValueError(std::string(what) + " is " + buf + ", expected a whole number (not a fraction).");
  }
  return static_cast<std::int64_t>(v);
}

double finite(double v, std::string_view what) {
  if (!std::isfinite(v)) {
    throw ValueError(std::string(what) + " is " + (std::isnan(v) ? "NaN" : v > 0 ? "inf" : "-inf") +
                     ", expected a finite number (corrupt or hand-edited file?).");
  }
  return v;
}

std::string human_bytes(double bytes) {
  const char* units[] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  int u = 0;
  while (bytes >= 1024 && u < 6) bytes /= 1024, ++u;
  char buf[48];
  std::snprintf(buf, sizeof buf, u == 0 ? "%.0f %s" : "%.1f %s", bytes, units[u]);
  return buf;
}

}  // namespace kindling::checked

namespace kindling::detail {

std::shared_ptr<Storage> allocate_storage(const Shape& shape, DType dtype, Device device) {
  const std::size_t nbytes = checked::storage_nbytes(shape, dtype, "tensor storage");
  try {
    return make_pooled<Storage>(nbytes, device);
  } catch (const OutOfMemoryError& e) {
    throw OutOfMemoryError(std::string("cannot allocate a ") + dtype_name(dtype) + " tensor of shape " +
                           shape_str(shape) + " on " + device.str() + ": " + checked::human_bytes(double(nbytes)) +
                           " needed. " + e.what());
  } catch (const std::bad_alloc&) {  // a device allocator, or make_shared's own control block
    throw OutOfMemoryError(std::string("cannot allocate a ") + dtype_name(dtype) + " tensor of shape " +
                           shape_str(shape) + " on " + device.str() + ": " + checked::human_bytes(double(nbytes)) +
                           " needed, out of memory.");
  }
}

}  // namespace kindling::detail
