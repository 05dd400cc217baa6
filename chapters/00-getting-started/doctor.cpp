// Chapter 0 — `kindling doctor`: is this machine ready for the book?
//
// The C++ counterpart of PyTorch's three-line check (torch.__version__,
// torch.cuda.is_available(), torch.cuda.get_device_name(0)), extended with what a C++
// build also depends on: which BLAS does the matrix products, where the data lives, and
// whether the PyTorch used by the tests is installed. Each line says "ok", "warn" or
// "FAIL", and what to do about anything that is not ok. Exit status: 1 when something
// the book's chapters need is missing (a GPU is never required).
#ifndef KINDLING_CUDA_TOOLKIT_VERSION  // set by chapters/CMakeLists.txt in a CUDA build
#define KINDLING_CUDA_TOOLKIT_VERSION 0
#endif
#include <kindling/tensor.hpp>
#include <kindling/tensor/autocast_mode.hpp>
#include <kindling/version.hpp>

#include <dlfcn.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

extern char** environ;  // POSIX: the environment, passed on to the child

namespace kd = kindling;
namespace fs = std::filesystem;

// [snippet: blas-decl]
// OpenBLAS's own introspection functions. They are plain C functions in libopenblas, so
// we declare them ourselves instead of depending on which cblas.h
// (pthread/openmp/serial) is installed.
extern "C" {
char* openblas_get_config(void);
char* openblas_get_corename(void);
int openblas_get_num_threads(void);
}
// [end]

namespace {

int failures = 0;

// One line of the report: status, what was checked, the finding, and (if not ok) what
// to do.
void report(const char* status, const std::string& what, const std::string& finding,
            const std::string& fix = "") {
  std::printf("  [%-4s] %-16s %s\n", status, what.c_str(), finding.c_str());
  if (!fix.empty()) std::printf("         %-16s -> %s\n", "", fix.c_str());
  if (std::string(status) == "FAIL") ++failures;
}

std::string env_or(const char* name, const char* fallback) {
  const char* value = std::getenv(name);
  return value ? value : fallback;
}

// [snippet: cuda-probe]
// Is a GPU visible? We ask the NVIDIA driver directly: libcuda.so.1 ships with the
// driver (not with the CUDA toolkit), so dlopen() finds it exactly when a driver is
// installed. No CUDA headers needed: the few functions we call take ints and char
// buffers, and CUresult 0 means success.
struct GpuInfo {
  bool driver_found = false;
  int driver_version = 0;  // e.g. 12040 = CUDA 12.4
  int device_count = 0;
  std::string name;     // of device 0
  std::string problem;  // why no GPU is usable, if none is
};

GpuInfo probe_gpu() {
  GpuInfo info;
  void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    info.problem = "no NVIDIA driver (libcuda.so.1 not found)";
    return info;
  }
  info.driver_found = true;
  using InitFn = int (*)(unsigned);
  using IntOutFn = int (*)(int*);
  using DeviceGetFn = int (*)(int*, int);
  using NameFn = int (*)(char*, int, int);
  auto cu_init = reinterpret_cast<InitFn>(dlsym(lib, "cuInit"));
  auto cu_driver_version = reinterpret_cast<IntOutFn>(dlsym(lib, "cuDriverGetVersion"));
  auto cu_count = reinterpret_cast<IntOutFn>(dlsym(lib, "cuDeviceGetCount"));
  auto cu_device = reinterpret_cast<DeviceGetFn>(dlsym(lib, "cuDeviceGet"));
  auto cu_name = reinterpret_cast<NameFn>(dlsym(lib, "cuDeviceGetName"));
  if (!cu_init || !cu_driver_version || !cu_count || !cu_device || !cu_name) {
    info.problem = "libcuda.so.1 lacks the driver API (broken driver install?)";
  } else if (int rc = cu_init(0); rc != 0) {
    info.problem = "cuInit failed with CUresult " + std::to_string(rc) +
                   " (driver/kernel module mismatch, or no device in this container)";
  } else {
    cu_driver_version(&info.driver_version);
    cu_count(&info.device_count);
    int device = 0;
    char name[256] = {};
    if (info.device_count > 0 && cu_device(&device, 0) == 0 &&
        cu_name(name, sizeof name, device) == 0)
      info.name = name;
  }
  dlclose(lib);
  return info;
}
// [end]

// 12040 -> "12.4": how CUDA writes its versions as numbers.
std::string cuda_version(int v) {
  return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10);
}

// Runs a program (no shell: argv[0] is an absolute path) and returns the first line it
// prints ("" if it could not run or failed). Its stderr goes to /dev/null.
std::string first_line_of(std::vector<std::string> argv) {
  int fds[2];
  if (pipe(fds) != 0) return "";
  // Close-on-exec: the child gets the pipe only as its stdout (pipe2 is Linux-only).
  fcntl(fds[0], F_SETFD, FD_CLOEXEC);
  fcntl(fds[1], F_SETFD, FD_CLOEXEC);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
  std::vector<char*> args;
  for (std::string& a : argv) args.push_back(a.data());
  args.push_back(nullptr);
  pid_t pid = -1;
  const int spawned =
      posix_spawn(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(fds[1]);
  std::string out;
  char buffer[512];
  ssize_t n;
  while (spawned == 0 && out.size() < 4096 &&
         (n = read(fds[0], buffer, sizeof buffer)) != 0) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    out.append(buffer, static_cast<std::size_t>(n));
  }
  close(fds[0]);  // a child still writing gets SIGPIPE instead of blocking
  int status = 0;
  if (spawned != 0) return "";
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return "";
  std::string line = out.substr(0, out.find('\n'));
  if (!line.empty() && line.back() == '\r') line.pop_back();
  return line;
}

}  // namespace

