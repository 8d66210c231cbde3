#include "plan/activations.hpp"

#include "plan/ops/context.hpp"
#include "plan/ops/schema.hpp"

namespace neurarch::plan {

std::int64_t NodeActivations::bytes_per_sample() const {
  std::int64_t total = 0;
  for (const auto& t : saved) total += t.bytes(1);
  return total;
}

// Walks the graph in order: each node's op (plan/ops/) says what autograd keeps for its backward and the dtype of
// its output, which the nodes after it read.
ActivationModel saved_activations(const graph::Graph& g, const Setup& s, const std::vector<WeightRole>& roles) {
  OpContext ctx(g, s, roles);
  ActivationModel m;
  m.nodes.reserve(g.nodes.size());
  for (const auto& n : g.nodes) {
    NodeActivations a;
    a.node = n.index;
    const OpInput x = ctx.input_of(n);
    const auto& op = op_schema(n.type);
    ctx.set_out_bytes(n.index, op.saved(ctx, x, a));
    if (op.transients) {
      const auto t = op.transients(ctx, x);
      a.forward_transient = t.forward;
      a.backward_transient = t.backward;
      a.gradients_after = t.gradients_after;
    }
    // Autograd records no graph where no input needs a gradient and no parameter is trained (pixels through a
    // frozen batch norm or a frozen stem).
    if (!ctx.recorded(n.index)) {
      a.saved.clear();
      a.backward_transient = 0;
    }
    ctx.note_lora_dropout();
    m.nodes.push_back(std::move(a));
  }
  m.logits = ctx.logits;
  m.notes = ctx.take_notes();
  return m;
}

}  // namespace neurarch::plan
