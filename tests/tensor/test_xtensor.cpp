// xtensor interop: from_xarray and to_xarray copy, adapt shares memory.
#include <kindling/xtensor.hpp>  // first: the opt-in header must compile on its own

#include <catch2/catch.hpp>
#include <kindling/tensor.hpp>
#include <xtensor/xview.hpp>

namespace kd = kindling;

TEST_CASE("xtensor: from_xarray copies values, shape and dtype") {
  xt::xarray<float> a = {{1.5f, 2.f, 3.f}, {4.f, 5.f, 6.f}};
  kd::Tensor t = kd::from_xarray(a);
  CHECK(t.dtype() == kd::kFloat32);
  CHECK(t.shape() == kd::Shape{2, 3});
  CHECK(t.to_vector<float>() == std::vector<float>(a.begin(), a.end()));
  a(0, 0) = 100;
  CHECK(t.to_vector<float>()[0] == 1.5f);  // a copy
  CHECK(kd::from_xarray(xt::xarray<double>{1.0, 2.0}).dtype() == kd::kFloat64);
  xt::xarray<std::int64_t> col = xt::xarray<std::int64_t>::from_shape({2, 1});
  CHECK(kd::from_xarray(col).shape() == kd::Shape{2, 1});
  CHECK(kd::from_xarray(xt::xarray<bool>{true, false}).dtype() == kd::kBool);
  // Any expression: a transposed view is evaluated in row-major order.
  xt::xarray<double> b = {{1, 2, 3}, {4, 5, 6}};
  kd::Tensor bt = kd::from_xarray(xt::transpose(b));
  CHECK(bt.shape() == kd::Shape{3, 2});
  CHECK(bt.to_vector<double>() == std::vector<double>{1, 4, 2, 5, 3, 6});
  // 0-d
  xt::xarray<float> s = 2.5f;
  CHECK(kd::from_xarray(s).dim() == static_cast<std::int64_t>(s.dimension()));
}

TEST_CASE("xtensor: adapt shares memory both ways") {
  xt::xarray<double> a = {{1, 2, 3}, {4, 5, 6}};
  kd::Tensor t = kd::adapt(a);
  CHECK(t.data_ptr<double>() == a.data());
  CHECK(t.shape() == kd::Shape{2, 3});
  a(1, 2) = 60;  // change the xarray: the tensor sees it
  CHECK(t.to_vector<double>()[5] == 60);
  t.select(0, 0).fill_(-1);  // change the tensor: the xarray sees it
  CHECK(a(0, 0) == -1);
  CHECK(a(0, 2) == -1);
  CHECK(a(1, 0) == 4);
  // Column-major xtensor containers keep their strides.
  xt::xtensor<float, 2, xt::layout_type::column_major> c = {{1, 2}, {3, 4}, {5, 6}};
  kd::Tensor ct = kd::adapt(c);
  CHECK(ct.strides() == kd::Strides{1, 3});
  CHECK(ct.to_vector<float>() == std::vector<float>{1, 2, 3, 4, 5, 6});
  c(2, 1) = 0;
  CHECK(ct.to_vector<float>()[5] == 0);
  // Size-1 dims (xtensor gives them stride 0) are fine.
  xt::xarray<float> one = xt::zeros<float>({1, 4});
  kd::Tensor ot = kd::adapt(one);
  ot.select(0, 0).select(0, 3).fill_(9);
  CHECK(one(0, 3) == 9);
}

TEST_CASE("xtensor: to_xarray copies (and converts)") {
  kd::Tensor t = kd::arange(6).reshape({2, 3});
  xt::xarray<std::int64_t> a = kd::to_xarray<std::int64_t>(t);
  CHECK(a.shape()[0] == 2);
  CHECK(a.shape()[1] == 3);
  CHECK(std::vector<std::int64_t>(a.begin(), a.end()) == t.to_vector<std::int64_t>());
  a(0, 0) = 99;
  CHECK(t.to_vector<std::int64_t>()[0] == 0);  // a copy
  // Non-contiguous tensors come out in logical (row-major) order, converted to the asked type.
  xt::xarray<double> d = kd::to_xarray<double>(t.t());
  CHECK(d.shape()[0] == 3);
  CHECK(d(2, 1) == 5.0);
  CHECK(d(0, 1) == 3.0);
  // Round trip.
  kd::Tensor back = kd::from_xarray(kd::to_xarray<float>(t));
  CHECK(back.to_vector<float>() == t.to_vector<float>());
}
