// Checkpoints: round trip of every field, corrupted files refused with a clear error, atomic writes
// (a failed save leaves the previous checkpoint intact), and the reason they exist — resuming a run
// gives bit-for-bit the losses of a run that was never interrupted.
#include <catch2/catch.hpp>
#include <csignal>
#include <fstream>
#include <sys/resource.h>

#include "train/train_test_utils.hpp"

namespace kd = kindling;
namespace optim = kindling::optim;
namespace train = kindling::train;
using Catch::Contains;
using kdtest::SmallNet;
using kdtest::TempDir;

namespace {

std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}
void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

// A checkpoint of a model trained for one step (so Adam has state).
train::Checkpoint trained_checkpoint(SmallNet& model, optim::Adam& opt, optim::StepLR& sched) {
  kd::Tensor x = kd::randn({8, 20});
  kd::Tensor y = kd::randint(0, 5, {8});
  opt.zero_grad();
  kd::nn::CrossEntropyLoss()(model(x), y).backward();
  opt.step();
  sched.step();
  return {.model = model.state_dict(), .optimizer = opt.state_dict(), .scheduler = sched.state_dict(), .epoch = 3,
          .loss = 0.1 + 0.2,  // not exactly representable in decimal: must round-trip all 17 digits
          .rng_state = kd::default_generator().get_state(), .extra = {{"note", "hello, world"}}};
}

}  // namespace

TEST_CASE("checkpoint: save then load restores every field") {
  TempDir dir;
  kd::manual_seed(1);
  SmallNet model;
  optim::Adam opt(model.parameters());
  optim::StepLR sched(opt, 1, 0.5);
  const auto c = trained_checkpoint(model, opt, sched);
  train::save_checkpoint(c, dir / "ckpt.safetensors");
  const auto r = train::load_checkpoint(dir / "ckpt.safetensors");
  CHECK(r.epoch == 3);
  CHECK(r.loss == 0.1 + 0.2);
  CHECK(r.rng_state == c.rng_state);
  CHECK(r.scheduler == c.scheduler);
  CHECK(r.extra.at("note") == "hello, world");
  REQUIRE(r.model.size() == c.model.size());
  for (const auto& [name, t] : c.model) {
    CHECK(r.model.at(name).to_vector<float>() == t.contiguous().to_vector<float>());
  }
  REQUIRE(r.optimizer.size() == c.optimizer.size());
  for (const auto& [name, t] : c.optimizer) {
    INFO(name);
    CHECK(r.optimizer.at(name).dtype() == t.dtype());
    CHECK(r.optimizer.at(name).to_vector<double>() == t.to_vector<double>());
  }
}

TEST_CASE("checkpoint: a corrupted file is refused with an error naming it") {
  TempDir dir;
  kd::manual_seed(1);
  SmallNet model;
  optim::Adam opt(model.parameters());
  optim::StepLR sched(opt, 1);
  const std::string path = dir / "ckpt.safetensors";
  train::save_checkpoint(trained_checkpoint(model, opt, sched), path);
  const std::string good = read_bytes(path);

  write_bytes(path, good.substr(0, good.size() - 100));  // truncated: the data is short
  CHECK_THROWS_AS(train::load_checkpoint(path), kd::IOError);
  CHECK_THROWS_WITH(train::load_checkpoint(path), Contains(path));

  std::string bad_header = good;
  bad_header[12] = '\x01';  // garbage inside the JSON header
  write_bytes(path, bad_header);
  CHECK_THROWS_AS(train::load_checkpoint(path), kd::IOError);

  write_bytes(path, "not a checkpoint");
  CHECK_THROWS_WITH(train::load_checkpoint(path), Contains(path));

  CHECK_THROWS_WITH(train::load_checkpoint(dir / "missing.safetensors"), Contains("missing.safetensors"));
}

TEST_CASE("checkpoint: a plain state dict is not mistaken for a checkpoint") {
  TempDir dir;
  SmallNet model;
  kd::save(model.state_dict(), dir / "weights.safetensors");
  CHECK_THROWS_WITH(train::load_checkpoint(dir / "weights.safetensors"),
                    Contains("not a Kindling checkpoint") && Contains("kd::load"));
}

TEST_CASE("checkpoint: a save that fails half-way leaves the previous file intact") {
  TempDir dir;
  kd::manual_seed(1);
  SmallNet model;
  optim::Adam opt(model.parameters());
  optim::StepLR sched(opt, 1);
  const std::string path = dir / "ckpt.safetensors";
  train::save_checkpoint(trained_checkpoint(model, opt, sched), path);
  const std::string before = read_bytes(path);
  REQUIRE(before.size() > 4096);

  // Make the next write fail in the middle: a file-size limit below the checkpoint's size turns the
  // write() that crosses it into EFBIG (SIGXFSZ ignored), exactly like a full disk.
  auto next = trained_checkpoint(model, opt, sched);
  rlimit old{};
  REQUIRE(getrlimit(RLIMIT_FSIZE, &old) == 0);
  auto old_handler = std::signal(SIGXFSZ, SIG_IGN);
  rlimit small = old;
  small.rlim_cur = 2048;
  REQUIRE(setrlimit(RLIMIT_FSIZE, &small) == 0);
  bool threw = false;
  std::string message;
  try {
    train::save_checkpoint(next, path);
  } catch (const kd::IOError& e) {
    threw = true;
    message = e.what();
  }
  setrlimit(RLIMIT_FSIZE, &old);
  std::signal(SIGXFSZ, old_handler);
  CHECK(threw);
  CHECK_THAT(message, Contains(path));
  CHECK(read_bytes(path) == before);  // the old checkpoint, byte for byte
  CHECK_NOTHROW(train::load_checkpoint(path));
  std::size_t files = 0;  // and no temporary file left behind
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir.path)) ++files;
  CHECK(files == 1);
}

