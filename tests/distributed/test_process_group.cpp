// The process group in a world of one process (the program started without mpirun): every
// collective runs through MPI and leaves the values a world of one gives, and bad arguments get
// their message before anything is queued. tests/distributed/mpi/ runs the same under mpirun.
#include <catch2/catch.hpp>

#include <kindling/distributed.hpp>
#include <kindling/nn.hpp>
#include <kindling/tensor.hpp>

namespace kd = kindling;
namespace dist = kindling::distributed;

namespace {
void ensure_init() {
  if (!dist::is_initialized()) dist::init_process_group();
}
}  // namespace

TEST_CASE("process group: without mpirun the world is one process") {
  ensure_init();
  CHECK(dist::get_rank() == 0);
  CHECK(dist::get_world_size() == 1);
  CHECK_THROWS_WITH(dist::init_process_group(), Catch::Contains("already initialised"));
  CHECK_THROWS_WITH(dist::init_process_group({.backend = "nccl"}), Catch::Contains("backend 'nccl'"));
}

TEST_CASE("process group: collectives in a world of one on every dtype sync and async") {
  ensure_init();
  for (kd::DType d : {kd::kFloat32, kd::kFloat64, kd::kBFloat16, kd::kInt64}) {
    kd::Tensor t = kd::arange(0, 7).to(d);
    const kd::Tensor before = t.clone();
    dist::all_reduce(t, dist::ReduceOp::SUM);
    CHECK(kd::equal(t, before));
    dist::all_reduce(t, dist::ReduceOp::MAX, /*async_op=*/true).wait();
    CHECK(kd::equal(t, before));
    dist::broadcast(t, 0);
    CHECK(kd::equal(t, before));
    std::vector<kd::Tensor> outs{kd::zeros({7}, {.dtype = d})};
    dist::all_gather(outs, t);
    CHECK(kd::equal(outs[0], before));
    kd::Tensor out = kd::zeros({7}, {.dtype = d});
    dist::reduce_scatter_tensor(out, t).wait();
    CHECK(kd::equal(out, before));
  }
  kd::Tensor f = kd::ones({3});
  dist::Work w = dist::all_reduce(f, dist::ReduceOp::AVG, true);
  w.wait();
  CHECK(w.is_completed());
  CHECK(kd::equal(f, kd::ones({3})));
  dist::barrier();
}

TEST_CASE("process group: bad tensors are refused with their reason") {
  ensure_init();
  kd::Tensor m = kd::ones({3, 4});
  CHECK_THROWS_WITH(dist::all_reduce(m.t()), Catch::Contains("not contiguous") && Catch::Contains("contiguous()"));
  CHECK_THROWS_WITH(dist::all_reduce(kd::ones({2}, {.dtype = kd::kUInt8})),
                    Catch::Contains("uint8") && Catch::Contains("float32, float64, bfloat16 or int64"));
  CHECK_THROWS_WITH(dist::all_reduce(kd::ones({2}, {.dtype = kd::kInt64}), dist::ReduceOp::AVG),
                    Catch::Contains("AVG of an int64"));
  CHECK_THROWS_WITH(dist::broadcast(m, 1), Catch::Contains("src 1 is not a rank"));
  std::vector<kd::Tensor> two{kd::zeros({3, 4}), kd::zeros({3, 4})};
  CHECK_THROWS_WITH(dist::all_gather(two, m), Catch::Contains("2 output tensors for a world of 1"));
  CHECK_THROWS_WITH(dist::all_gather_into_tensor(kd::zeros({5}), m), Catch::Contains("world_size (1) x 12"));
  CHECK_THROWS_WITH(dist::all_reduce(kd::Tensor()), Catch::Contains("undefined"));
}

namespace {
struct TwoLayers : kd::nn::Module {
  kd::nn::Linear fc1{4, 3};
  kd::nn::Linear fc2{3, 2};
  TwoLayers() {
    register_module("fc1", fc1);
    register_module("fc2", fc2);
  }
  kd::Tensor forward(const kd::Tensor& x) override { return fc2(fc1(x)); }
};
}  // namespace

TEST_CASE("DistributedDataParallel: a world of one keeps the gradients and names an unused parameter") {
  ensure_init();
  TwoLayers net;
  dist::DistributedDataParallel ddp(net, {.bucket_cap_mb = 1e-5, .first_bucket_mb = 1e-5});
  // 10-byte buckets: fc2.bias (8 bytes, the last registered) is not enough, fc2.weight closes it.
  CHECK(ddp.bucket_indices().front() == std::vector<std::size_t>{3, 2});
  CHECK(ddp.bucket_indices().size() == 3);
  const kd::Tensor x = kd::randn({5, 4});
  ddp(x).sum().backward();
  std::vector<kd::Tensor> got;
  for (const auto& p : net.parameters()) got.push_back(p.grad().clone());
  net.zero_grad();
  net(x).sum().backward();
  const auto params = net.parameters();
  for (std::size_t i = 0; i < params.size(); ++i) CHECK(kd::allclose(got[i], params[i].grad()));
  // fc1 unused: its buckets never complete, and the next forward says which parameters.
  net.zero_grad();
  ddp(x);
  net.fc2(kd::randn({5, 3})).sum().backward();
  CHECK_THROWS_WITH(ddp(x), Catch::Contains("parameter(s) 0, 1"));
}
