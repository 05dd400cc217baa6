// Character-level and byte-level BPE tokenizers.
#include "kindling/text/tokenizer.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <sstream>

#include "kindling/tensor/error.hpp"
#include "tensor/file_io.hpp"
#include "kindling/text/pieces.hpp"

namespace kindling::text {
namespace {

// The UTF-8 characters of s, each as its bytes; throws on invalid UTF-8 (a
// stray continuation byte, a truncated sequence, an overlong or surrogate
// form).
std::vector<std::string> utf8_chars(const std::string &s, const char *who) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    std::size_t n = c < 0x80           ? 1
                    : (c >> 5) == 0x6  ? 2
                    : (c >> 4) == 0xE  ? 3
                    : (c >> 3) == 0x1E ? 4
                                       : 0;
    bool ok = n != 0 && i + n <= s.size() && !(n == 2 && c < 0xC2) &&
              !(n == 4 && c > 0xF4);
    for (std::size_t j = 1; ok && j < n; ++j)
      ok = (static_cast<unsigned char>(s[i + j]) & 0xC0) == 0x80;
    if (ok && n == 3) {
      const auto c1 = static_cast<unsigned char>(s[i + 1]);
      ok = !(c == 0xE0 && c1 < 0xA0) && !(c == 0xED && c1 >= 0xA0);
    }
    if (ok && n == 4) {
      const auto c1 = static_cast<unsigned char>(s[i + 1]);
      ok = !(c == 0xF0 && c1 < 0x90) && !(c == 0xF4 && c1 >= 0x90);
    }
    if (!ok) {
      throw ValueError(
          std::string(who) + ": invalid UTF-8 at byte " + std::to_string(i) +
          ". Hint: ByteBPE encodes any bytes; CharTokenizer needs text.");
    }
    out.push_back(s.substr(i, n));
    i += n;
  }
  return out;
}

} // namespace

CharTokenizer::CharTokenizer(const std::string &corpus) {
  auto chars = utf8_chars(corpus, "CharTokenizer");
  std::set<std::string> distinct(
      chars.begin(), chars.end()); // byte order of UTF-8 = code point order
  chars_.assign(distinct.begin(), distinct.end());
}

std::vector<std::int64_t> CharTokenizer::encode(const std::string &text) const {
  std::vector<std::int64_t> ids;
  for (const auto &c : utf8_chars(text, "CharTokenizer.encode")) {
    auto it = std::lower_bound(chars_.begin(), chars_.end(), c);
    if (it == chars_.end() || *it != c) {
      throw ValueError("CharTokenizer.encode: the character '" + c +
                       "' is not in the vocabulary (" +
                       std::to_string(chars_.size()) +
                       " characters of the training corpus)");
    }
    ids.push_back(it - chars_.begin());
  }
  return ids;
}

std::string CharTokenizer::decode(const std::vector<std::int64_t> &ids) const {
  std::string s;
  for (auto id : ids) {
    if (id < 0 || id >= vocab_size()) {
      throw IndexError("CharTokenizer.decode: id " + std::to_string(id) +
                       " is outside [0, " + std::to_string(vocab_size()) + ")");
    }
    s += chars_[static_cast<std::size_t>(id)];
  }
  return s;
}

void ByteBPE::add_merge(std::int64_t a, std::int64_t b) {
  auto bytes_of = [&](std::int64_t t) {
    return t < 256 ? std::string(1, static_cast<char>(t))
                   : bytes_[static_cast<std::size_t>(t - 256)];
  };
  bytes_.push_back(bytes_of(a) + bytes_of(b));
  merges_.emplace_back(a, b);
}

