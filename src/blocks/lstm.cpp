#include "blocks/lstm.hpp"

#include <fmt/format.h>

namespace neurarch::blocks {

Value lstm(GraphBuilder& b, const Value& x, const std::string& name, const LstmSpec& s) {
  const std::int64_t frames = x.shape.empty() ? 0 : x.shape.front();
  const std::int64_t gates = 4 * s.hidden;
  Value h = x;
  for (std::int64_t k = 0; k < s.layers; ++k) {
    const std::int64_t in = k == 0 ? s.input : s.hidden;
    const std::string suffix = fmt::format("_l{}", k);
    auto input = b.node(graph::NodeType::Linear, fmt::format("{}_Input_{}", name, k), {frames, gates}, {h}, s.module);
    b.parameter(input, s.module("weight_ih" + suffix), {gates, in}, graph::TensorRole::Other);
    if (s.bias) b.parameter(input, s.module("bias_ih" + suffix), {gates}, graph::TensorRole::Bias);
    if (k == 0 && (x.shape.empty() || x.shape.back() != s.input))
      b.fail(input, fmt::format("expects {} input features, receives {}", s.input, x.shape.empty() ? 0 : x.shape.back()));
    // What W_hh reads is the layer's previous hidden state: [frames, hidden] in all.
    auto recurrent = b.node(graph::NodeType::Linear, fmt::format("{}_Recurrent_{}", name, k), {frames, gates},
                            {Value{input.node, {frames, s.hidden}}}, s.module);
    b.parameter(recurrent, s.module("weight_hh" + suffix), {gates, s.hidden}, graph::TensorRole::Other);
    if (s.bias) b.parameter(recurrent, s.module("bias_hh" + suffix), {gates}, graph::TensorRole::Bias);
    auto gate = b.node(graph::NodeType::Add, fmt::format("{}_Gates_{}", name, k), {frames, gates}, {input, recurrent});
    b.at(gate).activation = "sigmoid";
    h = b.node(graph::NodeType::Add, fmt::format("{}_Cell_{}", name, k), {frames, s.hidden}, {gate});
    b.at(h).activation = "tanh";
  }
  return h;
}

}  // namespace neurarch::blocks
