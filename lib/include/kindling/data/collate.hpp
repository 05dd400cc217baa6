#pragma once
/// @file
/// Collation: turning a list of samples into one batch. The default stacks tensors along a new
/// first dimension — B images [1, 28, 28] become [B, 1, 28, 28], B 0-d int64 labels become [B] —
/// and recurses into Examples, pairs and tuples, like torch.utils.data.default_collate.
#include <cstdint>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "kindling/data/dataset.hpp"
#include "kindling/tensor/tensor.hpp"

namespace kindling::data {

/// Stacks same-shaped, same-dtype tensors into a new [B, ...] tensor: one allocation for the whole
/// batch and one copy per sample straight into its slot (the DataLoader's hot path).
/// Throws ShapeError naming the first sample whose shape or dtype differs.
Tensor collate_tensors(const std::vector<Tensor>& samples);

/// Numbers become a 1-D tensor: integers int64 [B], floating point float64 [B], bools bool [B]
/// (like PyTorch's default_collate).
Tensor collate_numbers(const std::vector<std::int64_t>& values);
Tensor collate_numbers(const std::vector<double>& values);
Tensor collate_numbers(const std::vector<bool>& values);

/// The DataLoader's default collate_fn.
struct DefaultCollate {
  Tensor operator()(std::vector<Tensor>&& samples) const { return collate_tensors(samples); }

  Example operator()(std::vector<Example>&& samples) const {
    std::vector<Tensor> data, target;
    data.reserve(samples.size());
    target.reserve(samples.size());
    for (auto& s : samples) {
      data.push_back(std::move(s.data));
      target.push_back(std::move(s.target));
    }
    return Example{collate_tensors(data), collate_tensors(target)};
  }

  template <class T>
    requires std::is_arithmetic_v<T>
  Tensor operator()(std::vector<T>&& samples) const {
    if constexpr (std::is_same_v<T, bool>) {
      return collate_numbers(samples);
    } else {
      using Wide = std::conditional_t<std::is_integral_v<T>, std::int64_t, double>;
      return collate_numbers(std::vector<Wide>(samples.begin(), samples.end()));
    }
  }

  /// pairs and tuples: each field collated on its own.
  template <class... Ts>
  auto operator()(std::vector<std::tuple<Ts...>>&& samples) const {
    return collate_fields<Ts...>(samples, std::index_sequence_for<Ts...>{});
  }
  template <class A, class B>
  auto operator()(std::vector<std::pair<A, B>>&& samples) const {
    std::vector<A> a;
    std::vector<B> b;
    for (auto& s : samples) {
      a.push_back(std::move(s.first));
      b.push_back(std::move(s.second));
    }
    return std::make_pair((*this)(std::move(a)), (*this)(std::move(b)));
  }

 private:
  template <class... Ts, std::size_t... I>
  auto collate_fields(std::vector<std::tuple<Ts...>>& samples, std::index_sequence<I...>) const {
    return std::make_tuple(collate_field<I>(samples)...);
  }
  template <std::size_t I, class... Ts>
  auto collate_field(std::vector<std::tuple<Ts...>>& samples) const {
    using F = std::tuple_element_t<I, std::tuple<Ts...>>;
    std::vector<F> field;
    field.reserve(samples.size());
    for (auto& s : samples) field.push_back(std::move(std::get<I>(s)));
    return (*this)(std::move(field));
  }
};

}  // namespace kindling::data
