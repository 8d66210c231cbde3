#include <fmt/format.h>

#include "blocks/blocks.hpp"

namespace neurarch::blocks {

void linear_tensors(GraphBuilder& b, const Value& owner, const Scope& module, std::int64_t in, std::int64_t out,
                    bool bias, WeightLayout layout) {
  linear_tensors(b, owner, module, in, out, bias, graph::Operand::Input, layout);
}

void linear_tensors(GraphBuilder& b, const Value& owner, const Scope& module, std::int64_t in, std::int64_t out,
                    bool bias, graph::Operand operand, WeightLayout layout) {
  if (layout == WeightLayout::Linear)
    b.parameter(owner, module("weight"), {out, in}, graph::TensorRole::Linear, operand);
  else
    b.parameter(owner, module("weight"), {in, out}, graph::TensorRole::Linear, operand);
  // An idle module's bias is idle too; any other bias is added to the output, whatever the weight reads.
  if (bias)
    b.parameter(owner, module("bias"), {out}, graph::TensorRole::Bias,
                operand == graph::Operand::Idle ? graph::Operand::Idle : graph::Operand::Input);
}

Value norm(GraphBuilder& b, const Value& x, const std::string& name, const NormSpec& spec) {
  bool rms = spec.kind == NormKind::RMSNorm;
  auto out = b.node(rms ? graph::NodeType::RMSNorm : graph::NodeType::LayerNorm, name, x.shape, {x}, spec.module);
  std::int64_t dim = x.shape.empty() ? 0 : x.shape.back();
  b.parameter(out, spec.module("weight"), {dim}, graph::TensorRole::Norm);
  if (!rms && spec.bias) b.parameter(out, spec.module("bias"), {dim}, graph::TensorRole::Bias);
  return out;
}

Value add(GraphBuilder& b, const Value& x, const Value& residual, const std::string& name) {
  auto out = b.node(graph::NodeType::Add, name, x.shape, {x, residual});
  if (x.shape != residual.shape)
    b.fail(out, fmt::format("cannot add [{}] to the residual [{}]", fmt::join(x.shape, ", "),
                            fmt::join(residual.shape, ", ")));
  return out;
}

Value layer_scale(GraphBuilder& b, const Value& x, const std::string& name, const std::string& scale) {
  auto out = b.node(graph::NodeType::LayerScale, name, x.shape, {x});
  b.parameter(out, scale, {x.shape.back()}, graph::TensorRole::Other);
  return out;
}

Value dense(GraphBuilder& b, const Value& x, const std::string& name, const Scope& module, std::int64_t in,
            std::int64_t out_dim, bool bias, const std::string& activation) {
  Shape shape = x.shape;
  shape.back() = out_dim;
  auto out = b.node(graph::NodeType::Linear, name, shape, {x}, module);
  b.at(out).activation = activation;
  linear_tensors(b, out, module, in, out_dim, bias);
  if (x.shape.back() != in)
    b.fail(out, fmt::format("expects {} input features, receives {}", in, x.shape.back()));
  return out;
}

std::string BlockNames::attention() const { return fmt::format("Attention_{}", i); }
std::string BlockNames::ffn() const { return fmt::format("FFN_{}", i); }
std::string BlockNames::norm(int k, NormKind kind) const {
  return fmt::format("{}_{}_{}", kind == NormKind::RMSNorm ? "RMSNorm" : "LayerNorm", i, k);
}
std::string BlockNames::add(int k) const { return fmt::format("Add_{}_{}", i, k); }
std::string BlockNames::scale(int k) const { return fmt::format("LayerScale_{}_{}", i, k); }

}  // namespace neurarch::blocks
