// ch04.ex1 — a random permutation: the order of a shuffled epoch.
//
// kindling::data::random_permutation (kindling/data/dataset.hpp): RandomSampler (every DataLoader with
// shuffle = true), SubsetRandomSampler and random_split draw their orders with it.
#include "kindling/data/dataset.hpp"

#include <numeric>
#include <string>
#include <utility>

#include "kindling/tensor/error.hpp"

namespace kindling::data {

std::vector<std::int64_t> random_permutation(std::int64_t n, Generator& gen) {
  // BEGIN SOLUTION ex1: 0..n-1, then Fisher-Yates from the back with gen.randint(0, i + 1)
  if (n < 0) throw ValueError("random_permutation: n must be non-negative, got " + std::to_string(n));
  std::vector<std::int64_t> perm(static_cast<std::size_t>(n));
  std::iota(perm.begin(), perm.end(), std::int64_t{0});
  // Fisher–Yates: position i swaps with a uniformly chosen position in [0, i].
  for (std::int64_t i = n - 1; i > 0; --i) {
    std::int64_t j = gen.randint(0, i + 1);
    std::swap(perm[static_cast<std::size_t>(i)], perm[static_cast<std::size_t>(j)]);
  }
  return perm;
  // END SOLUTION
}

}  // namespace kindling::data
