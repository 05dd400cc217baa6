// Two tokenizers on the fortunes corpus: one token per character, and a byte-level BPE
// learned on the first 100 kB. What each makes of a sentence, how many tokens the
// held-out text takes, and a round trip through text the BPE never saw.
// book: timeout 300
#include <numeric>

#include "common.hpp"

namespace {
// A token's bytes, printable: the space shown as '_' and a newline as '\n'.
std::string show(const std::string& s) {
  std::string out;
  for (const char c : s)
    out += c == ' ' ? std::string("_") : c == '\n' ? "\\n" : std::string(1, c);
  return out;
}
}  // namespace

int main() {
  const std::string text = fortunes_corpus();
  const std::string held_out = text.substr(text.size() * 9 / 10);
  // [snippet: char]
  kd::text::CharTokenizer chars(text);
  std::vector<std::int64_t> ids = chars.encode("Attention!");
  // [end]
  std::printf("characters: a vocabulary of %lld; \"Attention!\" is %zu tokens:",
              static_cast<long long>(chars.vocab_size()), ids.size());
  for (const std::int64_t id : ids) std::printf(" %lld", static_cast<long long>(id));
  std::printf("\n");
  // [snippet: bpe]
  const double t0 = now();
  kd::text::ByteBPE bpe = kd::text::ByteBPE::train(text.substr(0, 100000), 256 + 200);
  // [end]
  std::printf("BPE: 200 merges learned from 100 kB in %.1f s\n", now() - t0);
  std::printf("the first ten merges:");
  for (std::int64_t i = 256; i < 266; ++i)
    std::printf(" %s", show(bpe.decode({i})).c_str());
  std::printf("\nthe last five:");
  for (std::int64_t i = 451; i < 456; ++i)
    std::printf(" %s", show(bpe.decode({i})).c_str());
  std::printf("\n");
  std::vector<std::int64_t> pieces = bpe.encode("Attention is all you need.");
  std::printf("\"Attention is all you need.\" is %zu tokens:", pieces.size());
  for (const std::int64_t id : pieces)
    std::printf(" [%s]", show(bpe.decode({id})).c_str());
  std::printf("\n");
  const std::size_t n_bpe = bpe.encode(held_out).size();
  std::printf(
      "the held-out %zu bytes: %zu character tokens, %zu BPE tokens "
      "(%.2f bytes per token)\n",
      held_out.size(), chars.encode(held_out).size(), n_bpe,
      static_cast<double>(held_out.size()) / static_cast<double>(n_bpe));
  // [snippet: round-trip]
  const std::string poem = "床前明月光，疑是地上霜。";  // Li Bai, in UTF-8
  std::vector<std::int64_t> poem_ids = bpe.encode(poem);
  const bool same = bpe.decode(poem_ids) == poem;
  // [end]
  std::printf(
      "a line of Chinese: %zu bytes -> %zu tokens -> decoded back exactly: %s\n",
      poem.size(), poem_ids.size(), same ? "yes" : "no");
  try {
    chars.encode(poem);
  } catch (const kd::Error& e) {
    std::printf("the character tokenizer refuses it: %s\n", e.what());
  }
  bpe.save("ch12_bpe.txt");
  const auto again = kd::text::ByteBPE::load("ch12_bpe.txt");
  std::printf(
      "saved and loaded: %zu merges, the same encoding: %s\n", again.merges().size(),
      again.encode(held_out.substr(0, 2000)) == bpe.encode(held_out.substr(0, 2000))
          ? "yes"
          : "no");
}
