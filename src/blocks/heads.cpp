#include <fmt/format.h>

#include "blocks/blocks.hpp"

namespace neurarch::blocks {

Value pooler(GraphBuilder& b, const Value& x, const std::string& name, const Scope& dense_module, std::int64_t hidden,
             const std::string& activation) {
  auto out = b.node(graph::NodeType::Pooler, name, {hidden}, {x}, dense_module);
  b.at(out).activation = activation;
  linear_tensors(b, out, dense_module, x.shape.back(), hidden, true);
  return out;
}

Value classifier(GraphBuilder& b, const Value& x, const std::string& name, const Scope& module, std::int64_t in,
                 std::int64_t labels, bool bias) {
  Shape shape = x.shape;
  shape.back() = labels;
  auto out = b.node(graph::NodeType::Classifier, name, shape, {x}, module);
  linear_tensors(b, out, module, in, labels, bias);
  if (x.shape.back() != in) b.fail(out, fmt::format("expects {} features, receives {}", in, x.shape.back()));
  return out;
}

Value lm_head(GraphBuilder& b, const Value& x, const std::string& name, const LmHeadSpec& s) {
  Shape shape = x.shape;
  shape.back() = s.vocab;
  auto out = b.node(graph::NodeType::LMHead, name, shape, {x}, s.module);
  if (s.tied_weight.empty())
    b.parameter(out, s.module("weight"), {s.vocab, s.hidden}, graph::TensorRole::Linear);
  else
    b.tied(out, s.module("weight"), {s.vocab, s.hidden}, s.tied_weight, graph::TensorRole::Linear);
  if (!s.extra_bias.empty()) b.parameter(out, s.extra_bias, {s.vocab}, graph::TensorRole::Bias);
  if (s.bias) {
    if (s.tied_bias.empty())
      b.parameter(out, s.module("bias"), {s.vocab}, graph::TensorRole::Bias);
    else
      b.tied(out, s.module("bias"), {s.vocab}, s.tied_bias, graph::TensorRole::Bias);
  }
  if (x.shape.back() != s.hidden) b.fail(out, fmt::format("expects {} features, receives {}", s.hidden, x.shape.back()));
  return out;
}

}  // namespace neurarch::blocks
