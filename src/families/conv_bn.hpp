#pragma once
// The conv -> BatchNorm -> activation unit that RegNet and MobileNet V1/V2 name `<module>.convolution` and
// `<module>.normalization`: a bias-free nn.Conv2d whose padding keeps ceil(size / stride) (PyTorch's
// (k - 1) / 2 for odd kernels, and TF SAME padding, give the same shapes), then nn.BatchNorm2d.
#include <cstdint>
#include <string>

#include "families/family.hpp"

namespace neurarch::families {

struct ConvBnSpec {
  blocks::Scope module;
  std::int64_t in = 0, out = 0, kernel = 1, stride = 1, groups = 1;
  std::string activation;  ///< "" = none
  bool normalize = true;   ///< false: no BatchNorm
  bool bias = false;
};

/// Nodes `name` + "_Conv" and `name` + "_BatchNorm".
blocks::Value conv_bn(blocks::GraphBuilder& b, const blocks::Value& x, const std::string& name, const ConvBnSpec& s);

}  // namespace neurarch::families
