// load_checkpoint on arbitrary bytes, then the loaded state into a real optimizer and scheduler (the
// untrusted numbers there once went through undefined float -> int casts).
#include <kindling/kindling.hpp>

#include "fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace kd = kindling;
  const std::string& path = kdfuzz::write_input(data, size, ".ckpt.safetensors");
  return kdfuzz::run([&] {
    const kd::train::Checkpoint c = kd::train::load_checkpoint(path);
    kd::nn::Linear layer(3, 2);
    kdfuzz::run([&] { layer.load_state_dict(c.model); });
    kd::optim::Adam adam(layer.parameters(), {.lr = 1e-3});
    kdfuzz::run([&] { adam.load_state_dict(c.optimizer); });
    kd::optim::SGD sgd(layer.parameters(), {.lr = 0.1, .momentum = 0.9});
    kdfuzz::run([&] { sgd.load_state_dict(c.optimizer); });
    kd::optim::StepLR sched(adam, 2, 0.5);
    kdfuzz::run([&] { sched.load_state_dict(c.scheduler); });
    kd::optim::ReduceLROnPlateau plateau(adam);
    kdfuzz::run([&] { plateau.load_state_dict(c.scheduler); });
    // A step with whatever state was accepted must not crash either.
    kd::Tensor loss = layer(kd::ones({4, 3})).sum();
    loss.backward();
    adam.step();
    sgd.step();
    sched.step();
  });
}
