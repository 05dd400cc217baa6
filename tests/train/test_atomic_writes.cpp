// Writes that never lose data. Every saver (save_npy, kd::save, save_checkpoint, save_png, the
// training log) writes a unique temporary file, checks every write, fsyncs and renames. So: a full
// disk throws and keeps the previous file byte for byte; a writer killed with kill -9 mid-save leaves
// the previous checkpoint loadable, and the next save removes the dead writer's temporary; two
// writers of one path never see each other's half-written file.
#include <catch2/catch.hpp>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <fstream>
#include <thread>

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

std::size_t files_in(const std::filesystem::path& dir) {
  return static_cast<std::size_t>(std::distance(std::filesystem::directory_iterator(dir), {}));
}

// Runs `save` with writes above `limit` bytes failing with EFBIG (SIGXFSZ ignored): a full disk.
std::string message_when_disk_full(std::size_t limit, const std::function<void()>& save) {
  rlimit old{};
  REQUIRE(getrlimit(RLIMIT_FSIZE, &old) == 0);
  auto old_handler = std::signal(SIGXFSZ, SIG_IGN);
  rlimit small = old;
  small.rlim_cur = limit;
  REQUIRE(setrlimit(RLIMIT_FSIZE, &small) == 0);
  std::string message = "no error";
  try {
    save();
  } catch (const kd::IOError& e) {
    message = e.what();
  }
  setrlimit(RLIMIT_FSIZE, &old);
  std::signal(SIGXFSZ, old_handler);
  return message;
}

kd::Tensor noise_image(std::int64_t h, std::int64_t w, std::uint64_t seed) {
  kd::Generator g(seed);
  return kd::randint(0, 256, {h, w, 3}, {.dtype = kd::kInt64}, &g).to(kd::kUInt8);
}

}  // namespace

TEST_CASE("atomic writes: a full disk throws and keeps the previous file of every saver") {
  TempDir dir;
  struct Saver {
    const char* name;
    std::string path;
    std::function<void(int)> save;  // version 0 is small, version 1 big enough to cross the limit
  };
  std::FILE* sink = std::fopen("/dev/null", "w");
  REQUIRE(sink);
  train::TrainingLog log;
  for (int e = 1; e <= 400; ++e) log.log({.epoch = e, .lr = 0.1, .train_loss = 1.0 / e}, sink);
  const std::vector<Saver> savers = {
      {"save_png", dir / "img.png", [&](int v) { kd::data::save_png(noise_image(v ? 64 : 4, 64, 1), dir / "img.png"); }},
      {"save_npy", dir / "t.npy", [&](int v) { kd::save_npy(kd::randn({v ? 4096 : 4}), dir / "t.npy"); }},
      {"safetensors", dir / "sd.safetensors", [&](int v) {
         kd::StateDict sd;
         sd.insert("w", kd::randn({v ? 4096 : 4}));
         kd::save(sd, dir / "sd.safetensors");
       }},
      {"TrainingLog", dir / "log.csv", [&](int v) {
         train::TrainingLog small;
         small.log({.epoch = 1, .lr = 0.1, .train_loss = 1}, sink);
         (v ? log : small).write_csv(dir / "log.csv");
       }},
  };
  for (const auto& s : savers) {
    INFO(s.name);
    s.save(0);
    const std::string before = read_bytes(s.path);
    REQUIRE(before.size() < 4096);
    const std::string m = message_when_disk_full(4096, [&] { s.save(1); });
    CHECK_THAT(m, Contains(s.path) && Contains("disk full"));
    CHECK(read_bytes(s.path) == before);  // the previous file, byte for byte
  }
  CHECK(files_in(dir.path) == savers.size());  // no temporary left behind
  std::fclose(sink);
}

TEST_CASE("atomic writes: kill -9 during checkpoint saves never loses the checkpoint, and leaves no litter") {
  TempDir dir;
  kd::manual_seed(3);
  SmallNet model;
  optim::Adam opt(model.parameters());
  optim::StepLR sched(opt, 1);
  const std::string path = dir / "ckpt.safetensors";
  // Two different checkpoints; a writer alternates them as fast as it can.
  std::vector<train::Checkpoint> states;
  for (int i = 0; i < 2; ++i) {
    kd::Tensor loss = kd::nn::CrossEntropyLoss()(model(kd::randn({8, 20})), kd::randint(0, 5, {8}));
    opt.zero_grad();
    loss.backward();
    opt.step();
    states.push_back({.model = model.state_dict(), .optimizer = opt.state_dict(), .epoch = i, .loss = 0.5 + i,
                      .rng_state = kd::default_generator().get_state()});
  }
  train::save_checkpoint(states[0], path);
  int leftovers_seen = 0;
  for (int trial = 0; trial < 25; ++trial) {
    const pid_t child = ::fork();
    REQUIRE(child >= 0);
    if (child == 0) {
      try {
        for (int i = 0;; ++i) train::save_checkpoint(states[i % 2], path);
      } catch (...) {
        ::_exit(1);
      }
    }
    std::this_thread::sleep_for(std::chrono::microseconds(500 + 731 * trial % 9000));
    ::kill(child, SIGKILL);
    int status = 0;
    ::waitpid(child, &status, 0);
    REQUIRE(WIFSIGNALED(status));
    const auto c = train::load_checkpoint(path);  // always one complete checkpoint
    CHECK((c.epoch == 0 || c.epoch == 1));
    CHECK(c.model.at("fc1.weight").to_vector<float>() ==
          states[static_cast<std::size_t>(c.epoch)].model.at("fc1.weight").contiguous().to_vector<float>());
    leftovers_seen += files_in(dir.path) > 1;
  }
  // Killed writers leave their temporary behind (that is what kill -9 does); the next save cleans up.
  INFO("trials that left a temporary: " << leftovers_seen);
  train::save_checkpoint(states[1], path);
  CHECK(files_in(dir.path) == 1);
  CHECK(train::load_checkpoint(path).epoch == 1);
}

TEST_CASE("atomic writes: two writers of one path never mix their files", "[threads]") {
  TempDir dir;
  const std::string path = dir / "shared.png";
  const kd::Tensor a = noise_image(32, 32, 1), b = noise_image(32, 32, 2);
  auto writer = [&](const kd::Tensor& img) {
    for (int i = 0; i < 30; ++i) kd::data::save_png(img, path);
  };
  std::thread t1(writer, a), t2(writer, b);
  t1.join();
  t2.join();
  const kd::Tensor back = kd::data::load_image(path);
  CHECK((kd::equal(back, a) || kd::equal(back, b)));
  CHECK(files_in(dir.path) == 1);
}

TEST_CASE("atomic writes: a directory or a missing folder as the target is a clear IOError") {
  TempDir dir;
  CHECK_THROWS_WITH(kd::data::save_png(noise_image(2, 2, 0), dir.path.string()), Contains("is a directory"));
  CHECK_THROWS_WITH(kd::data::save_png(noise_image(2, 2, 0), dir / "no/such/x.png"),
                    Contains("cannot create a temporary file") && Contains("x.png"));
  train::TrainingLog log;
  CHECK_THROWS_WITH(log.write_jsonl(dir.path.string()), Contains("is a directory"));
}
