// A mixture of experts as the reference's eager expert loop runs it (Mixtral, Qwen-MoE, OLMoE, GraniteMoE,
// DeepSeek). The router linear keeps its input; the fp32 softmax keeps its [tokens, experts] output; topk keeps its
// indices and the routing weights are kept for the product. Each expert gathers the tokens routed to it (a new
// tensor its projections keep) and runs a dense MLP on them, so summed over experts the MLP terms scale with
// tokens x top_k, never with the expert count; multiplying by the routing weight keeps each expert's output. Shared
// experts see every token like a dense MLP.
#include <algorithm>

#include <fmt/format.h>

#include "plan/ops/ops.hpp"

namespace neurarch::plan {
namespace {

int mixture_of_experts_saved(OpContext& ctx, const OpInput& x, NodeActivations& a) {
  const auto& n = x.node;
  if (!n.moe) return feed_forward_op.saved(ctx, x, a);  // a dense MLP in an MoE model's dense layers
  const auto& m = *n.moe;
  const int c = ctx.compute;
  const std::int64_t tokens = x.tokens;
  const std::int64_t routed = tokens * (m.dispatched > 0 ? m.dispatched : m.top_k);
  if (m.dispatched > m.top_k && ctx.first_note("dense-moe"))
    ctx.note(fmt::format("{} runs every token through all {} experts (the unchosen with a zero score), as the "
                         "reference does: its expert activations are {}x what top-{} routing would keep",
                         n.name, m.dispatched, m.dispatched / std::max<std::int64_t>(m.top_k, 1), m.top_k));
  // Router and shared expert (and its gate) all read the layer input.
  ctx.linear_inputs(a, n, graph::Operand::Input, tokens * x.d_in, x.in_bytes, "router and shared expert input");
  ctx.softmax(a, "router probabilities (fp32)", tokens * m.experts, 4);
  a.saved.push_back({"top-k expert indices", routed, 8});
  a.saved.push_back({"top-k routing weights", routed, 4});

  a.saved.push_back({"token indices gathered per expert", routed, 8});
  // The experts are alike: one expert's input projections stand for all of them, each reading its share of the
  // gathered tokens (a stacked weight holds every expert's).
  auto expert_inputs = ctx.matmuls(n, graph::Operand::Routed);
  expert_inputs.resize(
      std::min(expert_inputs.size(), static_cast<std::size_t>(std::max<std::int64_t>(m.expert_inputs, 0))));
  ctx.linear_inputs(a, expert_inputs, routed * x.d_in, x.in_bytes, "routed experts' gathered input");
  ctx.activation(a, m.activation, routed * m.intermediate);
  if (m.gated) a.saved.push_back({"experts' gate activation and up projection", routed * m.intermediate * 2, c});
  const auto expert_downs = ctx.matmuls(n, graph::Operand::RoutedInner);
  if (!expert_downs.empty() && ctx.saving(expert_downs.front()))
    a.saved.push_back({"experts' down projection input", routed * m.intermediate, c});
  a.saved.push_back({"expert outputs (for the routing-weight product)", routed * n.out.back(), c});

  if (m.shared_intermediate > 0) {
    const std::int64_t inter = tokens * m.shared_intermediate;
    ctx.activation(a, m.activation, inter);
    if (m.gated) a.saved.push_back({"shared expert gate activation and up projection", inter * 2, c});
    if (ctx.keeps_input(n, graph::Operand::Inner))
      a.saved.push_back({"shared expert down projection input", inter, c});
  }
  if (m.shared_gate) {
    a.saved.push_back({"shared expert gate (sigmoid output)", tokens, c});
    a.saved.push_back({"shared expert output (for the gate product)", tokens * n.out.back(), c});
  }

  // LoRA adapters on routed experts see only the tokens routed to them.
  if (!ctx.full()) {
    std::int64_t rows = 0;
    for (int t : n.tensors) {
      const auto& r = ctx.roles[static_cast<std::size_t>(t)];
      if (!r.lora_target || r.idle) continue;
      const bool is_routed = std::find(m.routed_tensors.begin(), m.routed_tensors.end(), t) != m.routed_tensors.end();
      rows += is_routed ? routed / std::max<std::int64_t>(m.experts, 1) : tokens;
    }
    if (rows) ctx.lora_a_outputs(a, rows);
  }
  ctx.output_dropout(a, n);
  return c;
}

}  // namespace

const OpSchema mixture_of_experts_op{.matmul = true, .saved = mixture_of_experts_saved, .work = nullptr};

}  // namespace neurarch::plan
