#pragma once
/// @file
/// Chapter 4: datasets, the DataLoader, samplers, collation, transforms, Fashion-MNIST, images,
/// CSV and caching. `#include <kindling/data.hpp>`.
#include "kindling/data/cached.hpp"
#include "kindling/data/collate.hpp"
#include "kindling/data/csv.hpp"
#include "kindling/data/csv_parse.hpp"
#include "kindling/data/dataloader.hpp"
#include "kindling/data/dataset.hpp"
#include "kindling/data/image.hpp"
#include "kindling/data/image_folder.hpp"
#include "kindling/data/mnist.hpp"
#include "kindling/data/sampler.hpp"
#include "kindling/data/transforms.hpp"
#include "kindling/data/transforms_functional.hpp"
#include "kindling/data/worker.hpp"
#include "kindling/tensor.hpp"
