#pragma once
/// @file
/// SmallVector: a std::vector that keeps its first N elements inside the object itself.
///
/// Why a tensor library needs one: almost every tensor has at most a handful of dimensions, yet a
/// `std::vector<int64_t>` shape costs a heap allocation, and so do its strides. An autograd chain of
/// tiny ops creates a tensor, a node and a few gradients per op; with vectors for every shape, edge
/// list and gradient list, most of its time went into malloc. Keeping small arrays inline removes
/// those allocations (PyTorch does the same with c10::SmallVector<int64_t, 5> for sizes and strides).
/// Past N elements it moves to the heap and behaves like any vector.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <iterator>
#include <memory>
#include <new>
#include <stdexcept>
#include <type_traits>
#include <utility>
#include <vector>

namespace kindling {

template <class T, std::size_t N>
class SmallVector {
  static_assert(N > 0, "SmallVector needs an inline capacity of at least one element");

 public:
  using value_type = T;
  using size_type = std::size_t;
  using difference_type = std::ptrdiff_t;
  using reference = T&;
  using const_reference = const T&;
  using pointer = T*;
  using const_pointer = const T*;
  using iterator = T*;
  using const_iterator = const T*;
  using reverse_iterator = std::reverse_iterator<iterator>;
  using const_reverse_iterator = std::reverse_iterator<const_iterator>;

  SmallVector() noexcept = default;
  explicit SmallVector(size_type n) { resize(n); }
  SmallVector(size_type n, const T& value) { assign(n, value); }
  SmallVector(std::initializer_list<T> init) { assign(init.begin(), init.end()); }
  template <class It, class = typename std::iterator_traits<It>::iterator_category>
  SmallVector(It first, It last) {
    assign(first, last);
  }
  /// From a std::vector (implicit, so APIs that take a Shape accept a vector too).
  SmallVector(const std::vector<T>& v) { assign(v.begin(), v.end()); }  // NOLINT(google-explicit-constructor)
  SmallVector(const SmallVector& other) { assign(other.begin(), other.end()); }
  SmallVector(SmallVector&& other) noexcept(std::is_nothrow_move_constructible_v<T>) { take(std::move(other)); }
  ~SmallVector() {
    clear();
    if (!is_inline()) ::operator delete(data_, std::align_val_t{alignof(T)});
  }

  SmallVector& operator=(const SmallVector& other) {
    if (this != &other) assign(other.begin(), other.end());
    return *this;
  }
  SmallVector& operator=(SmallVector&& other) noexcept(std::is_nothrow_move_constructible_v<T>) {
    if (this != &other) {
      clear();
      if (!is_inline()) {
        ::operator delete(data_, std::align_val_t{alignof(T)});
        data_ = inline_data();
        capacity_ = N;
      }
      take(std::move(other));
    }
    return *this;
  }
  SmallVector& operator=(std::initializer_list<T> init) {
    assign(init.begin(), init.end());
    return *this;
  }

  /// A std::vector copy (for APIs that want one).
  operator std::vector<T>() const { return std::vector<T>(begin(), end()); }  // NOLINT
  std::vector<T> vec() const { return std::vector<T>(begin(), end()); }

  // ---- size and capacity ------------------------------------------------------------------------
  size_type size() const noexcept { return size_; }
  bool empty() const noexcept { return size_ == 0; }
  size_type capacity() const noexcept { return capacity_; }
  static constexpr size_type inline_capacity() { return N; }
  void reserve(size_type n) {
    if (n > capacity_) grow_to(n);
  }

  // ---- element access ---------------------------------------------------------------------------
  T* data() noexcept { return data_; }
  const T* data() const noexcept { return data_; }
  T& operator[](size_type i) { return data_[i]; }
  const T& operator[](size_type i) const { return data_[i]; }
  T& at(size_type i) {
    check(i);
    return data_[i];
  }
  const T& at(size_type i) const {
    check(i);
    return data_[i];
  }
  T& front() { return data_[0]; }
  const T& front() const { return data_[0]; }
  T& back() { return data_[size_ - 1]; }
  const T& back() const { return data_[size_ - 1]; }

  iterator begin() noexcept { return data_; }
  iterator end() noexcept { return data_ + size_; }
  const_iterator begin() const noexcept { return data_; }
  const_iterator end() const noexcept { return data_ + size_; }
  const_iterator cbegin() const noexcept { return data_; }
  const_iterator cend() const noexcept { return data_ + size_; }
  reverse_iterator rbegin() noexcept { return reverse_iterator(end()); }
  reverse_iterator rend() noexcept { return reverse_iterator(begin()); }
  const_reverse_iterator rbegin() const noexcept { return const_reverse_iterator(end()); }
  const_reverse_iterator rend() const noexcept { return const_reverse_iterator(begin()); }

