#pragma once
/// @file
/// Chapter 4's exercise pieces: the parts of the data layer that *you* write (exercises/ch04/). All are
/// declared in public headers; each is called by the library where noted, and defined in your
/// `exercises/ch04/exK_*.cpp` or the reference `solutions/ch04/exK_*.cpp`.
///
///   ex1  data::random_permutation (dataset.hpp)           RandomSampler (shuffle = true), random_split
///   ex2  data::collate_tensors (collate.hpp)              every DataLoader batch (DefaultCollate)
///   ex3  transforms::functional::to_tensor, normalize,    ToTensor, Normalize, RandomHorizontalFlip
///        hflip (transforms_functional.hpp)
///   ex4  data::detail::OrderedPrefetcher (dataloader.hpp) every DataLoader with num_workers > 0
#include "kindling/data/collate.hpp"
#include "kindling/data/dataloader.hpp"
#include "kindling/data/dataset.hpp"
#include "kindling/data/transforms_functional.hpp"
