// AutocastGuard's state rules: nesting and restoring, the cache of cast weights, bad dtypes.
// Which dtype each op runs in is compared with PyTorch in tests/parity/ch06_amp.*.
#include <catch2/catch.hpp>
#include <kindling/amp.hpp>

#include <cstdint>
#include <cstring>
#include <vector>

namespace kd = kindling;
namespace amp = kindling::amp;
namespace F = kindling::nn::functional;

TEST_CASE("autocast: guards nest and restore the previous state") {
  CHECK_FALSE(kd::is_autocast_enabled());
  {
    amp::AutocastGuard on;
    CHECK(kd::is_autocast_enabled());
    CHECK(kd::get_autocast_dtype() == kd::kBFloat16);
    {
      amp::AutocastGuard half({.dtype = kd::kHalf});
      CHECK(kd::get_autocast_dtype() == kd::kHalf);
      {
        amp::AutocastGuard off({.enabled = false});
        CHECK_FALSE(kd::is_autocast_enabled());
        CHECK(kd::ones({2, 2}).matmul(kd::ones({2, 2})).dtype() == kd::kFloat32);
      }
      CHECK(kd::ones({2, 2}).matmul(kd::ones({2, 2})).dtype() == kd::kHalf);
    }
    CHECK(kd::get_autocast_dtype() == kd::kBFloat16);
  }
  CHECK_FALSE(kd::is_autocast_enabled());
}

TEST_CASE("autocast: a weight is cast once per region, and the cache ends with the outermost guard") {
  kd::Tensor w = kd::randn({4, 3}).requires_grad_();
  const kd::Tensor x = kd::randn({2, 3});
  {
    amp::AutocastGuard outer;
    const kd::Tensor a = F::linear(x, w);
    CHECK(kd::detail::autocast_cache_size() == 1);  // w's bfloat16 copy; x is no weight
    {
      amp::AutocastGuard inner;
      const kd::Tensor b = F::linear(x, w);
      CHECK(kd::detail::autocast_cache_size() == 1);  // reused, not cast again
    }
    CHECK(kd::detail::autocast_cache_size() == 1);  // an inner guard leaves the cache alone
    (a.to(kd::kFloat32).sum() * 2).backward();
  }
  CHECK(kd::detail::autocast_cache_size() == 0);
  CHECK(w.grad().dtype() == kd::kFloat32);  // the weight's gradient is in the weight's dtype
  {
    amp::AutocastGuard no_cache({.cache_enabled = false});
    F::linear(x, w);
    CHECK(kd::detail::autocast_cache_size() == 0);
  }
  {
    kd::NoGradGuard no_grad;  // nothing to share a graph node with: no cache entry
    amp::AutocastGuard on;
    F::linear(x, w);
    CHECK(kd::detail::autocast_cache_size() == 0);
  }
}

TEST_CASE("autocast: only bfloat16 and float16 are autocast dtypes") {
  CHECK_THROWS_AS(amp::AutocastGuard({.dtype = kd::kFloat64}), kd::DTypeError);
  CHECK_FALSE(kd::is_autocast_enabled());
}

TEST_CASE("autocast: ReLU in float16 and bfloat16 equals the float32 round trip for every 16-bit pattern") {
  // x takes all 65,536 patterns (NaNs, infinities, signed zeros, subnormals).
  std::vector<std::uint16_t> xbits(65536);
  for (std::size_t i = 0; i < xbits.size(); ++i) xbits[i] = static_cast<std::uint16_t>(i);
  for (kd::DType dt : {kd::kFloat16, kd::kBFloat16}) {
    INFO(kd::dtype_name(dt));
    kd::Tensor x = kd::empty({65536}, {.dtype = dt});
    std::memcpy(x.raw_data_ptr(), xbits.data(), 65536 * 2);
    const kd::Tensor out = x.relu();  // the 16-bit select
    // The reference: widen (exact), relu in float32, round back.
    const kd::Tensor ref = x.to(kd::kFloat32).relu().to(dt);
    REQUIRE(out.dtype() == dt);
    std::vector<std::uint16_t> got(65536), want(65536);
    std::memcpy(got.data(), out.raw_data_ptr(), 65536 * 2);
    std::memcpy(want.data(), ref.raw_data_ptr(), 65536 * 2);
    for (std::size_t i = 0; i < got.size(); ++i) {
      INFO("x pattern " << i);
      REQUIRE(got[i] == want[i]);
    }
    // A view that is not contiguous takes the general path, with the same values.
    const kd::Tensor pairs = x.view({256, 256}).t();
    CHECK(kd::allclose(pairs.relu().to(kd::kFloat32), pairs.to(kd::kFloat32).relu().to(dt).to(kd::kFloat32), 0, 0,
                       /*equal_nan=*/true));
  }
}

TEST_CASE("autocast: ReLU's gradient in float16 and bfloat16 is where(y <= 0, 0, g) for every 16-bit pattern") {
  // PyTorch's threshold_backward: zero where y <= 0, so a NaN passes the gradient (where(y > 0, g, 0)
  // would stop it).
  // y takes all 65,536 patterns (NaNs, infinities, signed zeros, subnormals); g counts up.
  std::vector<std::uint16_t> ybits(65536), gbits(65536);
  for (std::size_t i = 0; i < ybits.size(); ++i) {
    ybits[i] = static_cast<std::uint16_t>(i);
    gbits[i] = static_cast<std::uint16_t>((i * 7919u) & 0x7BFFu);  // finite in both dtypes
  }
  for (kd::DType dt : {kd::kFloat16, kd::kBFloat16}) {
    INFO(kd::dtype_name(dt));
    kd::Tensor y = kd::empty({65536}, {.dtype = dt}), g = kd::empty({65536}, {.dtype = dt});
    std::memcpy(y.raw_data_ptr(), ybits.data(), 65536 * 2);
    std::memcpy(g.raw_data_ptr(), gbits.data(), 65536 * 2);
    // relu(y) == y wherever y > 0 or y is NaN, so the saved output has every pattern that matters.
    const kd::Tensor leaf = y.detach().requires_grad_();
    const kd::Tensor out = leaf.relu();
    out.backward(g);
    const kd::Tensor want = kd::where(out.detach() <= 0.0, kd::zeros({65536}, {.dtype = dt}), g);
    std::vector<std::uint16_t> got(65536), ref(65536);
    std::memcpy(got.data(), leaf.grad().raw_data_ptr(), 65536 * 2);
    std::memcpy(ref.data(), want.raw_data_ptr(), 65536 * 2);
    for (std::size_t i = 0; i < got.size(); ++i) {
      INFO("y pattern " << i);
      REQUIRE(got[i] == ref[i]);
    }
  }
}
