// The data scan: one pass, per-channel running sums in double, a 64-bit FNV-1a hash of each
// sample's bytes to find duplicates (a hit is confirmed by fetching the earlier sample again and
// comparing bytes, so a collision is not a duplicate and no sample is kept in memory).
#include "kindling/debug/data_scan.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <unordered_map>

namespace kindling::debug {

namespace {

std::uint64_t fnv1a(const void* data, std::size_t n) {
  const auto* p = static_cast<const unsigned char*>(data);
  std::uint64_t h = 1469598103934665603ull;
  for (std::size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 1099511628211ull;
  return h;
}

std::string fmt(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

struct Acc {
  double min = std::numeric_limits<double>::infinity(), max = -std::numeric_limits<double>::infinity();
  double sum = 0, sq = 0;
  std::int64_t n = 0;
};

}  // namespace

namespace detail {

DataScanReport scan_examples(std::int64_t size, const std::function<data::Example(std::int64_t)>& get,
                             const DataScanOptions& options) {
  DataScanReport r;
  const std::int64_t n = options.max_samples >= 0 ? std::min(size, options.max_samples) : size;
  r.samples = n;
  std::vector<Acc> acc;
  std::unordered_map<std::uint64_t, std::vector<std::int64_t>> seen;  // hash -> sample indices
  double lmin = std::numeric_limits<double>::infinity(), lmax = -lmin;
  for (std::int64_t i = 0; i < n; ++i) {
    data::Example ex = get(i);
    if (!ex.data.defined()) throw ValueError("scan: sample " + std::to_string(i) + " has no data.");
    Tensor x = ex.data.contiguous();
    if (i == 0) {
      r.sample_shape = x.shape();
      r.dtype = x.dtype();
      acc.resize(x.dim() >= 2 ? static_cast<std::size_t>(x.size(0)) : 1);
    }
    // values, per channel
    Tensor d = x.dtype() == kFloat64 ? x : x.to(kFloat64);
    const double* v = d.data_ptr<double>();
    const std::int64_t numel = d.numel();
    const std::size_t channels = acc.size();
    const std::int64_t per = channels > 1 && x.dim() >= 2 && x.size(0) == static_cast<std::int64_t>(channels)
                                 ? numel / static_cast<std::int64_t>(channels) : numel;
    bool has_nan = false, has_inf = false;
    for (std::int64_t k = 0; k < numel; ++k) {
      const double e = v[k];
      if (std::isnan(e)) { has_nan = true; continue; }
      if (std::isinf(e)) { has_inf = true; continue; }
      Acc& a = acc[std::min<std::size_t>(static_cast<std::size_t>(per ? k / per : 0), channels - 1)];
      a.min = std::min(a.min, e);
      a.max = std::max(a.max, e);
      a.sum += e;
      a.sq += e * e;
      ++a.n;
    }
    if (has_nan) ++r.samples_with_nan;
    if (has_inf) ++r.samples_with_inf;
    if ((has_nan || has_inf) && r.first_bad.size() < 5) r.first_bad.push_back(i);
    // duplicates
    const std::uint64_t h = fnv1a(x.raw_data_ptr(), x.nbytes());
    auto& same = seen[h];
    bool dup = false;
    for (std::int64_t j : same) {  // a hash hit: fetch the earlier sample again and compare bytes
      const Tensor other = get(j).data.contiguous();
      if (other.shape() == x.shape() && other.dtype() == x.dtype() &&
          std::memcmp(other.raw_data_ptr(), x.raw_data_ptr(), x.nbytes()) == 0) {
        ++r.duplicates;
        if (r.duplicate_pairs.size() < 5) r.duplicate_pairs.push_back({j, i});
        dup = true;
        break;
      }
    }
    if (!dup) same.push_back(i);
    // labels
    std::string target_text = "-";
    if (ex.target.defined() && ex.target.numel() == 1) {
      const double t = ex.target.to(kFloat64).item<double>();
      target_text = fmt(t);
      lmin = std::min(lmin, t);
      lmax = std::max(lmax, t);
      if (ex.target.is_floating_point() && t != std::floor(t)) r.integer_labels = false;
      if (r.integer_labels && t >= 0 && t < 1e7) {
        const auto c = static_cast<std::size_t>(t);
        if (r.class_counts.size() <= c) r.class_counts.resize(c + 1, 0);
        ++r.class_counts[c];
      }
    } else if (ex.target.defined()) {
      r.integer_labels = false;
      target_text = "tensor" + shape_str(ex.target.shape());
    }
    // the first few samples, as a person would look at them
    if (static_cast<std::int64_t>(r.shown.size()) < options.show) {
      SampleSummary s{i, x.shape(), 0, 0, 0, target_text};
      double lo = std::numeric_limits<double>::infinity(), hi = -lo, sum = 0;
      for (std::int64_t k = 0; k < numel; ++k) {
        lo = std::min(lo, v[k]);
        hi = std::max(hi, v[k]);
        sum += v[k];
      }
      s.min = lo, s.max = hi, s.mean = numel ? sum / static_cast<double>(numel) : 0;
      r.shown.push_back(s);
    }
  }
  for (const Acc& a : acc) {
    ChannelStats c;
    if (a.n) {
      c.min = a.min, c.max = a.max, c.mean = a.sum / static_cast<double>(a.n);
      c.std = std::sqrt(std::max(0.0, a.sq / static_cast<double>(a.n) - c.mean * c.mean));
    }
    r.channels.push_back(c);
  }
  if (lmin <= lmax) r.label_min = lmin, r.label_max = lmax;
  if (!r.integer_labels) r.class_counts.clear();

  // ---- what looks wrong --------------------------------------------------------------------------
  auto& p = r.problems;
  if (r.samples_with_nan || r.samples_with_inf) {
    p.push_back(std::to_string(r.samples_with_nan) + " samples hold NaN and " + std::to_string(r.samples_with_inf) +
                " hold Inf (first at index " + std::to_string(r.first_bad.front()) +
                "): the loss will turn NaN. Fix: clean or drop them before training (or impute).");
  }
  for (std::size_t c = 0; c < r.channels.size(); ++c) {
    const ChannelStats& s = r.channels[c];
    if (std::max(std::abs(s.min), std::abs(s.max)) > 50) {
      p.push_back("channel " + std::to_string(c) + " spans [" + fmt(s.min) + ", " + fmt(s.max) +
                  "]: the inputs are not scaled. Fix: ToTensor (to [0, 1]) and Normalize(mean, std).");
    } else if (r.samples > 1 && s.std == 0) {
      p.push_back("channel " + std::to_string(c) + " is constant (" + fmt(s.min) +
                  "): the model cannot learn from it. Fix: check the loading and the transforms.");
    }
  }
  if (r.integer_labels && r.samples > 0) {
    if (options.num_classes > 0 && (r.label_min < 0 || r.label_max >= static_cast<double>(options.num_classes))) {
      p.push_back("labels span [" + fmt(r.label_min) + ", " + fmt(r.label_max) + "] but there are " +
                  std::to_string(options.num_classes) + " classes [0, " + std::to_string(options.num_classes - 1) +
                  "]: off by one? Fix: labels must start at 0 (subtract 1 from 1-based labels).");
    }
    const std::size_t k = options.num_classes > 0 ? static_cast<std::size_t>(options.num_classes) : r.class_counts.size();
    std::int64_t lo = std::numeric_limits<std::int64_t>::max(), hi = 0;
    std::vector<std::size_t> empty;
    for (std::size_t c = 0; c < k; ++c) {
      const std::int64_t cnt = c < r.class_counts.size() ? r.class_counts[c] : 0;
      if (cnt == 0) empty.push_back(c);
      else lo = std::min(lo, cnt);
      hi = std::max(hi, cnt);
    }
    if (!empty.empty() && r.label_min >= 0) {
      std::string list;
      for (std::size_t c : empty) list += (list.empty() ? "" : ", ") + std::to_string(c);
      p.push_back("classes without a sample: " + list + ". Fix: check the labels (or the subset you took).");
    }
    if (lo != std::numeric_limits<std::int64_t>::max() && static_cast<double>(hi) > options.imbalance_ratio * static_cast<double>(lo)) {
      p.push_back("classes are imbalanced: the largest has " + std::to_string(hi) + " samples, the smallest " +
                  std::to_string(lo) + ". Fix: weight the loss (CrossEntropyLoss weight) or resample.");
    }
  }
  if (r.duplicates > 0) {
    p.push_back(std::to_string(r.duplicates) + " samples duplicate an earlier one (first: " +
                std::to_string(r.duplicate_pairs.front().second) + " = " +
                std::to_string(r.duplicate_pairs.front().first) +
                "). Fix: deduplicate, and make sure no sample sits in both train and validation.");
  }
  return r;
}

}  // namespace detail

std::string DataScanReport::to_string() const {
  std::string out = "scanned " + std::to_string(samples) + " samples of shape " + shape_str(sample_shape) + ", " +
                    dtype_name(dtype) + "\n";
  out += "NaN in " + std::to_string(samples_with_nan) + " samples, Inf in " + std::to_string(samples_with_inf) + "\n";
  for (std::size_t c = 0; c < channels.size(); ++c) {
    const ChannelStats& s = channels[c];
    out += "channel " + std::to_string(c) + ": min " + fmt(s.min) + "  max " + fmt(s.max) + "  mean " + fmt(s.mean) +
           "  std " + fmt(s.std) + "\n";
  }
  out += "labels: [" + fmt(label_min) + ", " + fmt(label_max) + "]";
  if (!class_counts.empty()) {
    out += ", per class:";
    for (auto c : class_counts) out += " " + std::to_string(c);
  }
  out += "\nduplicates: " + std::to_string(duplicates) + "\n";
  for (const SampleSummary& s : shown) {
    out += "  sample " + std::to_string(s.index) + ": " + shape_str(s.shape) + " min " + fmt(s.min) + " max " +
           fmt(s.max) + " mean " + fmt(s.mean) + " label " + s.target + "\n";
  }
  if (problems.empty()) return out + "no problems found\n";
  for (const std::string& p : problems) out += "PROBLEM: " + p + "\n";
  return out;
}

}  // namespace kindling::debug
