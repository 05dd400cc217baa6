// Chapter 2 — in-place changes and autograd. A node that saved a tensor for backward
// remembers the tensor's version; an in-place op bumps it, and backward refuses to use
// the changed value. In-place ops on tensors inside the graph are refused outright, and
// on a leaf that requires grad they are allowed only with grad mode off (that is how an
// optimizer updates weights). detach() shares memory with the original, so it shares
// the version counter too.
#include <kindling/autograd.hpp>

#include <iostream>

namespace kd = kindling;

int main() {
  // [snippet: version]
  kd::Tensor x = kd::tensor({0.5, 1.0, 1.5});  // data: no gradient needed
  kd::Tensor w = kd::tensor({1.0, 2.0, 3.0}, {.requires_grad = true});
  kd::Tensor y = (x * w).sum();  // MulBackward0 saves x: d y/d w = x
  std::cout << "x.version() = " << x.version() << "\n";
  x.add_(1);  // in place: the saved x is not the x of the forward any more
  std::cout << "after x.add_(1): x.version() = " << x.version() << "\n";
  try {
    y.backward();
  } catch (const kd::Error& e) {
    std::cout << "backward: " << e.what() << "\n";
  }
  // [end]

  // [snippet: graph-tensor]
  kd::Tensor a = w.exp();  // a is part of the graph (grad_fn ExpBackward0)
  try {
    a.add_(1);
  } catch (const kd::Error& e) {
    std::cout << "a.add_(1): " << e.what() << "\n";
  }
  // [end]

  // [snippet: leaf]
  try {
    w.mul_(2);  // a leaf that requires grad
  } catch (const kd::Error& e) {
    std::cout << "w.mul_(2): " << e.what() << "\n";
  }
  {
    kd::NoGradGuard no_grad;  // what an optimizer step does
    w.mul_(2);
  }
  std::cout << "under NoGradGuard: w = " << w << "\n";
  // [end]

  // [snippet: detach]
  kd::Tensor s = w.sigmoid();  // SigmoidBackward0 saves its output s
  kd::Tensor d = s.detach();   // same storage, no grad_fn, requires_grad false
  std::cout << "d.requires_grad() = " << std::boolalpha << d.requires_grad()
            << ", shares storage with s: " << d.shares_storage(s) << "\n";
  d.zero_();  // allowed (d is not in a graph) — and writes s's memory
  std::cout << "s after d.zero_(): " << s << "\n";
  try {
    s.sum().backward();
  } catch (const kd::Error& e) {
    std::cout << "backward: " << e.what() << "\n";
  }
  // [end]
}
