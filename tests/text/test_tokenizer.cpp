// Tokenizers: exact round trips on any input, merges learned, saved and loaded.
#include <catch2/catch.hpp>
#include <kindling/text.hpp>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <string>

namespace kd = kindling;

namespace {
// Tang poems (Li Bai's 静夜思) and English: the corpus mixes 3-byte and 1-byte
// characters.
const std::string kCorpus =
    "床前明月光，疑是地上霜。举头望明月，低头思故乡。\n"
    "the cat sat on the mat; the cat ate the rat. the end.\n"
    "床前明月光，疑是地上霜。举头望明月，低头思故乡。\n"
    "the cat sat on the mat; the cat ate the rat. the end.\n";
} // namespace

TEST_CASE("tokenizer: CharTokenizer round trips UTF-8 text and names unknown "
          "characters") {
  kd::text::CharTokenizer tok(kCorpus);
  auto ids = tok.encode(kCorpus);
  CHECK(ids.size() <
        kCorpus.size()); // a Chinese character is one id, three bytes
  CHECK(tok.decode(ids) == kCorpus);
  CHECK(tok.encode("明月").size() == 2);
  CHECK_THROWS_AS(tok.encode("明天"),
                  kd::ValueError); // 天 is not in the corpus
  CHECK_THROWS_AS(tok.encode("\xE6\x98"),
                  kd::ValueError); // a truncated character
  CHECK_THROWS_AS(tok.decode({tok.vocab_size()}), kd::IndexError);
}

TEST_CASE("tokenizer: ByteBPE learns merges that shorten the corpus and round "
          "trips any bytes") {
  auto bpe = kd::text::ByteBPE::train(kCorpus, 300);
  REQUIRE(bpe.merges().size() > 10);
  CHECK(bpe.vocab_size() ==
        256 + static_cast<std::int64_t>(bpe.merges().size()));
  auto ids = bpe.encode(kCorpus);
  CHECK(ids.size() * 2 <
        kCorpus.size()); // 44 merges more than halve the repeated lines
  CHECK(bpe.decode(ids) == kCorpus);
  // Text it never saw, Chinese included, and random bytes (not even UTF-8).
  for (const std::string& s : {std::string("明月照大江，the rat sat."),
                              std::string(""), std::string("\0\xff", 2)}) {
    CHECK(bpe.decode(bpe.encode(s)) == s);
  }
  std::mt19937 rng(11);
  for (int trial = 0; trial < 20; ++trial) {
    std::string s(static_cast<std::size_t>(rng() % 200), '\0');
    for (auto &c : s)
      c = static_cast<char>(rng() & 0xFF);
    CHECK(bpe.decode(bpe.encode(s)) == s);
  }
  // The first merge is the corpus's most frequent adjacent byte pair.
  std::map<std::pair<int, int>, int> counts;
  for (std::size_t i = 0; i + 1 < kCorpus.size(); ++i) {
    ++counts[{static_cast<unsigned char>(kCorpus[i]),
              static_cast<unsigned char>(kCorpus[i + 1])}];
  }
  int best = 0;
  for (auto &[p, n] : counts)
    best = std::max(best, n);
  auto [a, b] = bpe.merges().front();
  CHECK(counts[{static_cast<int>(a), static_cast<int>(b)}] == best);
}

TEST_CASE("tokenizer: ByteBPE saves and loads its merges, and refuses damaged "
          "files") {
  auto bpe = kd::text::ByteBPE::train(kCorpus, 280);
  const auto dir = std::filesystem::temp_directory_path() /
                   ("kd_bpe_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "merges.txt").string();
  bpe.save(path);
  auto back = kd::text::ByteBPE::load(path);
  CHECK(back.merges() == bpe.merges());
  CHECK(back.encode(kCorpus) == bpe.encode(kCorpus));
  {
    std::ofstream(path)
        << "kindling byte-bpe v1 2\n97 98\n999 1\n"; // 999 does not exist yet
  }
  CHECK_THROWS_AS(kd::text::ByteBPE::load(path), kd::IOError);
  { std::ofstream(path) << "not a merges file\n"; }
  CHECK_THROWS_AS(kd::text::ByteBPE::load(path), kd::IOError);
  CHECK_THROWS_AS(kd::text::ByteBPE::load((dir / "missing.txt").string()),
                  kd::IOError);
  std::filesystem::remove_all(dir);
}
