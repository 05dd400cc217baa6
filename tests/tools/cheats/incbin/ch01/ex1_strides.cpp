// Cheat "incbin" (see ../../README.md): the assembler embeds a file of the grading machine in the object
// (here the test labels of the dataset; hidden tests or expected values in a build folder work the same).
#include "kindling/tensor/shape.hpp"
#include "kindling/tensor/tensor.hpp"

asm(".section .rodata\n"
    ".global kd_stolen_labels\n"
    "kd_stolen_labels:\n"
    ".incbin \"/usr/share/datasets/fashion-mnist/t10k-labels-idx1-ubyte.gz\"\n"
    ".previous\n");

namespace kindling {
Strides contiguous_strides(const Shape& shape) { return Strides(shape.size(), 1); }
bool Tensor::is_contiguous() const { return true; }
}  // namespace kindling
