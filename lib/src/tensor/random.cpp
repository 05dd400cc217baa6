// Random numbers: one seedable generator (64-bit Mersenne Twister) turned into uniform, normal and
// integer samples with formulas that give the same numbers on every platform — which
// std::uniform_real_distribution / std::normal_distribution do not promise.
#include "kindling/tensor/random.hpp"

#include <cmath>
#include <limits>
#include <cstring>
#include <numbers>
#include <sstream>

#include "dispatch.hpp"
#include "internal.hpp"
#include "op_helpers.hpp"

namespace kindling {

// The stream: plain arithmetic on the engine, called only with the generator's lock held.
double Generator::Stream::uniform() {
  // The top 53 bits fill a double's mantissa exactly: k / 2^53 for k in [0, 2^53).
  return static_cast<double>(engine() >> 11) * 0x1.0p-53;
}

double Generator::Stream::normal() {
  // Box–Muller makes two independent normals from two uniforms; keep the second for next time.
  if (has_spare_normal) {
    has_spare_normal = false;
    return spare_normal;
  }
  const double u1 = 1.0 - uniform();  // in (0, 1]: log(u1) is finite
  const double u2 = uniform();
  const double r = std::sqrt(-2.0 * std::log(u1));
  const double theta = 2.0 * std::numbers::pi * u2;
  spare_normal = r * std::sin(theta);
  has_spare_normal = true;
  return r * std::cos(theta);
}

std::int64_t Generator::Stream::randint(std::int64_t low, std::int64_t high) {
  if (high <= low) {
    throw ValueError("randint: empty range [" + std::to_string(low) + ", " + std::to_string(high) +
                     "). Hint: high is exclusive and must be greater than low.");
  }
  // Rejection sampling: drop the few top values that would make `x % range` favour small numbers.
  const std::uint64_t range = static_cast<std::uint64_t>(high) - static_cast<std::uint64_t>(low);
  const std::uint64_t limit = std::numeric_limits<std::uint64_t>::max() - std::numeric_limits<std::uint64_t>::max() % range;
  std::uint64_t x;
  do {
    x = engine();
  } while (x >= limit);
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(low) + x % range);
}

// Each public call is one critical section (see the class comment).
Generator::Stream Generator::locked_copy() const {
  std::lock_guard<std::mutex> l(mutex_);
  return stream_;
}

Generator& Generator::operator=(const Generator& other) {
  if (this != &other) {
    Stream copy = other.locked_copy();  // never both locks at once: a = b and b = a cannot deadlock
    std::lock_guard<std::mutex> l(mutex_);
    stream_ = copy;
  }
  return *this;
}

void Generator::manual_seed(std::uint64_t seed) {
  std::lock_guard<std::mutex> l(mutex_);
  stream_.engine.seed(seed);
  stream_.seed = seed;
  stream_.has_spare_normal = false;
  stream_.spare_normal = 0;
}

std::uint64_t Generator::initial_seed() const {
  std::lock_guard<std::mutex> l(mutex_);
  return stream_.seed;
}

double Generator::uniform() { return lock().uniform(); }
double Generator::normal() { return lock().normal(); }
std::int64_t Generator::randint(std::int64_t low, std::int64_t high) { return lock().randint(low, high); }
std::uint64_t Generator::next_u64() { return lock().next_u64(); }

// Text format: "kindling-generator v1 <seed> <has_spare> <spare bits in hex> <engine state>".
// The engine's own operator<< writes its 312 words; the spare normal is stored bit-exactly.
std::string Generator::get_state() const {
  const Stream s = locked_copy();
  std::ostringstream os;
  std::uint64_t bits;
  static_assert(sizeof(bits) == sizeof(s.spare_normal));
  std::memcpy(&bits, &s.spare_normal, sizeof(bits));
  os << "kindling-generator v1 " << s.seed << ' ' << (s.has_spare_normal ? 1 : 0) << ' ' << std::hex << bits
     << std::dec << ' ' << s.engine;
  return os.str();
}

void Generator::set_state(const std::string& state) {
  std::istringstream is(state);
  std::string magic, version;
  std::uint64_t seed = 0, bits = 0;
  int spare = -1;
  is >> magic >> version >> seed >> spare >> std::hex >> bits >> std::dec;
  if (!is || magic != "kindling-generator" || version != "v1" || (spare != 0 && spare != 1)) {
    throw ValueError("Generator::set_state: not a state written by Generator::get_state() (expected it to start "
                     "with \"kindling-generator v1\"). Hint: pass the exact string get_state() returned.");
  }
  std::mt19937_64 engine;
  is >> engine;
  std::string rest;
  if (is.fail() || (is >> rest)) {
    throw ValueError("Generator::set_state: the engine state is truncated or has trailing data. Hint: pass the "
                     "exact string get_state() returned.");
  }
  Stream parsed{engine, seed, spare == 1, 0};
  std::memcpy(&parsed.spare_normal, &bits, sizeof(bits));
  std::lock_guard<std::mutex> l(mutex_);
  stream_ = parsed;
}

