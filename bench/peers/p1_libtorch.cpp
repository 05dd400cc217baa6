// P1 peer: the seed's SimpleNet training step in LibTorch 1.13 (1 thread), on Fashion-MNIST batches
// of 32 taken in order from memory, in the interleaving protocol of bench/peer_process.hpp:
//   usage: bench_peer_p1_simplenet <steps per repetition> <warm-up steps> [fashion-mnist dir]
//   stdout: "ready data_rss_kb=<peak RSS with the data loaded, before the model> lib_rss_kb=<peak RSS
//           before the data> anon_kb=<RssAnon after the warm-up> file_kb=<RssFile then> gemm=<GEMM
//           libraries:ISA>", then per "run": "cpu=<s> wall=<s> loss=<last loss> rss_kb=<peak RSS so far>
//           anon_kb=<RssAnon now> file_kb=<RssFile now>"
//   environment: P1_THREADS=<n> (default 1) sets torch::set_num_threads; P1_DATA=u8 keeps the images
//           as uint8 (as a Dataset holds them) and converts each batch to float when it is taken (M1).
#include <torch/torch.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <iostream>
#include <string>

#include "backend_info.hpp"
#include "idx_reader.hpp"
#include "proc_status.hpp"

namespace {
double clock_s(clockid_t id) {
  timespec ts{};
  clock_gettime(id, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}
// The peak resident set of this process's memory (VmHWM), in kB. Not getrusage's ru_maxrss: that
// survives fork and execve, so a child started by a 200 MB parent would report the parent's peak.
long peak_rss_kb() {
  std::FILE* f = std::fopen("/proc/self/status", "r");
  if (!f) return 0;
  char line[256];
  long kb = 0;
  while (std::fgets(line, sizeof line, f))
    if (std::sscanf(line, "VmHWM: %ld kB", &kb) == 1) break;
  std::fclose(f);
  return kb;
}

struct SimpleNet : torch::nn::Module {
  torch::nn::Linear fc1{nullptr}, fc2{nullptr};
  SimpleNet() {
    fc1 = register_module("fc1", torch::nn::Linear(784, 128));
    fc2 = register_module("fc2", torch::nn::Linear(128, 10));
  }
  torch::Tensor forward(const torch::Tensor& x) { return fc2(torch::relu(fc1(x))); }
};
}  // namespace

int main(int argc, char** argv) {
  peers::flush_denormal_if_asked();  // the tuned setting (backend_info.hpp)
  const int steps = argc > 1 ? std::atoi(argv[1]) : 300;
  const int warmup = argc > 2 ? std::atoi(argv[2]) : 100;
  const char* dir = argc > 3 ? argv[3] : "/usr/share/datasets/fashion-mnist";
  const char* threads = std::getenv("P1_THREADS");
  const char* data_mode = std::getenv("P1_DATA");
  const bool u8 = data_mode && std::string(data_mode) == "u8";
  torch::set_num_threads(threads ? std::max(1, std::atoi(threads)) : 1);
  torch::manual_seed(0);
  const long lib_rss = peak_rss_kb();
  std::vector<float> images;
  std::vector<std::uint8_t> images_u8;
  std::vector<std::int64_t> labels;
  std::int64_t n = 0;
  torch::Tensor X;
  if (u8) {
    peers::load_fashion_mnist_u8(dir, images_u8, labels, n);
    X = torch::from_blob(images_u8.data(), {n, 784}, torch::kUInt8);
  } else {
    peers::load_fashion_mnist(dir, images, labels, n);
    X = torch::from_blob(images.data(), {n, 784}, torch::kFloat32);
  }
  auto Y = torch::from_blob(labels.data(), {n}, torch::kInt64);
  const long data_rss = peak_rss_kb();
  SimpleNet model;
  torch::optim::Adam optimizer(model.parameters(), torch::optim::AdamOptions(1e-3));
  torch::nn::CrossEntropyLoss criterion;
  const std::int64_t batch = 32, batches = n / batch;
  std::int64_t cursor = 0;
  auto run = [&](int count) {
    double last = 0;
    for (int s = 0; s < count; ++s, ++cursor) {
      const std::int64_t b = cursor % batches;
      auto inputs = u8 ? X.narrow(0, b * batch, batch).to(torch::kFloat32).div_(255.0) : X.narrow(0, b * batch, batch);
      auto targets = Y.narrow(0, b * batch, batch);
      optimizer.zero_grad();
      auto loss = criterion(model.forward(inputs), targets);
      loss.backward();
      optimizer.step();
      last = loss.item<double>();
    }
    return last;
  };
  run(warmup);
  std::printf("ready data_rss_kb=%ld lib_rss_kb=%ld anon_kb=%ld file_kb=%ld gemm=%s ftz=%s\n", data_rss, lib_rss,
              peers::proc_status_kb("RssAnon"), peers::proc_status_kb("RssFile"), peers::gemm_backends().c_str(), peers::flush_denormal_state());
  std::fflush(stdout);
  std::string line;
  while (std::getline(std::cin, line) && line == "run") {
    const double c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID), w0 = clock_s(CLOCK_MONOTONIC);
    const double loss = run(steps);
    std::printf("cpu=%.9g wall=%.9g loss=%.9g rss_kb=%ld anon_kb=%ld file_kb=%ld\n",
                clock_s(CLOCK_PROCESS_CPUTIME_ID) - c0, clock_s(CLOCK_MONOTONIC) - w0, loss, peak_rss_kb(),
                peers::proc_status_kb("RssAnon"), peers::proc_status_kb("RssFile"));
    std::fflush(stdout);
  }
}
