#pragma once
// The convolutional pieces MobileViT and MobileViT V2 share (models/mobilevit, models/mobilevitv2): the
// reference's make_divisible, its conv layer (`convolution` [-> `normalization` BatchNorm [-> activation]],
// padding (k - 1) / 2 * dilation) and MobileNetV2's inverted residual (expand_1x1 -> depthwise conv_3x3 ->
// reduce_1x1, a residual sum when the stride is 1 and the width is kept).
#include <cstdint>
#include <string>

#include "families/family.hpp"

namespace neurarch::families::mobilevit {

using blocks::GraphBuilder;
using blocks::Scope;
using blocks::Value;

/// make_divisible(value, divisor, min_value): the nearest multiple of `divisor`, at least `min_value`
/// (default: the divisor) and never 10% under the value.
std::int64_t make_divisible(double value, std::int64_t divisor = 8, std::int64_t min_value = 0);

struct Ctx {
  GraphBuilder& b;
  std::string act;
  double expand_ratio;
  std::int64_t block = 0;  ///< the next repeated block's index
};

struct ConvLayer {
  std::int64_t out = 0, kernel = 1, stride = 1, groups = 1, dilation = 1;
  bool normalize = true, activate = true, bias = false;
};

/// Nodes "Conv_<name>" and "BatchNorm_<name>".
Value conv_layer(Ctx& c, const Value& x, const std::string& name, const Scope& m, const ConvLayer& s);

/// One inverted residual under `m`, as repeated block c.block (which it advances).
Value inverted_residual(Ctx& c, const Value& x, const Scope& m, std::int64_t out, std::int64_t stride,
                        std::int64_t dilation = 1);

}  // namespace neurarch::families::mobilevit
