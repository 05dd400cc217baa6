// P8 / M2 peer: torchvision's ResNet-18 written in LibTorch 1.13 C++ (1 thread), the set-up of
// p8_resnet_setup.hpp, in the interleaving protocol of bench/peer_process.hpp:
//   usage: bench_peer_p8_resnet forward|train <calls per repetition> <warm-up calls> [quick]
//   stdout: "ready check=<result of the last warm-up call> gemm=<GEMM libraries:ISA> ftz=<on|off>", then per "run":
//           "cpu=<s> wall=<s> check=<result of the last call> rss_kb=<peak RSS so far> anon_kb=<RssAnon>
//           file_kb=<RssFile>"
// forward: eval mode under NoGradGuard, check = the sum of |logits|; train: one training step (zero_grad,
// forward, CrossEntropyLoss, backward, Adam step), check = the loss. `quick`: p8::kQuick's sizes.
#include <torch/torch.h>

#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <iostream>
#include <string>

#include "backend_info.hpp"
#include "p8_resnet_setup.hpp"
#include "proc_status.hpp"

namespace {
double clock_s(clockid_t id) {
  timespec ts{};
  clock_gettime(id, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

namespace nn = torch::nn;

nn::Conv2d conv(std::int64_t in, std::int64_t out, std::int64_t k, std::int64_t stride, std::int64_t pad) {
  return nn::Conv2d(nn::Conv2dOptions(in, out, k).stride(stride).padding(pad).bias(false));
}

// torchvision's BasicBlock: relu(bn2(conv2(relu(bn1(conv1(x))))) + shortcut(x)), the shortcut a 1x1
// convolution and BatchNorm when the block changes the size or the channel count.
struct BasicBlockImpl : nn::Module {
  nn::Conv2d conv1{nullptr}, conv2{nullptr};
  nn::BatchNorm2d bn1{nullptr}, bn2{nullptr};
  nn::Sequential downsample{nullptr};
  BasicBlockImpl(std::int64_t in, std::int64_t planes, std::int64_t stride) {
    conv1 = register_module("conv1", conv(in, planes, 3, stride, 1));
    bn1 = register_module("bn1", nn::BatchNorm2d(planes));
    conv2 = register_module("conv2", conv(planes, planes, 3, 1, 1));
    bn2 = register_module("bn2", nn::BatchNorm2d(planes));
    if (stride != 1 || in != planes)
      downsample =
          register_module("downsample", nn::Sequential(conv(in, planes, 1, stride, 0), nn::BatchNorm2d(planes)));
  }
  torch::Tensor forward(const torch::Tensor& x) {
    auto out = torch::relu(bn1(conv1(x)));
    out = bn2(conv2(out));
    return torch::relu(out + (downsample ? downsample->forward(x) : x));
  }
};
TORCH_MODULE(BasicBlock);

// conv1 7x7/2 -> bn1 -> relu -> maxpool 3/2 -> layer1..layer4 -> adaptive avgpool 1x1 -> flatten -> fc.
struct ResNet18Impl : nn::Module {
  nn::Conv2d conv1{nullptr};
  nn::BatchNorm2d bn1{nullptr};
  nn::Sequential layer1, layer2, layer3, layer4;
  nn::Linear fc{nullptr};
  ResNet18Impl() {
    conv1 = register_module("conv1", conv(3, 64, 7, 2, 3));
    bn1 = register_module("bn1", nn::BatchNorm2d(64));
    std::int64_t in = 64;
    auto make = [&](nn::Sequential& layer, const char* name, std::int64_t planes, std::int64_t stride) {
      layer->push_back(BasicBlock(in, planes, stride));
      layer->push_back(BasicBlock(planes, planes, 1));
      in = planes;
      register_module(name, layer);
    };
    make(layer1, "layer1", 64, 1);
    make(layer2, "layer2", 128, 2);
    make(layer3, "layer3", 256, 2);
    make(layer4, "layer4", 512, 2);
    fc = register_module("fc", nn::Linear(512, p8::kClasses));
  }
  torch::Tensor forward(torch::Tensor x) {
    x = torch::max_pool2d(torch::relu(bn1(conv1(x))), 3, 2, 1);
    x = layer4->forward(layer3->forward(layer2->forward(layer1->forward(x))));
    return fc(torch::adaptive_avg_pool2d(x, {1, 1}).flatten(1));
  }
};
TORCH_MODULE(ResNet18);
}  // namespace

int main(int argc, char** argv) {
  peers::flush_denormal_if_asked();  // the tuned setting (backend_info.hpp)
  if (argc < 4) {
    std::fprintf(stderr, "usage: %s forward|train <calls per repetition> <warm-up calls> [quick]\n", argv[0]);
    return 2;
  }
  const std::string mode = argv[1];
  const int calls = std::atoi(argv[2]), warmup = std::atoi(argv[3]);
  const p8::Sizes sizes = argc > 4 && std::string(argv[4]) == "quick" ? p8::kQuick : p8::kFull;
  torch::set_num_threads(1);
  ResNet18 model;
  {
    torch::NoGradGuard no_grad;
    for (auto& item : model->named_parameters()) {
      const std::string& name = item.key();
      torch::Tensor& p = item.value();
      const std::vector<std::int64_t> shape(p.sizes().begin(), p.sizes().end());
      if (!p8::from_formula(name, shape)) continue;
      std::vector<float> v = p8::initial(name, shape);
      p.copy_(torch::from_blob(v.data(), p.sizes(), torch::kFloat32));
    }
  }
  const bool train = mode == "train";
  const std::int64_t batch = train ? sizes.train_batch : sizes.forward_batch;
  const std::int64_t size = train ? sizes.train_size : sizes.forward_size;
  std::vector<float> images = p8::images(batch, size);
  std::vector<std::int64_t> labels = p8::labels(batch);
  const auto X = torch::from_blob(images.data(), {batch, 3, size, size}, torch::kFloat32);
  const auto Y = torch::from_blob(labels.data(), {batch}, torch::kInt64);
  torch::optim::Adam optimizer(model->parameters(), torch::optim::AdamOptions(1e-3));
  if (train) model->train();
  else model->eval();
  auto run = [&](int count) {
    double check = 0;
    for (int s = 0; s < count; ++s) {
      if (train) {
        optimizer.zero_grad();
        auto loss = torch::nn::functional::cross_entropy(model->forward(X), Y);
        loss.backward();
        optimizer.step();
        check = loss.item<double>();
      } else {
        torch::NoGradGuard no_grad;
        check = model->forward(X).abs().sum().item<double>();
      }
    }
    return check;
  };
  const double warm = run(warmup);
  std::printf("ready check=%.9g gemm=%s ftz=%s\n", warm, peers::gemm_backends().c_str(), peers::flush_denormal_state());
  std::fflush(stdout);
  std::string line;
  while (std::getline(std::cin, line) && line == "run") {
    const double c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID), w0 = clock_s(CLOCK_MONOTONIC);
    const double check = run(calls);
    const double cpu = clock_s(CLOCK_PROCESS_CPUTIME_ID) - c0, wall = clock_s(CLOCK_MONOTONIC) - w0;
    std::printf("cpu=%.9g wall=%.9g check=%.9g rss_kb=%ld anon_kb=%ld file_kb=%ld\n", cpu, wall, check,
                peers::proc_status_kb("VmHWM"), peers::proc_status_kb("RssAnon"), peers::proc_status_kb("RssFile"));
    std::fflush(stdout);
  }
}