int main() {
  std::printf("Kindling doctor\n");

  // [snippet: version]
  // Like torch.__version__: the version this program was compiled against
  // (kindling/version.hpp).
  report("ok", "Kindling",
         std::string(KINDLING_VERSION) + " (" + KINDLING_BUILD_TYPE + " build)");
  // [end]

  // [snippet: blas]
  // Matrix products go to OpenBLAS. Its thread count comes from OPENBLAS_NUM_THREADS
  // (or the number of cores); the benchmarks pin it to 1 for a fair comparison.
  std::string blas =
      std::string(openblas_get_config()) + ", core " + openblas_get_corename();
  report("ok", "BLAS", blas);
  report("ok", "BLAS threads",
         std::to_string(openblas_get_num_threads()) +
             " (OPENBLAS_NUM_THREADS=" + env_or("OPENBLAS_NUM_THREADS", "unset") + ")");
  // [end]

  // The kernel of the bfloat16 products (chapter 6, mixed precision): oneDNN
  // where the CPU has bfloat16 instructions, else the float32 GEMM of the
  // widened operands.
  report("ok", "bf16 GEMM", kd::bfloat16_gemm_backend());

  // [snippet: cuda]
  // Like torch.cuda.is_available(): both "compiled with CUDA" and "a GPU is visible"
  // must hold.
  const bool cuda_built = KINDLING_HAVE_CUDA;
  GpuInfo gpu = probe_gpu();
  report("ok", "CUDA build",
         cuda_built ? "yes (compiled with CUDA support)" : "no (CPU-only build)",
         cuda_built ? ""
                    : "fine: every chapter runs on the CPU (the CUDA layer is built "
                      "when nvcc is in /usr/local/cuda)");
  if (gpu.device_count > 0) {
    report("ok", "GPU",
           gpu.name + " (" + std::to_string(gpu.device_count) +
               " visible, driver supports CUDA " + cuda_version(gpu.driver_version) +
               ")");
  } else {
    report("ok", "GPU",
           "none visible: " +
               (gpu.problem.empty() ? "the driver reports 0 devices" : gpu.problem),
           "not needed: every chapter runs on the CPU");
  }
  // A driver runs programs built with a CUDA toolkit up to its own CUDA version.
  const int toolkit = KINDLING_CUDA_TOOLKIT_VERSION;  // e.g. 13000, 0 without CUDA
  if (cuda_built && gpu.driver_found && gpu.driver_version < toolkit)
    report("warn", "CUDA driver",
           "supports CUDA " + cuda_version(gpu.driver_version) +
               ", but Kindling was built with CUDA " + cuda_version(toolkit) +
               " (the toolkit is too new for the driver)",
           "update the NVIDIA driver, or configure with an older toolkit");
  // [end]

  // [snippet: dataset]
  // Chapters 4 and 5 train on Fashion-MNIST, installed by Debian's
  // dataset-fashion-mnist package.
  const fs::path data_dir = "/usr/share/datasets/fashion-mnist";
  int present = 0;
  for (const char* file : {"train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz",
                           "t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz"})
    present += fs::exists(data_dir / file) ? 1 : 0;
  if (present == 4)
    report("ok", "Fashion-MNIST", data_dir.string() + " (4 of 4 files)");
  else
    report("FAIL", "Fashion-MNIST",
           data_dir.string() + " has " + std::to_string(present) + " of 4 files",
           "sudo apt-get install dataset-fashion-mnist   (or: make deps)");
  // [end]

  // The tests compare every op with real PyTorch, run by Debian's /usr/bin/python3.
  // -I (isolated): neither the current folder nor PYTHON* variables are on its import
  // path, so a torch.py where the doctor happens to run is never executed.
  std::string torch = first_line_of(
      {"/usr/bin/python3", "-I", "-c", "import torch; print(torch.__version__)"});
  if (!torch.empty())
    report("ok", "PyTorch oracle",
           "torch " + torch + " in /usr/bin/python3 (used by the tests)");
  else
    report("warn", "PyTorch oracle", "/usr/bin/python3 cannot import torch",
           "sudo apt-get install python3-torch   (only `make test` needs it)");

  // [snippet: first-tensor]
  // Finally, the library itself: make a tensor and print it, like
  // torch.arange(6).reshape(2, 3).
  kd::Tensor x = kd::arange(6).reshape({2, 3});  // x: [2, 3], int64
  std::cout << "\n  x = kd::arange(6).reshape({2, 3}):\n" << x << "\n";
  // [end]

  std::printf("\n%s\n", failures == 0
                            ? "All set: start reading chapter 1."
                            : "Fix the FAIL lines above, then run the doctor again.");
  return failures == 0 ? 0 : 1;
}
