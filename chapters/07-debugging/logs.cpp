// Logs that help: what to write down every epoch so that a failure can be read from
// the log afterwards -- the learning rate, the time of each phase, memory, the shapes
// that went in and came out, and a summary of the data. Chapter 5's SimpleNet on 2,048
// images, three epochs, the learning rate halved after each (StepLR).
#include "common.hpp"

int main() {
  auto train_set = fashion_subset(kd::data::Split::Train, 2048);
  auto val_set = fashion_subset(kd::data::Split::Test, 512);
  kd::data::DataLoader loader(train_set, {.batch_size = 64, .shuffle = true});
  kd::data::DataLoader val_loader(val_set, {.batch_size = 256});

  kd::manual_seed(0);
  SimpleNet model;
  kd::nn::CrossEntropyLoss criterion;
  kd::optim::SGD optimizer(model.parameters(), {.lr = 0.1, .momentum = 0.9});
  kd::optim::StepLR scheduler(optimizer, 1, 0.5);
  kd::train::TrainingLog log(3);
  using clock = std::chrono::steady_clock;
  auto since = [](clock::time_point t) {
    return std::chrono::duration<double>(clock::now() - t).count();
  };
  for (int epoch = 1; epoch <= 3; ++epoch) {
    const auto start = clock::now();
    model.train();
    // [snippet: record]
    kd::train::EpochRecord r{.epoch = epoch, .lr = optimizer.lr()};
    double total = 0;
    // the loader profiler splits the epoch: waiting for batches vs the steps
    const auto profile = dbg::profile_loader(loader, [&](const auto& batch) {
      const auto& [images, labels] = batch;
      optimizer.zero_grad();
      kd::Tensor out = model(images);
      if (r.input_shape.empty()) {  // the first batch: what goes in, what comes out
        r.input_shape = kd::train::shape_string(images);
        r.output_shape = kd::train::shape_string(out);
        r.data_summary = kd::train::describe_batch(images, labels);
      }
      kd::Tensor loss = criterion(out, labels);
      loss.backward();
      optimizer.step();
      total += loss.item<double>();
    });
    r.train_loss = total / static_cast<double>(profile.batches);
    r.data_seconds = profile.wait_seconds;
    r.compute_seconds = profile.compute_seconds;
    // [end]
    const auto val_start = clock::now();
    model.eval();
    double val_loss = 0, correct = 0;
    {
      kd::NoGradGuard no_grad;
      for (auto& [images, labels] : val_loader) {
        kd::Tensor out = model(images);
        val_loss += criterion(out, labels).item<double>() * images.size(0);
        correct += (out.argmax(1) == labels).sum().item<double>();
      }
    }
    r.val_loss = val_loss / static_cast<double>(val_set.size());
    r.val_accuracy = correct / static_cast<double>(val_set.size());
    r.val_seconds = since(val_start);
    r.seconds = since(start);
    r.peak_rss_mb = kd::train::peak_rss_mb();
    r.tensor_mb = kd::memory::allocated_bytes() / 1048576.0;
    log.log(r);
    scheduler.step();
  }
  log.write_jsonl("ch07_logs_history.jsonl");
  log.write_csv("ch07_logs_history.csv");
  std::printf("\nthe history, as JSON lines (first epoch):\n");
  std::FILE* f = std::fopen("ch07_logs_history.jsonl", "r");
  char line[1024];
  if (f && std::fgets(line, sizeof line, f)) std::printf("%s", line);
  if (f) std::fclose(f);
  return 0;
}