ByteBPE ByteBPE::train(const std::string &corpus, std::int64_t vocab_size) {
  if (vocab_size < 256)
    throw ValueError(
        "ByteBPE.train: vocab_size must be at least 256 (the bytes)");
  ByteBPE bpe;
  std::vector<std::int64_t> ids(corpus.begin(), corpus.end());
  for (auto &id : ids)
    id = static_cast<unsigned char>(id);
  while (bpe.vocab_size() < vocab_size) {
    // The most frequent adjacent pair becomes the next token (exercise 4).
    const detail::PairCount best = detail::most_frequent_pair(ids);
    if (best.count < 2)
      break; // no pair occurs twice: a merge would not shorten anything
    if (best.first < 0 || best.second < 0 || best.first >= bpe.vocab_size() ||
        best.second >= bpe.vocab_size()) {
      throw ValueError("ByteBPE.train: most_frequent_pair returned (" +
                       std::to_string(best.first) + ", " +
                       std::to_string(best.second) +
                       "), not a pair of existing tokens (exercise ch12.ex4)");
    }
    const std::int64_t id = bpe.vocab_size();
    bpe.add_merge(best.first, best.second);
    std::vector<std::int64_t> next =
        detail::merge_pair(ids, best.first, best.second, id);
    if (next.size() >= ids.size()) {
      throw ValueError("ByteBPE.train: merge_pair of a pair that occurs " +
                       std::to_string(best.count) +
                       " times did not shorten the ids (exercise ch12.ex4)");
    }
    ids.swap(next);
  }
  return bpe;
}

std::vector<std::int64_t> ByteBPE::encode(const std::string &text) const {
  std::vector<std::int64_t> ids(text.begin(), text.end());
  for (auto &id : ids)
    id = static_cast<unsigned char>(id);
  std::map<std::pair<std::int64_t, std::int64_t>, std::int64_t> rank;
  for (std::size_t i = 0; i < merges_.size(); ++i)
    rank[merges_[i]] = static_cast<std::int64_t>(i);
  // Apply merges in the order they were learned: each round, the
  // earliest-learned pair present.
  while (ids.size() >= 2) {
    std::int64_t best = -1;
    for (std::size_t i = 0; i + 1 < ids.size(); ++i) {
      auto it = rank.find({ids[i], ids[i + 1]});
      if (it != rank.end() && (best < 0 || it->second < best))
        best = it->second;
    }
    if (best < 0)
      break;
    const auto [a, b] = merges_[static_cast<std::size_t>(best)];
    std::vector<std::int64_t> next = detail::merge_pair(ids, a, b, 256 + best);
    if (next.size() >= ids.size()) { // the pair is present: a merge must shorten
      throw ValueError("ByteBPE.encode: merge_pair of a pair that occurs did "
                       "not shorten the ids (exercise ch12.ex4)");
    }
    ids.swap(next);
  }
  return ids;
}

std::string ByteBPE::decode(const std::vector<std::int64_t> &ids) const {
  std::string s;
  for (auto id : ids) {
    if (id < 0 || id >= vocab_size()) {
      throw IndexError("ByteBPE.decode: id " + std::to_string(id) +
                       " is outside [0, " + std::to_string(vocab_size()) + ")");
    }
    if (id < 256)
      s += static_cast<char>(id);
    else
      s += bytes_[static_cast<std::size_t>(id - 256)];
  }
  return s;
}

void ByteBPE::save(const std::string &path) const {
  std::string out =
      "kindling byte-bpe v1 " + std::to_string(merges_.size()) + "\n";
  for (const auto &[a, b] : merges_)
    out += std::to_string(a) + " " + std::to_string(b) + "\n";
  kindling::detail::write_file_atomically(path, out, "ByteBPE.save");
}

ByteBPE ByteBPE::load(const std::string &path) {
  const std::string text = kindling::detail::read_file(path, 64u << 20, "ByteBPE.load");
  std::istringstream in(text);
  std::string magic1, magic2, version;
  long long n = -1;
  if (!(in >> magic1 >> magic2 >> version >> n) || magic1 != "kindling" ||
      magic2 != "byte-bpe" || version != "v1" || n < 0 || n > (1 << 24)) {
    throw IOError("ByteBPE.load: " + path +
                  ": not a kindling byte-bpe v1 file (first line)");
  }
  ByteBPE bpe;
  for (long long i = 0; i < n; ++i) {
    long long a = -1, b = -1;
    if (!(in >> a >> b) || a < 0 || b < 0 || a >= bpe.vocab_size() ||
        b >= bpe.vocab_size()) {
      throw IOError("ByteBPE.load: " + path + ": merge " + std::to_string(i) +
                    " is missing or names a token that does not exist yet");
    }
    bpe.add_merge(a, b);
  }
  std::string extra;
  if (in >> extra)
    throw IOError("ByteBPE.load: " + path + ": text after the last merge");
  return bpe;
}

} // namespace kindling::text
