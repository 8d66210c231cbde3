#pragma once
// The sparse mixture-of-experts feed-forward: a router picks top_k of `experts` identical MLPs for
// each token, optionally beside a shared expert every token passes through. One graph node
// (MixtureOfExperts) owns the router, every expert and the shared expert, and carries MoEAttrs so
// the planner can tell held weights (all experts) from the work each token does (top_k experts).
#include <cstdint>
#include <string>

#include "blocks/blocks.hpp"

namespace neurarch::blocks {

struct MoESpec {
  std::int64_t hidden = 0;
  std::int64_t intermediate = 0;  ///< one routed expert's width
  std::int64_t experts = 0;
  std::int64_t top_k = 0;
  std::int64_t dispatched = 0;  ///< MoEAttrs::dispatched
  /// Identity ("zero-computation") experts the router scores beside the real ones (LongCat-Flash): the router
  /// has experts + zero_experts outputs and top_k is drawn from all of them; a token sent to one is scaled and
  /// passed through. The node's dispatched is then the real experts a token reaches on average, top_k x experts /
  /// (experts + zero_experts) with the router spreading tokens evenly (a trained router varies it per token).
  std::int64_t zero_experts = 0;
  std::string activation = "silu";
  bool gated = true;  ///< down(act(gate(x)) * up(x))
  Scope module;       ///< the MoE module (node path)
  Scope router;       ///< nn.Linear(hidden, experts)
  bool router_bias = false;
  /// One module per expert: experts_module / i / {gate, up, down}.
  Scope experts_module;
  /// Put before each expert's index when the experts are a ModuleDict ("expert_" gives
  /// experts.expert_3: SwitchTransformers, NLLB-MoE); empty for a ModuleList.
  std::string expert_prefix;
  std::string gate = "gate_proj", up = "up_proj", down = "down_proj";
  bool expert_bias = false;
  /// Stacked experts (ParallelExperts): `stacked_input.weight` [experts, (2x) intermediate, hidden]
  /// and `stacked_output.weight` [experts, hidden, intermediate]; used when not empty.
  Scope stacked_input, stacked_output;
  /// Flat expert parameters (DBRX): flat_experts.{gate, up, down}, each [experts x intermediate,
  /// hidden] with no `.weight` suffix (down stored transposed); used when not empty.
  Scope flat_experts;
  /// Stacked expert parameters applied as x @ W (GPT-OSS, Llama 4): bare_experts.{gate_up} [experts,
  /// hidden, 2 x intermediate] (`up` [experts, hidden, intermediate] when not gated) and
  /// bare_experts.{down} [experts, intermediate, hidden], without a `.weight` suffix; with expert_bias
  /// each has a `<name>_bias` [experts, width]. Used when not empty.
  Scope bare_experts;
  /// bare_experts stored [experts, out, in] as transformers 5 fuses experts (gate_up_proj [experts,
  /// 2 x intermediate, hidden], down_proj [experts, hidden, intermediate]) rather than applied as x @ W.
  bool bare_out_in = false;
  std::string gate_up = "gate_up_proj";
  /// The always-on shared expert (same projection names as the routed ones); absent when empty.
  Scope shared;
  std::int64_t shared_intermediate = 0;
  Scope shared_gate;  ///< nn.Linear(hidden, 1) whose sigmoid scales the shared expert; absent when empty
};

/// [..., hidden] -> [..., hidden] through the routed (and shared) experts.
Value mixture_of_experts(GraphBuilder& b, const Value& x, const std::string& name, const MoESpec& spec);

}  // namespace neurarch::blocks
