// Chapter 8's milestone: your kernels on the emulated device, on the checker's data. Each of the
// chapter's pieces runs once on inputs milestone.py drew for this run (shapes that are not multiples
// of a block or a tile, values that overflow a softmax without its maximum), with every emulator check
// on: an index outside a buffer, a barrier some threads skip or a race stops the program. The program
// writes what each produced, and the emulator's record of the tiled matmul's launch; the checker
// computes the answers itself (numpy) and bounds the matmul's global-memory reads: a tiled kernel
// reads each element of a and b once per tile it serves, a sixteenth of what a naive kernel reads.
//
//   milestone_ch08 IN_DIR OUT_DIR   (IN_DIR: the checker's *.npy; writes OUT_DIR/<name>.npy)
#include "milestone_main.hpp"
#include <kindling/cuda.hpp>
#include <kindling/cuda/emulator.hpp>
#include <kindling/cuda/kernels.hpp>
#include <kindling/kindling.hpp>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

namespace kd = kindling;
namespace kc = kindling::cuda;
namespace emu = kindling::cuda::emulated;

namespace {

std::int64_t numel_of(const kd::Shape& shape) {
  std::int64_t n = 1;
  for (std::int64_t s : shape) n *= s;
  return n;
}

/// Elements of t's storage from its first element on: what a kernel may read through t's strides.
std::int64_t readable(const kd::Tensor& t) {
  return static_cast<std::int64_t>(t.storage()->nbytes() / t.element_size()) - t.storage_offset();
}

}  // namespace

int run(const std::string& in, const std::string& out);
int main(int argc, char** argv) { return milestone::main_of(argc, argv, run); }

int run(const std::string& in, const std::string& out) {
  auto load = [&](const char* name) { return kd::load_npy(in + "/" + name + ".npy", kd::kFloat32); };
  auto save = [&](const std::vector<float>& v, const kd::Shape& shape, const std::string& name) {
    kd::save_npy(kd::tensor(v, shape), out + "/" + name + ".npy");
  };

  // ex1: x.t() op y, y broadcast along the rows: x read through transposed strides, y through stride 0.
  {
    const kd::Tensor x = load("binary_x"), y = load("binary_y");  // [R, C], [R]
    const auto op = static_cast<kc::BinaryOp>(static_cast<int>(kd::load_npy(in + "/binary_op.npy", kd::kInt64).item<std::int64_t>()));
    const kd::Tensor xt = x.t();  // [C, R]
    const kd::Shape shape = xt.shape();
    kc::BinaryLayout L;
    L.ndim = 2;
    const kd::Tensor ea = xt.expand(shape), eb = y.expand(shape);
    for (int d = 0; d < 2; ++d) {
      L.sizes[d] = shape[static_cast<std::size_t>(d)];
      L.a_strides[d] = ea.stride(d);
      L.b_strides[d] = eb.stride(d);
    }
    std::vector<float> z(static_cast<std::size_t>(numel_of(shape)), NAN);
    emu::binary(op, xt.data_ptr<float>(), readable(xt), y.data_ptr<float>(), readable(y), z.data(), numel_of(shape), L);
    save(z, shape, "binary");
  }
  // ex2: the sum of a vector, a tree in shared memory.
  {
    const kd::Tensor v = load("sum_x");
    std::vector<float> s(1, 0.0f);
    emu::sum_v1(v.data_ptr<float>(), v.numel(), s.data());
    save(s, {1}, "sum");
  }
  // ex3: the tiled matmul, and its launch as the emulator recorded it.
  {
    const kd::Tensor a = load("matmul_a"), b = load("matmul_b");
    const int M = static_cast<int>(a.size(0)), K = static_cast<int>(a.size(1)), N = static_cast<int>(b.size(1));
    std::vector<float> c(static_cast<std::size_t>(M) * static_cast<std::size_t>(N), NAN);
    kc::emu::clear_launch_log();
    emu::matmul_v2(a.data_ptr<float>(), b.data_ptr<float>(), c.data(), M, N, K);
    const auto log = kc::emu::launch_log();
    save(c, {M, N}, "matmul");
    std::vector<double> rec;
    for (const auto& r : log) {
      rec.insert(rec.end(), {static_cast<double>(r.global_reads), static_cast<double>(r.barriers),
                             static_cast<double>(r.shared_bytes), static_cast<double>(r.threads)});
    }
    kd::save_npy(kd::tensor(rec, {static_cast<std::int64_t>(log.size()), 4}), out + "/matmul_launches.npy");
  }
  // ex4: softmax over the rows of logits large enough to overflow exp.
  {
    const kd::Tensor x = load("softmax_x");
    const int rows = static_cast<int>(x.size(0)), cols = static_cast<int>(x.size(1));
    std::vector<float> y(static_cast<std::size_t>(x.numel()), NAN);
    emu::softmax_rows(x.data_ptr<float>(), y.data(), rows, cols);
    save(y, {rows, cols}, "softmax");
  }
  // ex5: a strided view of a tensor on the emulated device, back to the host with cpu().
  {
    if (!kc::is_emulated()) kc::use_emulated_device();
    const kd::Tensor d = load("copy_x").to(kd::Device::parse("cuda"));  // [R, C]
    const auto step = kd::load_npy(in + "/copy_step.npy", kd::kInt64).item<std::int64_t>();
    // x[1::step, 1:].t(): an offset, steps and a transpose. The offset matters to the check: a copy one
    // element short reads past its staging buffer, and a buffer the allocator hands back may still hold
    // this tensor's data from the copy to the device -- at the same positions only if there is no offset.
    kd::save_npy(d.slice(0, 1, d.size(0), step).slice(1, 1, d.size(1)).t().cpu(), out + "/copy.npy");
  }
  std::printf("every kernel ran on the emulated device; results written to %s\n", out.c_str());
  return 0;
}
