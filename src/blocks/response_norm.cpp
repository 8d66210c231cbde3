#include "blocks/response_norm.hpp"

#include <fmt/format.h>

namespace neurarch::blocks {

Value global_response_norm(GraphBuilder& b, const Value& x, const std::string& name, const Scope& module) {
  auto out = b.node(graph::NodeType::LayerScale, name, x.shape, {x}, module);
  const std::int64_t channels = x.shape.empty() ? 0 : x.shape.back();
  b.parameter(out, module("weight"), {1, 1, 1, channels}, graph::TensorRole::Norm);
  b.parameter(out, module("bias"), {1, 1, 1, channels}, graph::TensorRole::Bias);
  if (x.shape.size() != 3)
    b.fail(out, fmt::format("expects a channels-last [height, width, channels] map, receives [{}]",
                            fmt::join(x.shape, ", ")));
  return out;
}

}  // namespace neurarch::blocks
