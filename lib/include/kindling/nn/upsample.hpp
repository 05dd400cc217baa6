#pragma once
/// @file
/// nn::Upsample: resizes [N, C, H, W] images by a scale factor or to a size (see
/// functional::interpolate). No parameters.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kindling/nn/functional.hpp"
#include "kindling/nn/module.hpp"

namespace kindling::nn {

struct UpsampleOptions {
  std::vector<std::int64_t> size = {};    ///< output (H, W), or one number for both
  std::vector<double> scale_factor = {};  ///< or the scale of (H, W), or one for both
  std::string mode = "nearest";           ///< "nearest" or "bilinear"
  std::optional<bool> align_corners = std::nullopt;  ///< bilinear only (false when unset)
};

/// `Upsample up({.scale_factor = {2.0}});` or `Upsample up({.size = {32, 32}, .mode = "bilinear"});`
class Upsample : public Module {
 public:
  explicit Upsample(UpsampleOptions options);
  Tensor forward(const Tensor& x) override;
  std::string type_name() const override { return "Upsample"; }
  std::string extra_repr() const override;
  UpsampleOptions options;
};

}  // namespace kindling::nn
