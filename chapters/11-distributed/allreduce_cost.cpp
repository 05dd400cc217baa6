// What an all-reduce costs: kd::distributed::all_reduce of float32 tensors from 4 bytes
// to 64 MiB, timed on every rank, and the ring model's two numbers -- a latency per
// step and a bandwidth -- fitted to the times. Writes ch11_allreduce_np<N>.csv for the
// chapter's figure.
//   mpirun -np 2 build/chapters/ch11_allreduce_cost
// The book runs it on 2 ranks, then on 4 (more ranks than this machine has cores).
// book: mpirun 2 4
// book: timeout 300
#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>

#include "common.hpp"

namespace {

double now() {
  using clock = std::chrono::steady_clock;
  return std::chrono::duration<double>(clock::now().time_since_epoch()).count();
}

double quantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  const double at = q * static_cast<double>(v.size() - 1);
  const auto lo = static_cast<std::size_t>(at);
  const std::size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (at - static_cast<double>(lo)) * (v[hi] - v[lo]);
}

}  // namespace

int main() {
  dist::init_process_group();
  const int rank = dist::get_rank(), world = dist::get_world_size();

  // [snippet: measure]
  std::vector<kd::Tensor> tensors;  // 4 B .. 64 MiB of float32, x4 each time
  for (std::int64_t n = 1; n <= (std::int64_t{1} << 24); n *= 4)
    tensors.push_back(kd::ones({n}));
  const int reps = 25;
  std::vector<std::vector<double>> mine(tensors.size());  // mine[size][repetition]
  for (int rep = -2; rep < reps; ++rep) {                 // two rounds to warm up
    for (std::size_t s = 0; s < tensors.size(); ++s) {    // every size in each round
      dist::barrier();                                    // start together
      const double t0 = now();
      dist::all_reduce(tensors[s]);
      if (rep >= 0) mine[s].push_back(now() - t0);
    }
  }
  std::vector<double> sizes, medians, lows, highs;
  for (std::size_t s = 0; s < tensors.size(); ++s) {
    // A collective takes as long as its slowest rank: each repetition's largest time.
    kd::Tensor times = kd::tensor(mine[s], {reps});  // float64
    dist::all_reduce(times, dist::ReduceOp::MAX);
    const double* p = times.data_ptr<double>();
    std::vector<double> slowest(p, p + reps);
    sizes.push_back(static_cast<double>(tensors[s].nbytes()));
    medians.push_back(quantile(slowest, 0.5));
    lows.push_back(quantile(slowest, 0.25));
    highs.push_back(quantile(slowest, 0.75));
  }
  // [end]

  // [snippet: fit]
  // time = a * bytes + b, a = 2(N-1)/N / bandwidth and b = 2(N-1) * latency, fitted by
  // least squares on the *relative* error (each size counts alike, 4 B as 64 MiB).
  double uu = 0, uv = 0, vv = 0, su = 0, sv = 0;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    const double u = sizes[i] / medians[i], v = 1 / medians[i];
    uu += u * u, uv += u * v, vv += v * v, su += u, sv += v;
  }
  const double det = uu * vv - uv * uv;
  double a = (su * vv - sv * uv) / det, b = (uu * sv - uv * su) / det;
  // A latency below 0 is the noise of a busy machine, not a property of
  // the link: then the best line through the origin (b = 0) is the fit.
  if (b < 0) a = su / uu, b = 0;
  const double steps = 2.0 * (world - 1);
  const double bandwidth = steps / world / a;  // bytes per second
  const double latency = b / steps;            // seconds per step
  // [end]

  if (rank == 0) {
    const std::string csv = "ch11_allreduce_np" + std::to_string(world) + ".csv";
    std::ofstream out(csv);
    out << "world,bytes,median_s,p25_s,p75_s,model_s\n";
    std::printf("all_reduce on %d ranks (median of the slowest rank's times):\n",
                world);
    std::printf("%10s %12s %12s\n", "bytes", "measured", "model");
    for (std::size_t i = 0; i < sizes.size(); ++i) {
      const double model = a * sizes[i] + b;
      out << world << "," << sizes[i] << "," << medians[i] << "," << lows[i] << ","
          << highs[i] << "," << model << "\n";
      std::printf("%10.0f %9.1f us %9.1f us\n", sizes[i], 1e6 * medians[i],
                  1e6 * model);
    }
    std::printf("fit on %d ranks: latency %.1f us per step, bandwidth %.2f GB/s\n",
                world, 1e6 * latency, bandwidth / 1e9);
    std::printf("wrote %s\n\n", csv.c_str());
  }
  dist::destroy_process_group();
  return 0;
}
