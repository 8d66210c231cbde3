#include "blocks/moe.hpp"

#include <algorithm>
#include <string>

#include <fmt/format.h>

namespace neurarch::blocks {

Value mixture_of_experts(GraphBuilder& b, const Value& x, const std::string& name, const MoESpec& s) {
  Shape out_shape = x.shape;
  out_shape.back() = s.hidden;
  auto out = b.node(graph::NodeType::MixtureOfExperts, name, out_shape, {x}, s.module);
  // The per-expert width is what lint's width rules and the report show as "the" FFN width.
  b.at(out).feed_forward = graph::FeedForwardAttrs{s.hidden, s.intermediate, s.activation, s.gated};

  const std::int64_t choices = s.experts + s.zero_experts;
  linear_tensors(b, out, s.router, s.hidden, choices, s.router_bias);

  const auto first_routed = b.at(out).tensors.size();
  const std::int64_t dispatched =
      s.zero_experts > 0 && choices > 0 ? std::max<std::int64_t>((s.top_k * s.experts + choices / 2) / choices, 1)
                                        : s.dispatched;
  graph::MoEAttrs moe{.experts = s.experts, .top_k = s.top_k, .dispatched = dispatched,
                      .intermediate = s.intermediate,
                      .shared_intermediate = s.shared.empty() ? 0 : s.shared_intermediate,
                      .shared_gate = !s.shared_gate.empty(), .activation = s.activation, .gated = s.gated};
  if (!s.stacked_input.empty()) {
    const std::int64_t in_width = s.gated ? 2 * s.intermediate : s.intermediate;
    b.parameter(out, s.stacked_input("weight"), {s.experts, in_width, s.hidden}, graph::TensorRole::Stacked,
                graph::Operand::Routed);
    b.parameter(out, s.stacked_output("weight"), {s.experts, s.hidden, s.intermediate}, graph::TensorRole::Stacked,
                graph::Operand::RoutedInner);
    moe.expert_inputs = 1;
  } else if (!s.bare_experts.empty()) {
    const std::int64_t in_width = s.gated ? 2 * s.intermediate : s.intermediate;
    const std::string in_name = s.gated ? s.gate_up : s.up;
    b.parameter(out, s.bare_experts(in_name),
                s.bare_out_in ? graph::Shape{s.experts, in_width, s.hidden} : graph::Shape{s.experts, s.hidden, in_width},
                graph::TensorRole::Stacked, graph::Operand::Routed);
    if (s.expert_bias) b.parameter(out, s.bare_experts(in_name + "_bias"), {s.experts, in_width}, graph::TensorRole::Bias);
    b.parameter(out, s.bare_experts(s.down),
                s.bare_out_in ? graph::Shape{s.experts, s.hidden, s.intermediate}
                              : graph::Shape{s.experts, s.intermediate, s.hidden},
                graph::TensorRole::Stacked, graph::Operand::RoutedInner);
    if (s.expert_bias) b.parameter(out, s.bare_experts(s.down + "_bias"), {s.experts, s.hidden}, graph::TensorRole::Bias);
    moe.expert_inputs = 1;
  } else if (!s.flat_experts.empty()) {
    for (const auto& leaf : {s.gate, s.up, s.down})
      b.parameter(out, s.flat_experts(leaf), {s.experts * s.intermediate, s.hidden}, graph::TensorRole::Matrix,
                  leaf == s.down ? graph::Operand::RoutedInner : graph::Operand::Routed);
    moe.expert_inputs = 2;
  } else {
    for (std::int64_t e = 0; e < s.experts; ++e) {
      const Scope expert = s.expert_prefix.empty() ? s.experts_module / e : s.experts_module / (s.expert_prefix + std::to_string(e));
      if (s.gated) linear_tensors(b, out, expert / s.gate, s.hidden, s.intermediate, s.expert_bias, graph::Operand::Routed);
      linear_tensors(b, out, expert / s.up, s.hidden, s.intermediate, s.expert_bias, graph::Operand::Routed);
      linear_tensors(b, out, expert / s.down, s.intermediate, s.hidden, s.expert_bias, graph::Operand::RoutedInner);
    }
    moe.expert_inputs = s.gated ? 2 : 1;
  }
  const auto& owned = b.at(out).tensors;
  moe.routed_tensors.assign(owned.begin() + static_cast<std::ptrdiff_t>(first_routed), owned.end());

  if (!s.shared.empty()) {
    if (s.gated) linear_tensors(b, out, s.shared / s.gate, s.hidden, s.shared_intermediate, s.expert_bias);
    linear_tensors(b, out, s.shared / s.up, s.hidden, s.shared_intermediate, s.expert_bias);
    linear_tensors(b, out, s.shared / s.down, s.shared_intermediate, s.hidden, s.expert_bias, graph::Operand::Inner);
  }
  if (!s.shared_gate.empty()) linear_tensors(b, out, s.shared_gate, s.hidden, 1, false);
  b.at(out).moe = std::move(moe);

  if (x.shape.back() != s.hidden)
    b.fail(out, fmt::format("expects hidden size {}, receives {}", s.hidden, x.shape.back()));
  if (s.experts <= 0) b.fail(out, fmt::format("{} experts: the router has nothing to route to", s.experts));
  else if (s.top_k <= 0 || s.top_k > choices)
    b.fail(out, fmt::format("routes each token to {} of {} experts: the router's top-k must be between 1 and the "
                            "expert count (torch.topk fails otherwise)",
                            s.top_k, choices));
  return out;
}

}  // namespace neurarch::blocks
