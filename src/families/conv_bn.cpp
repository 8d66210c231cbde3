#include "families/conv_bn.hpp"

namespace neurarch::families {

using namespace blocks;

Value conv_bn(GraphBuilder& b, const Value& x, const std::string& name, const ConvBnSpec& s) {
  auto h = conv2d(b, x, name + "_Conv",
                  {.module = s.module / "convolution", .in = s.in, .out = s.out, .kernel = s.kernel, .stride = s.stride,
                   .padding = (s.kernel - 1) / 2, .groups = s.groups, .bias = s.bias});
  if (!s.normalize) {
    b.at(h).activation = s.activation;
    return h;
  }
  return batch_norm(b, h, name + "_BatchNorm", s.module / "normalization", s.activation);
}

}  // namespace neurarch::families
