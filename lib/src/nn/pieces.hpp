#pragma once
/// @file
/// Chapter 3's exercise pieces: the parts of the module layer that *you* write (exercises/ch03/). Most are
/// member functions declared in the public headers; each is called by the library where noted, and
/// defined in your `exercises/ch03/exK_*.cpp` or the reference `solutions/ch03/exK_*.cpp`.
///
///   ex1  nn::Linear::Linear, Linear::reset_parameters (linear.hpp), detail::linear_forward (below)
///   ex2  nn::ModuleListBase::append_shared, operator[], Sequential::forward (container.hpp)
///   ex3  nn::functional::dropout (functional.hpp): nn::Dropout in train()
///   ex4  nn::Module::named_modules, named_parameters, named_buffers (module.hpp): parameters(),
///        state_dict(), every optimizer's list of parameters
///   ex5  nn::Module::load_state_dict (module.hpp): kd::load + load_state_dict, checkpoints
#include "kindling/nn/container.hpp"
#include "kindling/nn/functional.hpp"
#include "kindling/nn/linear.hpp"
#include "kindling/nn/module.hpp"

namespace kindling::nn::detail {

/// y = x · weightᵀ + bias: x [*, in], weight [out, in], bias [out] (or undefined) -> [*, out], recorded by
/// autograd like any composition of ops. functional::linear has checked the shapes, devices and dtypes.
Tensor linear_forward(const Tensor& x, const Tensor& weight, const Tensor& bias);

}  // namespace kindling::nn::detail
