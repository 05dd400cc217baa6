// Chapter 2 — gradients accumulate. Two backward calls add up in .grad (retain_graph
// keeps the graph for the second one); a second backward through a freed graph fails;
// and a training loop that forgets to zero the gradient goes wrong — the trap
// optimizer.zero_grad() exists for.
#include <kindling/autograd.hpp>

#include <cstdio>
#include <iostream>

namespace kd = kindling;

// Five steps of gradient descent on loss = mean((w * x - y)^2) with y = 3x, so w should
// go to 3.
void fit(bool zero_grad) {
  std::printf("-- gradient descent, lr 0.1, %s\n",
              zero_grad ? "zeroing w.grad every step" : "never zeroing w.grad");
  kd::Tensor x = kd::tensor({1.0, 2.0, 3.0});
  kd::Tensor y = 3 * x;
  kd::Tensor w = kd::tensor({0.0}, {.requires_grad = true});
  // [snippet: train-loop]
  for (int step = 1; step <= 5; ++step) {
    if (zero_grad && w.grad().defined()) w.grad().zero_();  // optimizer.zero_grad()
    kd::Tensor loss = (w * x - y).pow(2).mean();
    loss.backward();  // adds d loss/d w into w.grad
    {
      kd::NoGradGuard no_grad;  // optimizer.step(): not recorded
      w -= 0.1 * w.grad();
    }
    std::printf("step %d  loss %8.3f  w.grad %9.3f  w %7.3f\n", step,
                loss.item<double>(), w.grad().item<double>(), w.item<double>());
  }
  // [end]
}

int main() {
  // [snippet: twice]
  kd::Tensor x = kd::tensor({1.0, 2.0, 3.0}, {.requires_grad = true});
  kd::Tensor y = (x * x).sum();           // dy/dx = 2x
  y.backward({}, /*retain_graph=*/true);  // keep the graph for another backward
  std::cout << "after one backward:  x.grad = " << x.grad() << "\n";
  y.backward();  // same graph again: the result is ADDED
  std::cout << "after two backwards: x.grad = " << x.grad() << "\n";
  // [end]

  // [snippet: second-backward]
  kd::Tensor z = (x * x).sum();
  z.backward();  // frees the tensors MulBackward0 saved
  try {
    z.backward();
  } catch (const kd::Error& e) {
    std::cout << "second backward: " << e.what() << "\n";
  }
  // [end]

  fit(/*zero_grad=*/true);
  fit(/*zero_grad=*/false);
}
