// Chapter 4 — a Dataset over in-memory data and labels (PyTorch's classic MyDataset
// example), and a DataLoader with the usual settings: batch 32, shuffle on, 4 workers,
// pin_memory on.
#include <kindling/data.hpp>

#include <cstdio>
#include <iostream>

namespace kd = kindling;

// [snippet: my-dataset]
// PyTorch: class MyDataset(Dataset) with __init__, __len__ and __getitem__.
// Kindling: any type with size() and a const get(index) is a Dataset — no base class
// needed.
struct MyDataset {
  kd::Tensor data;    // [N, 4] float32 features, kept in memory
  kd::Tensor labels;  // [N] int64 class indices

  std::int64_t size() const { return data.size(0); }  // __len__

  kd::data::Example get(std::int64_t idx) const {  // __getitem__
    kd::data::check_index(idx, size(), "MyDataset");
    // Per-sample preprocessing belongs here: get() runs in the DataLoader's worker
    // threads, so with num_workers = 4 four samples are preprocessed at once.
    kd::Tensor x = data[idx];  // [4], a view of row idx: standardise it
    kd::Tensor standardised = (x - x.mean()) / (x.std() + 1e-6);
    return {standardised, labels[idx]};  // {features [4], label (0-d int64)}
  }
};
static_assert(kd::data::Dataset<MyDataset>);  // checked when compiling: size(), get()
// [end]

int main() {
  kd::manual_seed(0);
  // [snippet: make-dataset]
  const std::int64_t n = 1000;
  MyDataset dataset{kd::randn({n, 4}), kd::randint(0, 3, {n})};
  std::cout << "len(dataset) = " << dataset.size() << "\n";
  auto [x0, y0] = dataset.get(0);  // one sample, like dataset[0]
  std::cout << "dataset[0]: features " << kd::shape_str(x0.shape()) << " "
            << kd::dtype_name(x0.dtype()) << ", label " << y0.item<std::int64_t>()
            << " (" << kd::dtype_name(y0.dtype()) << ", " << y0.dim() << "-d)\n";
  // [end]

  // [snippet: loader]
  kd::data::DataLoader loader(dataset, {.batch_size = 32, .shuffle = true,
                                        .num_workers = 4, .pin_memory = true});
  std::cout << "len(loader) = " << loader.size() << " batches\n";  // ceil(1000 / 32)
  std::int64_t seen = 0, step = 0;
  // inputs: [32, 4] float32, labels: [32] int64
  for (auto& [inputs, labels] : loader) {
    if (step < 2 || step == loader.size() - 1) {
      std::cout << "batch " << step << ": inputs " << kd::shape_str(inputs.shape())
                << ", labels " << kd::shape_str(labels.shape()) << " "
                << kd::dtype_name(labels.dtype()) << "\n";
    }
    seen += inputs.size(0);
    ++step;
  }
  std::cout << "one epoch: " << step << " batches, " << seen << " samples\n";
  // [end]

  // [snippet: out-of-range]
  try {
    dataset.get(1000);
  } catch (const kd::IndexError& e) {
    std::cout << "IndexError: " << e.what() << "\n";
  }
  // [end]
}
