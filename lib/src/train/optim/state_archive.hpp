// One description of an optimizer's state serves both state_dict() and load_state_dict().
//
// Each optimizer lists its hyper-parameters and per-parameter buffers once, in two small functions
// templated on an "archive" (the pattern of serialization libraries): run with a StateWriter they
// fill an OptimizerState, run with a StateReader they read one back, with every check. The loops
// over groups and parameters -- numbered across groups, "group.0.lr", "state.3.exp_avg", as
// torch.optim numbers them -- are written once, in save_state() and load_state() below.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "kindling/optim/optimizer.hpp"
#include "kindling/tensor/error.hpp"

namespace kindling::optim::detail {

/// Writes into a state dict. Every entry is a copy: the dict does not alias the optimizer.
class StateWriter {
 public:
  static constexpr bool reading = false;
  StateWriter(OptimizerState& out, const char* optimizer) : out_(out), optimizer_(optimizer) {}
  void at(std::string prefix) { prefix_ = std::move(prefix); }

  void scalar(const char* key, double& v) { out_[prefix_ + key] = scalar_state(v); }
  void flag(const char* key, bool& v) { out_[prefix_ + key] = scalar_state(v ? 1.0 : 0.0); }
  void count(const char* key, std::int64_t& v) { out_[prefix_ + key] = scalar_state(static_cast<double>(v)); }
  /// A buffer that may not exist yet (state appears at the first step); returns whether it does.
  bool buffer(const char* key, Tensor& t, const Tensor& /*param*/) {
    if (t.defined()) out_[prefix_ + key] = t.clone();
    return t.defined();
  }
  /// A buffer that always exists once the optimizer does.
  void required_buffer(const char* key, Tensor& t, const Tensor& param) { buffer(key, t, param); }

 private:
  OptimizerState& out_;
  const char* optimizer_;
  std::string prefix_;
};

/// Reads from a state dict, checking each entry (read_scalar/read_count/read_buffer).
class StateReader {
 public:
  static constexpr bool reading = true;
  StateReader(const OptimizerState& in, const char* optimizer) : in_(in), optimizer_(optimizer) {}
  void at(std::string prefix) { prefix_ = std::move(prefix); }

  void scalar(const char* key, double& v) { v = read_scalar(in_, prefix_ + key, optimizer_); }
  void flag(const char* key, bool& v) { v = read_scalar(in_, prefix_ + key, optimizer_) != 0; }
  void count(const char* key, std::int64_t& v) { v = read_count(in_, prefix_ + key, optimizer_); }
  bool buffer(const char* key, Tensor& t, const Tensor& param) {
    t = read_buffer(in_, prefix_ + key, param, optimizer_);
    return t.defined();
  }
  void required_buffer(const char* key, Tensor& t, const Tensor& param) {
    if (!buffer(key, t, param)) {
      throw ValueError(std::string(optimizer_) + ".load_state_dict: missing \"" + prefix_ + key +
                       "\". Was this state saved by a different optimizer or parameter grouping?");
    }
  }

