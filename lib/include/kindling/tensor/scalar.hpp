#pragma once
/// @file
/// A number passed to a tensor op (`x + 2`, `x * 0.5`). Like PyTorch's Scalar it remembers whether it
/// was written as an integer or a floating-point number, because that changes type promotion:
/// `int64_tensor + 2` stays int64, `int64_tensor + 2.5` becomes float32.
#include <cstdint>
#include <type_traits>

namespace kindling {

class Scalar {
 public:
  enum class Kind { Bool, Integral, Floating };

  Scalar(bool v) : kind_(Kind::Bool), i_(v), d_(v) {}
  template <class T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>, int> = 0>
  Scalar(T v) : kind_(Kind::Integral), i_(static_cast<std::int64_t>(v)), d_(static_cast<double>(v)) {}
  template <class T, std::enable_if_t<std::is_floating_point_v<T>, int> = 0>
  Scalar(T v) : kind_(Kind::Floating), i_(saturate(static_cast<double>(v))), d_(static_cast<double>(v)) {}

  Kind kind() const { return kind_; }
  bool is_floating_point() const { return kind_ == Kind::Floating; }
  bool is_integral() const { return kind_ == Kind::Integral; }
  bool is_bool() const { return kind_ == Kind::Bool; }
  double to_double() const { return d_; }
  std::int64_t to_int() const { return i_; }

  /// The value converted to T (exact for integers written as integers).
  template <class T> T to() const {
    if constexpr (std::is_floating_point_v<T>) return static_cast<T>(d_);
    else if constexpr (std::is_same_v<T, bool>) return kind_ == Kind::Floating ? d_ != 0.0 : i_ != 0;
    else return kind_ == Kind::Floating ? static_cast<T>(saturate(d_)) : static_cast<T>(i_);
  }

  /// d truncated to int64, saturating at the ends and NaN -> 0: casting 1e19 or NaN straight to an
  /// integer is undefined behaviour in C++, so a huge float argument must never reach one.
  static std::int64_t saturate(double d) {
    if (!(d == d)) return 0;                                         // NaN
    if (d >= 9223372036854775807.0) return INT64_MAX;                // 2^63 and above
    if (d <= -9223372036854775808.0) return INT64_MIN;
    return static_cast<std::int64_t>(d);
  }

 private:
  Kind kind_;
  std::int64_t i_;
  double d_;
};

}  // namespace kindling
