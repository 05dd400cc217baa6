// A checkpoint is one safetensors file: "model.<name>" and "optimizer.<name>" tensors, and the
// scalars (epoch, loss, scheduler state, RNG state) as strings in the header's __metadata__.
#include "kindling/train/checkpoint.hpp"

#include <cstdio>
#include <stdexcept>

#include "kindling/nn/serialize.hpp"
#include "kindling/tensor/checked.hpp"

namespace kindling::train {
namespace {
constexpr const char* kFormat = "kindling-checkpoint-v1";

std::string exact(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);  // round-trips a double exactly
  return buf;
}

double parse_double(const std::map<std::string, std::string>& meta, const std::string& key,
                    const std::string& path) {
  auto it = meta.find(key);
  if (it == meta.end()) throw IOError("load_checkpoint: " + path + " has no \"" + key + "\" entry.");
  try {
    std::size_t used = 0;
    double v = std::stod(it->second, &used);
    if (used != it->second.size()) throw std::invalid_argument("trailing characters");
    return v;
  } catch (const std::exception&) {
    throw IOError("load_checkpoint: " + path + ": \"" + key + "\" is not a number (\"" + it->second + "\").");
  }
}
}  // namespace

void save_checkpoint(const Checkpoint& c, const std::string& path) {
  StateDict tensors;
  for (const auto& [name, t] : c.model) tensors.insert("model." + name, t);
  for (const auto& [name, t] : c.optimizer) tensors.insert("optimizer." + name, t);
  std::map<std::string, std::string> meta{{"format", kFormat},
                                          {"epoch", std::to_string(c.epoch)},
                                          {"loss", exact(c.loss)},
                                          {"rng_state", c.rng_state}};
  for (const auto& [k, v] : c.scheduler) meta["scheduler." + k] = exact(v);
  for (const auto& [k, v] : c.extra) meta["extra." + k] = v;
  save(tensors, path, meta);
}

Checkpoint load_checkpoint(const std::string& path) {
  const auto meta = load_metadata(path);
  auto fmt = meta.find("format");
  if (fmt == meta.end() || fmt->second != kFormat) {
    throw IOError("load_checkpoint: " + path + " is not a Kindling checkpoint (no \"format\": \"" + kFormat +
                  "\" in its metadata). Hint: a plain state dict is read with kd::load().");
  }
  Checkpoint c;
  for (auto& [name, t] : load(path)) {
    if (name.rfind("model.", 0) == 0) c.model.insert(name.substr(6), t);
    else if (name.rfind("optimizer.", 0) == 0) c.optimizer[name.substr(10)] = t;
    else throw IOError("load_checkpoint: " + path + ": unexpected tensor \"" + name + "\".");
  }
  // Untrusted: "1e300", "nan" or "2.5" must not go through an undefined or silently truncating cast.
  try {
    c.epoch = checked::to_int64(parse_double(meta, "epoch", path), "load_checkpoint: " + path + ": \"epoch\"", 0);
  } catch (const ValueError& e) {
    throw IOError(e.what());  // a bad number in a file is a bad file
  }
  c.loss = parse_double(meta, "loss", path);
  auto rng = meta.find("rng_state");
  if (rng == meta.end()) throw IOError("load_checkpoint: " + path + " has no \"rng_state\" entry.");
  c.rng_state = rng->second;
  for (const auto& [k, v] : meta) {
    if (k.rfind("scheduler.", 0) == 0) c.scheduler[k.substr(10)] = parse_double(meta, k, path);
    else if (k.rfind("extra.", 0) == 0) c.extra[k.substr(6)] = v;
  }
  return c;
}

}  // namespace kindling::train
