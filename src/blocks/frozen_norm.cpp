#include "blocks/frozen_norm.hpp"

namespace neurarch::blocks {

Value frozen_batch_norm(GraphBuilder& b, const Value& x, const std::string& name, const Scope& module,
                        const std::string& activation) {
  auto out = b.node(graph::NodeType::BatchNorm, name, x.shape, {x}, module);
  b.at(out).activation = activation;
  const std::int64_t channels = x.shape.empty() ? 0 : x.shape.front();
  for (const char* leaf : {"weight", "bias", "running_mean", "running_var"})
    b.buffer(out, module(leaf), {channels}, b.param_dtype());
  return out;
}

}  // namespace neurarch::blocks
