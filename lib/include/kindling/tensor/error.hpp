#pragma once
/// @file
/// One error hierarchy for the whole library. Every message names the operation, the shapes,
/// dtypes or devices involved, and a hint — better than "size mismatch" is the point.
#include <stdexcept>
#include <string>

namespace kindling {

/// Base of every error Kindling throws. Catch this to catch them all.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};
/// Shapes that do not fit: broadcasting, matmul, view/reshape, cat/stack.
class ShapeError : public Error { using Error::Error; };
/// An index or dimension out of range.
class IndexError : public Error { using Error::Error; };
/// An operation that does not support a dtype, or a lossy/invalid conversion.
class DTypeError : public Error { using Error::Error; };
/// Tensors on different devices, or a device that is not available.
class DeviceError : public Error { using Error::Error; };
/// A bad argument value (negative size, step of zero, ...).
class ValueError : public Error { using Error::Error; };
/// A file that cannot be read or written, or whose contents are corrupt.
class IOError : public Error { using Error::Error; };
/// An allocation the machine cannot satisfy (PyTorch: "can't allocate memory", OutOfMemoryError).
class OutOfMemoryError : public Error { using Error::Error; };
/// Misuse of autograd (backward through a freed graph, in-place on a saved tensor, ...).
class AutogradError : public Error { using Error::Error; };
/// Thrown by exercise stubs at their first call: the learner has not written this piece of the library
/// yet. what(): "NotImplemented: ch02.ex4 (topological order) -- run make grade CH=02".
class NotImplemented : public Error {
 public:
  explicit NotImplemented(const std::string& what)
      : Error("NotImplemented: " + what) {}
};

}  // namespace kindling
