#include "blocks/squeeze_excite.hpp"

namespace neurarch::blocks {

Value squeeze_excite(GraphBuilder& b, const Value& x, const std::string& name, const SqueezeExciteSpec& s) {
  auto gate = pool(b, x, name + "_Pool", false);
  gate = conv2d(b, gate, name + "_Reduce", {.module = s.reduce, .in = s.channels, .out = s.reduced});
  b.at(gate).activation = s.activation;
  gate = conv2d(b, gate, name + "_Expand", {.module = s.expand, .in = s.reduced, .out = s.channels});
  b.at(gate).activation = "sigmoid";
  return b.node(graph::NodeType::LayerScale, name, x.shape, {x, gate});
}

}  // namespace neurarch::blocks