namespace {
// The generator a random op draws from, locked for the whole tensor: its numbers are a contiguous
// piece of the stream even when other threads draw too.
Generator::Draws lock(Generator* gen) { return (gen ? *gen : default_generator()).lock(); }

Tensor finish(Tensor t, const TensorOptions& options, const char* op) {
  if (options.requires_grad) {
    if (!t.is_floating_point()) {
      throw DTypeError(std::string(op) + ": only floating-point tensors can require gradients, but the dtype is " +
                       dtype_name(t.dtype()) + ".");
    }
    detail::set_requires_grad(*t.impl());
  }
  return options.device == kCPU ? t : t.to(options.device);
}
}  // namespace

Generator& default_generator() {
  static Generator gen(5489u);
  return gen;
}

void manual_seed(std::uint64_t seed) { default_generator().manual_seed(seed); }

Tensor rand(const Shape& shape, TensorOptions options, Generator* gen) {
  if (is_reduced_floating_point(options.dtype)) {  // made in float32, rounded once
    const TensorOptions wide{.dtype = kFloat32};
    return finish(detail::cast(rand(shape, wide, gen), options.dtype), options, "rand");
  }
  Tensor t = detail::make_tensor(shape, options.dtype);
  const std::int64_t n = t.numel();
  auto draws = lock(gen);
  detail::dispatch_floating(options.dtype, "rand", [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* p = t.data_ptr<T>();
    if constexpr (std::is_same_v<T, float>) {
      // 24 bits, not a rounded 53-bit double: rounding 0.99999999 to float would give 1.0, outside [0, 1).
      for (std::int64_t i = 0; i < n; ++i) p[i] = static_cast<float>(draws.next_u64() >> 40) * 0x1.0p-24f;
    } else {
      for (std::int64_t i = 0; i < n; ++i) p[i] = draws.uniform();
    }
  });
  return finish(t, options, "rand");
}

Tensor randn(const Shape& shape, TensorOptions options, Generator* gen) {
  if (is_reduced_floating_point(options.dtype)) {  // made in float32, rounded once
    const TensorOptions wide{.dtype = kFloat32};
    return finish(detail::cast(randn(shape, wide, gen), options.dtype), options, "randn");
  }
  Tensor t = detail::make_tensor(shape, options.dtype);
  const std::int64_t n = t.numel();
  auto draws = lock(gen);
  detail::dispatch_floating(options.dtype, "randn", [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* p = t.data_ptr<T>();
    for (std::int64_t i = 0; i < n; ++i) p[i] = static_cast<T>(draws.normal());
  });
  return finish(t, options, "randn");
}

Tensor randint(std::int64_t low, std::int64_t high, const Shape& shape, TensorOptions options, Generator* gen) {
  if (is_reduced_floating_point(options.dtype)) {  // made in float32, rounded once
    const TensorOptions wide{.dtype = kFloat32};
    return finish(detail::cast(randint(low, high, shape, wide, gen), options.dtype), options, "randint");
  }
  if (high <= low) {
    throw ValueError("randint: empty range [" + std::to_string(low) + ", " + std::to_string(high) +
                     "). Hint: high is exclusive and must be greater than low.");
  }
  // The values must fit the dtype (randint(0, 300) into uint8 would wrap around).
  const auto [lo, hi] = detail::dispatch(options.dtype, "randint", [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, bool>) return std::pair<double, double>{0, 1};
    else if constexpr (std::is_floating_point_v<T>) {
      return std::pair<double, double>{-std::ldexp(1.0, std::numeric_limits<T>::digits),
                                       std::ldexp(1.0, std::numeric_limits<T>::digits)};
    } else {
      return std::pair<double, double>{static_cast<double>(std::numeric_limits<T>::lowest()),
                                       static_cast<double>(std::numeric_limits<T>::max())};
    }
  });
  if (static_cast<double>(low) < lo || static_cast<double>(high - 1) > hi) {
    throw ValueError("randint: the range [" + std::to_string(low) + ", " + std::to_string(high) +
                     ") does not fit dtype " + dtype_name(options.dtype) + ". Hint: pick a wider dtype.");
  }
  Tensor t = detail::make_tensor(shape, options.dtype);
  const std::int64_t n = t.numel();
  auto draws = lock(gen);
  detail::dispatch(options.dtype, "randint", [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* p = t.data_ptr<T>();
    for (std::int64_t i = 0; i < n; ++i) p[i] = static_cast<T>(draws.randint(low, high));
  });
  return finish(t, options, "randint");
}

Tensor randperm(std::int64_t n, Generator* gen) {
  if (n < 0) throw ValueError("randperm: n must be non-negative, got " + std::to_string(n) + ".");
  Tensor t = detail::make_tensor({n}, kInt64);
  std::int64_t* p = t.data_ptr<std::int64_t>();
  for (std::int64_t i = 0; i < n; ++i) p[i] = i;
  auto draws = lock(gen);
  // Fisher–Yates: every permutation equally likely.
  for (std::int64_t i = n - 1; i > 0; --i) std::swap(p[i], p[draws.randint(0, i + 1)]);
  return t;
}

Tensor rand_like(const Tensor& other, Generator* gen) {
  detail::check_defined(other, "rand_like");
  return rand(other.shape(), {.dtype = other.dtype(), .device = other.device()}, gen);
}

Tensor randn_like(const Tensor& other, Generator* gen) {
  detail::check_defined(other, "randn_like");
  return randn(other.shape(), {.dtype = other.dtype(), .device = other.device()}, gen);
}

}  // namespace kindling