  // ---- modifiers --------------------------------------------------------------------------------
  void clear() noexcept {
    std::destroy(begin(), end());
    size_ = 0;
  }
  void push_back(const T& value) { emplace_back(value); }
  void push_back(T&& value) { emplace_back(std::move(value)); }
  template <class... Args>
  T& emplace_back(Args&&... args) {
    if (size_ == capacity_) {
      T tmp(std::forward<Args>(args)...);  // args may refer into this vector
      grow_to(capacity_ * 2);
      ::new (static_cast<void*>(data_ + size_)) T(std::move(tmp));
    } else {
      ::new (static_cast<void*>(data_ + size_)) T(std::forward<Args>(args)...);
    }
    return data_[size_++];
  }
  void pop_back() {
    --size_;
    std::destroy_at(data_ + size_);
  }
  void resize(size_type n) {
    const size_type old = size_;
    if (n < old) {
      std::destroy(begin() + n, end());
    } else if (n > old) {
      reserve(n);
      for (size_type i = old; i < n; ++i) ::new (static_cast<void*>(data_ + i)) T();
    }
    size_ = static_cast<std::uint32_t>(n);
  }
  void resize(size_type n, const T& value) {
    const size_type old = size_;
    if (n < old) {
      std::destroy(begin() + n, end());
    } else if (n > old) {
      const T copy(value);  // value may live in this vector
      reserve(n);
      for (size_type i = old; i < n; ++i) ::new (static_cast<void*>(data_ + i)) T(copy);
    }
    size_ = static_cast<std::uint32_t>(n);
  }
  void assign(size_type n, const T& value) {
    SmallVector tmp;
    tmp.reserve(n);
    for (size_type i = 0; i < n; ++i) tmp.emplace_back(value);
    *this = std::move(tmp);
  }
  template <class It>
  void assign(It first, It last) {
    clear();
    if constexpr (std::is_base_of_v<std::forward_iterator_tag, typename std::iterator_traits<It>::iterator_category>) {
      reserve(static_cast<size_type>(std::distance(first, last)));
    }
    for (; first != last; ++first) emplace_back(*first);
  }
  iterator insert(const_iterator pos, const T& value) { return insert(pos, &value, &value + 1); }
  template <class It, class = typename std::iterator_traits<It>::iterator_category>
  iterator insert(const_iterator pos, It first, It last) {
    const auto at_index = static_cast<size_type>(pos - begin());
    SmallVector tail(begin() + at_index, end());  // simple and correct; shapes are tiny
    resize(at_index);
    for (; first != last; ++first) emplace_back(*first);
    for (auto& v : tail) emplace_back(std::move(v));
    return begin() + at_index;
  }
  iterator insert(const_iterator pos, std::initializer_list<T> init) { return insert(pos, init.begin(), init.end()); }
  iterator erase(const_iterator pos) { return erase(pos, pos + 1); }
  iterator erase(const_iterator first, const_iterator last) {
    auto* f = const_cast<T*>(first);
    auto* l = const_cast<T*>(last);
    auto* new_end = std::move(l, end(), f);
    std::destroy(new_end, end());
    size_ -= static_cast<std::uint32_t>(l - f);
    return f;
  }

  friend bool operator==(const SmallVector& a, const SmallVector& b) {
    return std::equal(a.begin(), a.end(), b.begin(), b.end());
  }
  friend bool operator!=(const SmallVector& a, const SmallVector& b) { return !(a == b); }
  friend bool operator<(const SmallVector& a, const SmallVector& b) {
    return std::lexicographical_compare(a.begin(), a.end(), b.begin(), b.end());
  }
  friend bool operator==(const SmallVector& a, const std::vector<T>& b) {
    return std::equal(a.begin(), a.end(), b.begin(), b.end());
  }
  friend bool operator==(const std::vector<T>& a, const SmallVector& b) { return b == a; }
  friend bool operator!=(const SmallVector& a, const std::vector<T>& b) { return !(a == b); }
  friend bool operator!=(const std::vector<T>& a, const SmallVector& b) { return !(b == a); }

 private:
  bool is_inline() const noexcept { return data_ == inline_data(); }
  T* inline_data() noexcept { return std::launder(reinterpret_cast<T*>(buffer_)); }
  const T* inline_data() const noexcept { return std::launder(reinterpret_cast<const T*>(buffer_)); }
  void check(size_type i) const {
    if (i >= size_) throw std::out_of_range("SmallVector::at: index out of range");
  }
  void grow_to(size_type n) {
    n = std::max<size_type>(n, size_type{capacity_} * 2);
    T* fresh = static_cast<T*>(::operator new(n * sizeof(T), std::align_val_t{alignof(T)}));
    std::uninitialized_move(begin(), end(), fresh);
    std::destroy(begin(), end());
    if (!is_inline()) ::operator delete(data_, std::align_val_t{alignof(T)});
    data_ = fresh;
    capacity_ = static_cast<std::uint32_t>(n);
  }
  // Precondition: *this is empty and inline.
  void take(SmallVector&& other) {
    if (other.is_inline()) {
      std::uninitialized_move(other.begin(), other.end(), data_);
      size_ = other.size_;
      other.clear();
    } else {  // steal the heap block
      data_ = other.data_;
      size_ = other.size_;
      capacity_ = other.capacity_;
      other.data_ = other.inline_data();
      other.size_ = 0;
      other.capacity_ = N;
    }
  }

  T* data_ = inline_data();
  std::uint32_t size_ = 0;
  std::uint32_t capacity_ = N;
  alignas(T) unsigned char buffer_[N * sizeof(T)];
};

}  // namespace kindling
