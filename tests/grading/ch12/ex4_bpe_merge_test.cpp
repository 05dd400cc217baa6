// ch12.ex4 — detail::most_frequent_pair and merge_pair on their own, then through ByteBPE::train and
// encode, against a plain-Python byte-pair encoding with the same rules.
#include "ch12_grading.hpp"

#include <map>
#include <utility>

using namespace ch12_grading;

TEST_CASE("BPE: the most frequent pair, overlapping runs counted, ties to the smallest", "[ch12][ex4][pts=6]") {
  for (int i = 0; i < 12; ++i) {
    const std::string name = "ids" + std::to_string(i);
    const detail::PairCount p = detail::most_frequent_pair(ints_of(name));
    grading::expect("most_frequent_pair(" + name + ")", std::vector<std::int64_t>{p.first, p.second, p.count});
  }
}

TEST_CASE("BPE: merge_pair, left to right, a match takes both ids", "[ch12][ex4][pts=6]") {
  for (int i = 0; i < 12; ++i) {
    const std::string name = "ids" + std::to_string(i);
    const auto ids = ints_of(name);
    // The pair to merge: the most frequent one (found by the reference rule, not your ex4 first half).
    std::int64_t a = 5, b = 5;
    if (ids.size() > 1) {
      std::map<std::pair<std::int64_t, std::int64_t>, std::int64_t> counts;
      for (std::size_t j = 0; j + 1 < ids.size(); ++j) ++counts[{ids[j], ids[j + 1]}];
      std::int64_t best = 0;
      for (const auto& [pair, n] : counts) {
        if (n > best) best = n, a = pair.first, b = pair.second;
      }
    }
    grading::expect("merge_pair(" + name + ", (" + std::to_string(a) + ", " + std::to_string(b) + "), 99)",
                    detail::merge_pair(ids, a, b, 99));
  }
}

TEST_CASE("BPE: train on a text and encode another, as a reference BPE does", "[ch12][ex4][pts=8]") {
  const std::string corpus = grading::input_text("corpus"), probe = grading::input_text("probe");
  const auto bpe = kd::text::ByteBPE::train(corpus, grading::input("vocab_size").item<std::int64_t>());
  std::vector<std::int64_t> merges;
  for (const auto& [a, b] : bpe.merges()) merges.insert(merges.end(), {a, b});
  grading::expect("merges", merges);
  const auto ids = bpe.encode(probe);
  grading::expect("encode(probe)", ids);
  grading::expect("decode(encode(probe)) == probe", bpe.decode(ids) == probe);
}
