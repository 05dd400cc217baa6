// ex2 — Fisher–Yates shuffling, and a Sampler that a DataLoader can use.
#include <numeric>
#include <utility>

#include "ch04/data_exercises.hpp"

namespace kindling::exercises::ch04 {

std::vector<std::int64_t> shuffled_indices(std::int64_t n, Generator& gen) {
  // BEGIN SOLUTION ex2: start from 0..n-1; for i = n-1 down to 1 swap i with gen.randint(0, i + 1)
  if (n < 0) throw ValueError("shuffled_indices: n must be non-negative, got " + std::to_string(n));
  std::vector<std::int64_t> perm(static_cast<std::size_t>(n));
  std::iota(perm.begin(), perm.end(), std::int64_t{0});
  // After step i, position i holds a uniformly chosen element of the ones not placed yet:
  // every one of the n! orders is equally likely.
  for (std::int64_t i = n - 1; i > 0; --i) {
    const std::int64_t j = gen.randint(0, i + 1);  // uniform in [0, i]
    std::swap(perm[static_cast<std::size_t>(i)], perm[static_cast<std::size_t>(j)]);
  }
  return perm;
  // END SOLUTION
}

ShuffleSampler::ShuffleSampler(std::int64_t n) {
  // BEGIN SOLUTION ex2: check n, keep it
  if (n < 0) throw ValueError("ShuffleSampler: the dataset size must be non-negative, got " + std::to_string(n));
  n_ = n;
  // END SOLUTION
}

std::vector<std::int64_t> ShuffleSampler::indices(Generator& gen) const {
  // BEGIN SOLUTION ex2: one fresh permutation per epoch, from the generator passed in
  return shuffled_indices(n_, gen);
  // END SOLUTION
}

}  // namespace kindling::exercises::ch04