// ---- resuming -------------------------------------------------------------------------------------

namespace {

struct Run {
  SmallNet model;
  optim::Adam opt{model.parameters(), {.lr = 1e-2}};
  optim::StepLR sched{opt, 2, 0.5};
};

// One epoch over a shuffled loader (the order and the Dropout masks come from the default generator).
template <class Loader>
void train_epoch(Run& r, Loader& loader, std::vector<float>& losses) {
  r.model.train();
  kd::nn::CrossEntropyLoss criterion;
  for (auto& [x, y] : loader) {
    r.opt.zero_grad();
    kd::Tensor loss = criterion(r.model(x), y);
    loss.backward();
    r.opt.step();
    losses.push_back(loss.item<float>());
  }
  r.sched.step();
}

}  // namespace

TEST_CASE("checkpoint: training k epochs, saving, reloading into fresh objects and continuing is bit-identical") {
  TempDir dir;
  const int epochs = 5, k = 2;
  auto data = kdtest::make_dataset();

  // Straight through.
  kd::manual_seed(123);
  std::vector<float> straight_losses;
  std::vector<std::vector<float>> straight_weights;
  {
    Run r;
    kd::data::DataLoader loader(data, {.batch_size = 16, .shuffle = true});
    for (int e = 0; e < epochs; ++e) train_epoch(r, loader, straight_losses);
    straight_weights = kdtest::snapshot(r.model);
  }

  // k epochs, checkpoint, everything destroyed.
  kd::manual_seed(123);
  std::vector<float> resumed_losses;
  {
    Run r;
    kd::data::DataLoader loader(data, {.batch_size = 16, .shuffle = true});
    for (int e = 0; e < k; ++e) train_epoch(r, loader, resumed_losses);
    train::save_checkpoint({.model = r.model.state_dict(), .optimizer = r.opt.state_dict(),
                            .scheduler = r.sched.state_dict(), .epoch = k, .loss = resumed_losses.back(),
                            .rng_state = kd::default_generator().get_state()},
                           dir / "ckpt.safetensors");
  }
  // A fresh process would start with other random numbers: scramble the generator on purpose.
  kd::manual_seed(999);
  {
    Run r;  // fresh weights, fresh optimizer state
    kd::data::DataLoader loader(data, {.batch_size = 16, .shuffle = true});
    const auto c = train::load_checkpoint(dir / "ckpt.safetensors");
    r.model.load_state_dict(c.model);
    r.opt.load_state_dict(c.optimizer);
    r.sched.load_state_dict(c.scheduler);
    kd::default_generator().set_state(c.rng_state);
    REQUIRE(c.epoch == k);
    CHECK(r.opt.lr() == Approx(1e-2 * 0.5));  // StepLR(2, 0.5) after 2 epochs: restored, not 1e-2
    for (int e = static_cast<int>(c.epoch); e < epochs; ++e) train_epoch(r, loader, resumed_losses);
    REQUIRE(resumed_losses.size() == straight_losses.size());
    for (std::size_t i = 0; i < straight_losses.size(); ++i) {
      INFO("step " << i);
      CHECK(resumed_losses[i] == straight_losses[i]);  // bit-identical, not approximately
    }
    CHECK(kdtest::snapshot(r.model) == straight_weights);
  }
}

TEST_CASE("checkpoint: resuming without the optimizer state diverges (the test can tell)") {
  // The same protocol as above but "forgetting" Adam's buffers: the losses must differ, which shows
  // the bit-identical comparison above is not vacuous.
  TempDir dir;
  auto data = kdtest::make_dataset();
  kd::manual_seed(123);
  std::vector<float> straight, resumed;
  {
    Run r;
    kd::data::DataLoader loader(data, {.batch_size = 16, .shuffle = true});
    for (int e = 0; e < 3; ++e) train_epoch(r, loader, straight);
  }
  kd::manual_seed(123);
  kd::StateDict weights;
  std::string rng;
  {
    Run r;
    kd::data::DataLoader loader(data, {.batch_size = 16, .shuffle = true});
    train_epoch(r, loader, resumed);
    for (const auto& [n, t] : r.model.state_dict()) weights.insert(n, t.clone());
    rng = kd::default_generator().get_state();
  }
  Run r;
  kd::data::DataLoader loader(data, {.batch_size = 16, .shuffle = true});
  r.model.load_state_dict(weights);
  kd::default_generator().set_state(rng);
  for (int e = 1; e < 3; ++e) train_epoch(r, loader, resumed);
  CHECK(resumed != straight);
}
