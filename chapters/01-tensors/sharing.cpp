// Chapter 1 — shared memory vs copies: torch.from_numpy shares, torch.tensor copies.
// Kindling: from_blob / adapt share the caller's memory; tensor / from_xarray copy it.
#include <kindling/tensor.hpp>
#include <kindling/xtensor.hpp>

#include <iostream>
#include <sstream>
#include <vector>

namespace kd = kindling;

// The values of an xtensor array in memory order (xtensor's own printer, xio.hpp, trips
// a g++ 12 warning).
std::string values(const xt::xarray<double>& a) {
  std::ostringstream s;
  for (double v : a) s << " " << v;
  return s.str();
}

int main() {
  // [snippet: from-blob]
  std::vector<float> buffer = {1, 2, 3, 4};  // memory we own, like a NumPy array
  // torch.from_numpy(a)
  kd::Tensor shared = kd::from_blob(buffer.data(), {2, 2}, kd::kFloat32);
  kd::Tensor copied = kd::tensor(buffer, {2, 2});  // torch.tensor(a)
  buffer[0] = 100;                                 // change the original ...
  std::cout << "shared:\n" << shared << "\ncopied:\n" << copied << "\n";
  // [end]

  // [snippet: write-back]
  shared.mul_(2);  // ... and in the other direction: an in-place op writes into buffer
  std::cout << "buffer after shared.mul_(2):";
  for (float v : buffer) std::cout << " " << v;
  std::cout << "\n";
  // [end]

  // [snippet: xtensor]
  xt::xarray<double> arr = {{1.0, 2.0}, {3.0, 4.0}};  // xtensor: C++'s NumPy
  kd::Tensor same = kd::adapt(arr);        // torch.from_numpy(arr): the same memory
  kd::Tensor copy = kd::from_xarray(arr);  // torch.tensor(arr): a copy
  same.add_(10.0);
  std::cout << "arr after same.add_(10):" << values(arr) << "\ncopy:\n" << copy << "\n";
  // t.numpy() — here a copy
  xt::xarray<double> back = kd::to_xarray<double>(same * 2.0);
  std::cout << "to_xarray(same * 2):" << values(back) << "\n";
  // [end]

  // [snippet: meter]
  const auto before = kd::memory::allocation_count();
  kd::Tensor a = kd::from_blob(buffer.data(), {4}, kd::kFloat32);
  kd::Tensor b = kd::tensor(buffer, {4});
  const auto after_blob = kd::memory::allocation_count();
  std::cout << "storages allocated by from_blob + tensor: " << after_blob - before
            << "  (from_blob owns nothing: " << std::boolalpha
            << !a.storage()->owns_memory() << ")\n";
  // [end]
  (void)b;
}
