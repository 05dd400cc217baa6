// ch12.ex4 — a byte-pair-encoding merge step: count the adjacent pairs, and replace the most
// frequent one by a new token. Repeated, this learns a vocabulary of frequent pieces of words
// from raw bytes, so any text (any language) still encodes.
//
// text::detail::most_frequent_pair and merge_pair (kindling/text/pieces.hpp): ByteBPE::train calls
// both once per new token (and stops when no pair occurs twice); ByteBPE::encode calls merge_pair to
// apply the learned merges in order.
#include "kindling/text/pieces.hpp"

#include <map>
#include <utility>

namespace kindling::text::detail {

PairCount most_frequent_pair(const std::vector<std::int64_t>& ids) {
  // BEGIN SOLUTION ex4: count every adjacent pair; the largest count wins, ties the smallest pair
  std::map<std::pair<std::int64_t, std::int64_t>, std::int64_t> counts;  // ordered by pair
  for (std::size_t i = 0; i + 1 < ids.size(); ++i) ++counts[{ids[i], ids[i + 1]}];
  PairCount best;
  for (const auto& [pair, n] : counts) {
    if (n > best.count) best = {pair.first, pair.second, n};  // strictly more: ties keep the smaller
  }
  return best;
  // END SOLUTION
}

std::vector<std::int64_t> merge_pair(const std::vector<std::int64_t>& ids, std::int64_t first,
                                     std::int64_t second, std::int64_t new_id) {
  // BEGIN SOLUTION ex4: left to right; a match takes both ids
  std::vector<std::int64_t> out;
  out.reserve(ids.size());
  for (std::size_t i = 0; i < ids.size(); ++i) {
    if (i + 1 < ids.size() && ids[i] == first && ids[i + 1] == second) {
      out.push_back(new_id);
      ++i;  // the pair's second id is consumed too
    } else {
      out.push_back(ids[i]);
    }
  }
  return out;
  // END SOLUTION
}

}  // namespace kindling::text::detail
