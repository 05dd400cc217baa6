#pragma once
/// @file
/// Tokenizers: text to token ids and back. CharTokenizer gives each character
/// (Unicode code point, read from UTF-8) of a corpus an id; ByteBPE starts from
/// the 256 byte values and learns merges of the most frequent adjacent pair
/// (byte-level byte-pair encoding, as GPT-2's tokenizer, without its
/// pre-splitting of words), so it encodes any input, any language, and decodes
/// it back exactly.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace kindling::text {

class CharTokenizer {
public:
  /// The vocabulary: the distinct characters of `corpus` (valid UTF-8), sorted
  /// by code point.
  explicit CharTokenizer(const std::string &corpus);
  /// Throws kd::ValueError naming a character that is not in the vocabulary, or
  /// invalid UTF-8.
  std::vector<std::int64_t> encode(const std::string &text) const;
  std::string decode(const std::vector<std::int64_t> &ids) const;
  std::int64_t vocab_size() const {
    return static_cast<std::int64_t>(chars_.size());
  }

private:
  std::vector<std::string> chars_; // id -> the character's UTF-8 bytes, sorted
};

class ByteBPE {
public:
  /// 256 tokens, one per byte, no merges.
  ByteBPE() = default;
  /// Learns vocab_size - 256 merges on the bytes of `corpus`: each time the
  /// most frequent adjacent pair (ties: the smallest pair of ids) becomes a new
  /// token. Stops early when no pair occurs twice.
  static ByteBPE train(const std::string &corpus, std::int64_t vocab_size);
  std::vector<std::int64_t> encode(const std::string &text) const;
  /// The bytes of the tokens, concatenated: decode(encode(s)) == s for every
  /// byte string s.
  std::string decode(const std::vector<std::int64_t> &ids) const;
  std::int64_t vocab_size() const {
    return 256 + static_cast<std::int64_t>(merges_.size());
  }
  /// The merges in the order learned: merges()[i] made token 256 + i.
  const std::vector<std::pair<std::int64_t, std::int64_t>> &merges() const {
    return merges_;
  }
  /// A text file: a header line, then one merge "a b" per line (written
  /// atomically).
  void save(const std::string &path) const;
  /// Reads save()'s file; every line is checked (ids must name tokens that
  /// exist before the merge).
  static ByteBPE load(const std::string &path);

private:
  void add_merge(std::int64_t a, std::int64_t b);
  std::vector<std::pair<std::int64_t, std::int64_t>> merges_;
  std::vector<std::string>
      bytes_; // token 256 + i -> its bytes (tokens < 256 are one byte)
};

} // namespace kindling::text
