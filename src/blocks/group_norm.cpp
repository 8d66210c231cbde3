#include "blocks/group_norm.hpp"

#include <fmt/format.h>

namespace neurarch::blocks {

Value group_norm(GraphBuilder& b, const Value& x, const std::string& name, const Scope& module, std::int64_t groups,
                 const std::string& activation) {
  auto out = b.node(graph::NodeType::BatchNorm, name, x.shape, {x}, module);
  b.at(out).activation = activation;
  const std::int64_t channels = x.shape.empty() ? 0 : x.shape.front();
  b.parameter(out, module("weight"), {channels}, graph::TensorRole::Norm);
  b.parameter(out, module("bias"), {channels}, graph::TensorRole::Bias);
  if (groups <= 0 || channels % groups != 0)
    b.fail(out, fmt::format("{} groups do not divide {} channels", groups, channels));
  return out;
}

}  // namespace neurarch::blocks
