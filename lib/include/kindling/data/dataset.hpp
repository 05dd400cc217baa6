#pragma once
/// @file
/// Datasets: anything with `size()` and `get(index)` — the C++ spelling of Python's `__len__` and
/// `__getitem__`. A DataLoader asks a dataset for samples one index at a time, from several
/// threads at once, so `get` must be `const` and must not modify shared state.
#include <concepts>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "kindling/tensor/error.hpp"
#include "kindling/tensor/random.hpp"
#include "kindling/tensor/tensor.hpp"

namespace kindling::data {

/// The default sample: an input and its target (an image and its label). Works with structured
/// bindings: `auto [image, label] = dataset.get(0);`.
struct Example {
  Tensor data;    ///< e.g. [1, 28, 28] float32 after ToTensor
  Tensor target;  ///< e.g. a 0-d int64 class label
};

/// What the DataLoader needs from a dataset: `size()` (how many samples) and a const
/// `get(index)` for 0 <= index < size().
template <class D>
concept Dataset = requires(const D& d, std::int64_t i) {
  { d.size() } -> std::convertible_to<std::int64_t>;
  d.get(i);
};

/// The type of one sample of dataset type D (Example for the built-in datasets).
template <class D>
using sample_t = std::remove_cvref_t<decltype(std::declval<const D&>().get(std::int64_t{0}))>;

/// An optional base class with virtual size()/get(), for code that wants to hold datasets of
/// different types behind one pointer (ConcatDataset of a CSV and an in-memory dataset, ...).
/// The built-in datasets satisfy the Dataset concept without it.
template <class Sample = Example>
class DatasetBase {
 public:
  using sample_type = Sample;
  virtual ~DatasetBase() = default;
  virtual std::int64_t size() const = 0;
  virtual Sample get(std::int64_t index) const = 0;
};

/// Throws IndexError unless 0 <= index < size ("<what>: index 12 is out of range for a dataset
/// of size 10").
void check_index(std::int64_t index, std::int64_t size, const char* what);

/// torch.utils.data.TensorDataset: samples are the rows of tensors that share their first
/// dimension. `get(i)` returns views (no copy): {data[i], targets[i]}.
class TensorDataset {
 public:
  /// data: [N, ...], targets: [N, ...] (e.g. int64 [N] labels). Throws ShapeError if N differs.
  TensorDataset(Tensor data, Tensor targets);
  std::int64_t size() const { return data_.size(0); }
  Example get(std::int64_t index) const;
  const Tensor& data() const { return data_; }
  const Tensor& targets() const { return targets_; }

 private:
  Tensor data_, targets_;
};

/// torch.utils.data.Subset: the samples of `dataset` at `indices`, in that order. Holds the dataset
/// by shared pointer; the constructor taking a const reference copies it (cheap for the built-in
/// datasets: they hold tensor handles and file lists).
template <Dataset D>
class Subset {
 public:
  Subset(std::shared_ptr<const D> dataset, std::vector<std::int64_t> indices)
      : dataset_(std::move(dataset)), indices_(std::move(indices)) {
    for (std::int64_t i : indices_) check_index(i, dataset_->size(), "Subset");
  }
  Subset(const D& dataset, std::vector<std::int64_t> indices)
      : Subset(std::make_shared<const D>(dataset), std::move(indices)) {}
  std::int64_t size() const { return static_cast<std::int64_t>(indices_.size()); }
  auto get(std::int64_t index) const {
    check_index(index, size(), "Subset");
    return dataset_->get(indices_[static_cast<std::size_t>(index)]);
  }
  const std::vector<std::int64_t>& indices() const { return indices_; }
  const D& dataset() const { return *dataset_; }

 private:
  std::shared_ptr<const D> dataset_;
  std::vector<std::int64_t> indices_;
};

/// A random permutation of 0..n-1 drawn from `gen` (Fisher–Yates, one randint per element).
std::vector<std::int64_t> random_permutation(std::int64_t n, Generator& gen);

/// torch.utils.data.random_split: non-overlapping random subsets with the given lengths (which
/// must add up to dataset.size()). Pass a seeded Generator for a reproducible split:
/// `Generator g(42); auto [train, val] = ...` (the default generator otherwise).
template <Dataset D>
std::vector<Subset<D>> random_split(const D& dataset, const std::vector<std::int64_t>& lengths,
                                    Generator* generator = nullptr) {
  std::int64_t total = 0;
  for (std::int64_t len : lengths) {
    if (len < 0) throw ValueError("random_split: lengths must be non-negative, got " + std::to_string(len));
    total += len;
  }
  if (total != dataset.size()) {
    throw ValueError("random_split: the lengths add up to " + std::to_string(total) +
                     " but the dataset has " + std::to_string(dataset.size()) +
                     " samples. Hint: make the last length dataset.size() minus the others.");
  }
  auto shared = std::make_shared<const D>(dataset);
  std::vector<std::int64_t> perm =
      random_permutation(total, generator ? *generator : default_generator());
  std::vector<Subset<D>> out;
  std::int64_t start = 0;
  for (std::int64_t len : lengths) {
    out.emplace_back(shared, std::vector<std::int64_t>(perm.begin() + start, perm.begin() + start + len));
    start += len;
  }
  return out;
}

/// torch.utils.data.ConcatDataset: the samples of several datasets of the same type, one after
/// the other. (Hold different dataset types behind DatasetBase<Example> pointers to mix them.)
template <Dataset D>
class ConcatDataset {
 public:
  ConcatDataset(std::initializer_list<D> datasets) : ConcatDataset(std::vector<D>(datasets)) {}
  explicit ConcatDataset(std::vector<D> datasets) : datasets_(std::move(datasets)) {
    if (datasets_.empty())  // PyTorch: "datasets should not be an empty iterable"
      throw ValueError("ConcatDataset: the list of datasets is empty. Hint: pass at least one dataset");
    std::int64_t total = 0;
    for (const D& d : datasets_) {
      total += static_cast<std::int64_t>(d.size());
      ends_.push_back(total);
    }
  }
  std::int64_t size() const { return ends_.empty() ? 0 : ends_.back(); }
  auto get(std::int64_t index) const {
    check_index(index, size(), "ConcatDataset");
    std::size_t k = 0;
    while (ends_[k] <= index) ++k;  // few datasets: a linear scan beats a binary search
    const std::int64_t start = k == 0 ? 0 : ends_[k - 1];
    return datasets_[k].get(index - start);
  }

 private:
  std::vector<D> datasets_;
  std::vector<std::int64_t> ends_;  // cumulative sizes
};

template <class D>
ConcatDataset(std::initializer_list<D>) -> ConcatDataset<D>;

/// Adapts a pointer to a DatasetBase to the Dataset concept (so ConcatDataset can mix types).
template <class Sample = Example>
class AnyDataset {
 public:
  template <class P>
    requires std::derived_from<P, DatasetBase<Sample>>
  AnyDataset(std::shared_ptr<P> d) : d_(std::move(d)) {}
  std::int64_t size() const { return d_->size(); }
  Sample get(std::int64_t index) const { return d_->get(index); }

 private:
  std::shared_ptr<const DatasetBase<Sample>> d_;
};

}  // namespace kindling::data
