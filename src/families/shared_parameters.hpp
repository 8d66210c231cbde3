#pragma once
// Modules applied more than once with the same weights (ALBERT's layer groups, Funnel's
// block_repeats): the first application declares each tensor, later ones alias it (TensorSpec::
// tied_to, which save_pretrained drops), so every application is a node but the weights count once.
#include <set>
#include <string>

#include "blocks/blocks.hpp"

namespace neurarch::families {

class SharedParameters {
 public:
  explicit SharedParameters(graph::GraphBuilder& b) : b_(b) {}

  void operator()(const graph::Value& owner, const std::string& name, graph::Shape shape, graph::TensorRole role,
                  graph::Operand operand = graph::Operand::Input) {
    if (declared_.insert(name).second)
      b_.parameter(owner, name, std::move(shape), role, operand);
    else
      b_.tied(owner, name, std::move(shape), name, role, operand);
  }
  /// nn.Linear(in, out): weight [out, in], and bias [out] when `bias`; `operand` what it multiplies.
  void linear(const graph::Value& owner, const graph::Scope& module, std::int64_t in, std::int64_t out,
              bool bias = true, graph::Operand operand = graph::Operand::Input) {
    (*this)(owner, module("weight"), {out, in}, graph::TensorRole::Linear, operand);
    if (bias) (*this)(owner, module("bias"), {out}, graph::TensorRole::Bias);
  }
  /// A LayerNorm node over x's last dimension.
  graph::Value layer_norm(const graph::Value& x, const std::string& name, const graph::Scope& module) {
    auto out = b_.node(graph::NodeType::LayerNorm, name, x.shape, {x}, module);
    (*this)(out, module("weight"), {x.shape.back()}, graph::TensorRole::Norm);
    (*this)(out, module("bias"), {x.shape.back()}, graph::TensorRole::Bias);
    return out;
  }

 private:
  graph::GraphBuilder& b_;
  std::set<std::string> declared_;
};

}  // namespace neurarch::families