 private:
  const OptimizerState& in_;
  const char* optimizer_;
  std::string prefix_;
};

/// state_dict(): `group(archive, options)` for every group, `param(archive, state, parameter,
/// options)` for every parameter. Works on copies, so the optimizer itself stays const.
template <class Options, class State, class Group, class Param>
OptimizerState save_state(const std::vector<std::vector<Tensor>>& params, std::vector<Options> options,
                          std::vector<std::vector<State>> state, Group group, Param param, const char* optimizer) {
  OptimizerState out;
  StateWriter w(out, optimizer);
  std::size_t index = 0;
  for (std::size_t gi = 0; gi < params.size(); ++gi) {
    w.at("group." + std::to_string(gi) + ".");
    group(w, options[gi]);
    // How many parameters the group holds (torch.optim's param_groups[g]["params"]): the state
    // loads only into the same grouping.
    std::int64_t n = static_cast<std::int64_t>(params[gi].size());
    w.count("num_params", n);
    for (std::size_t i = 0; i < params[gi].size(); ++i, ++index) {
      w.at("state." + std::to_string(index) + ".");
      param(w, state[gi][i], params[gi][i], options[gi]);
    }
  }
  return out;
}

/// Refuses a state dict with entries for more groups ("group.<g>.") or more parameters
/// ("state.<i>.") than the optimizer has, as torch.optim refuses a different number of groups or
/// parameters: reading only the entries that fit would silently resume a different model's run.
inline void check_extent(const OptimizerState& in, std::size_t n_groups, std::size_t n_params,
                         const char* optimizer) {
  // The index after a "group." or "state." prefix, if the key has one ("group.3.lr" -> 3).
  auto index_after = [](const std::string& key, const std::string& prefix) -> std::optional<std::size_t> {
    if (key.compare(0, prefix.size(), prefix) != 0) return std::nullopt;
    std::size_t i = prefix.size(), value = 0;
    if (i >= key.size() || key[i] < '0' || key[i] > '9') return std::nullopt;
    for (; i < key.size() && key[i] >= '0' && key[i] <= '9'; ++i) {
      if (value > (std::numeric_limits<std::size_t>::max() - 9) / 10) return std::numeric_limits<std::size_t>::max();
      value = value * 10 + static_cast<std::size_t>(key[i] - '0');
    }
    return value;
  };
  std::size_t max_group = 0, max_param = 0;
  bool extra_group = false, extra_param = false;
  for (const auto& [key, value] : in) {
    if (auto g = index_after(key, "group."); g && *g >= n_groups) {
      extra_group = true;
      max_group = std::max(max_group, *g);
    }
    if (auto i = index_after(key, "state."); i && *i >= n_params) {
      extra_param = true;
      max_param = std::max(max_param, *i);
    }
  }
  if (extra_group) {
    throw ValueError(std::string(optimizer) + ".load_state_dict: loaded state dict has a different number of "
                     "parameter groups: it has entries for group " + std::to_string(max_group) +
                     ", this optimizer has " + std::to_string(n_groups) + " group(s). Hint: build the optimizer "
                     "with the same add_param_group calls as the one that saved the state.");
  }
  if (extra_param) {
    throw ValueError(std::string(optimizer) + ".load_state_dict: loaded state dict holds state for parameter " +
                     std::to_string(max_param) + " (counted across groups from 0), this optimizer has " +
                     std::to_string(n_params) + " parameter(s). Hint: it was saved by an optimizer of a different "
                     "model; build this one over the same parameters.");
  }
}

/// load_state_dict(): everything is read and checked into copies first (each group's options
/// through `validate`), so a bad entry leaves the optimizer exactly as it was.
template <class Options, class State, class Group, class Param, class Validate>
void load_state(const OptimizerState& in, const std::vector<std::vector<Tensor>>& params,
                std::vector<Options>& options, std::vector<std::vector<State>>& state, Group group, Param param,
                Validate validate, const char* optimizer) {
  std::size_t n_params = 0;
  for (const auto& g : params) n_params += g.size();
  check_extent(in, params.size(), n_params, optimizer);
  std::vector<Options> new_options = options;
  std::vector<std::vector<State>> new_state = state;
  StateReader r(in, optimizer);
  std::size_t index = 0;
  for (std::size_t gi = 0; gi < params.size(); ++gi) {
    const std::string prefix = "group." + std::to_string(gi) + ".";
    r.at(prefix);
    // Same total, other grouping ([[x, y], [z]] saved, [[x], [y, z]] here) would put one group's
    // settings and buffers on another's parameters. (States saved before the entry existed lack it.)
    if (in.count(prefix + "num_params")) {
      std::int64_t n = 0;
      r.count("num_params", n);
      if (n != static_cast<std::int64_t>(params[gi].size())) {
        throw ValueError(std::string(optimizer) + ".load_state_dict: loaded state dict contains a parameter group "
                         "that doesn't match the size of optimizer's group: group " + std::to_string(gi) + " has " +
                         std::to_string(n) + " parameter(s) in the state, " + std::to_string(params[gi].size()) +
                         " here. Hint: build the optimizer with the same groups, in the same order, as the one "
                         "that saved the state.");
      }
    }
    group(r, new_options[gi]);
    validate(new_options[gi]);
    for (std::size_t i = 0; i < params[gi].size(); ++i, ++index) {
      r.at("state." + std::to_string(index) + ".");
      State s{};
      param(r, s, params[gi][i], new_options[gi]);
      new_state[gi][i] = std::move(s);
    }
  }
  options = std::move(new_options);
  state = std::move(new_state);
}

}  // namespace kindling::optim::detail
