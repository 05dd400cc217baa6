#pragma once
/// @file
/// StateDict: PyTorch's `OrderedDict[str, Tensor]` — names to tensors, in insertion order.
/// `model.state_dict()` makes one, `kd::save(sd, path)` writes it, `kd::load(path)` reads one back.
#include <cstddef>
#include <initializer_list>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "kindling/tensor/tensor.hpp"

namespace kindling {

/// An insertion-ordered map from names ("fc1.weight") to tensors.
class StateDict {
 public:
  using Item = std::pair<std::string, Tensor>;

  StateDict() = default;
  StateDict(std::initializer_list<Item> items) {
    for (const auto& [k, v] : items) insert(k, v);
  }

  /// Adds or replaces `key` (a replaced key keeps its position, like an OrderedDict).
  void insert(const std::string& key, Tensor value) {
    auto it = index_.find(key);
    if (it != index_.end()) {
      items_[it->second].second = std::move(value);
      return;
    }
    index_.emplace(key, items_.size());
    items_.emplace_back(key, std::move(value));
  }
  bool contains(const std::string& key) const { return index_.count(key) != 0; }
  /// The tensor stored under `key`; throws kd::IndexError naming the key when there is none.
  const Tensor& at(const std::string& key) const;
  Tensor& at(const std::string& key);
  /// Python's `sd[key]` (read-only form throws like at(); this one inserts an undefined tensor).
  Tensor& operator[](const std::string& key) {
    if (!contains(key)) insert(key, Tensor());
    return at(key);
  }
  /// Removes `key` if present; returns whether it was.
  bool erase(const std::string& key);

  std::size_t size() const { return items_.size(); }
  bool empty() const { return items_.empty(); }
  std::vector<std::string> keys() const {
    std::vector<std::string> k;
    k.reserve(items_.size());
    for (const auto& item : items_) k.push_back(item.first);
    return k;
  }
  auto begin() const { return items_.begin(); }
  auto end() const { return items_.end(); }
  auto begin() { return items_.begin(); }
  auto end() { return items_.end(); }

 private:
  std::vector<Item> items_;
  std::unordered_map<std::string, std::size_t> index_;
};

}  // namespace kindling

namespace kindling::nn {
using kindling::StateDict;
}
