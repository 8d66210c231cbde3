#include "plan/cost.hpp"

#include <algorithm>

#include "plan/ops/schema.hpp"
#include "plan/setup_rules.hpp"
#include "plan/weights.hpp"

namespace neurarch::plan {

std::vector<NodeCost> node_costs(const graph::Graph& g, const Setup& s) {
  auto roles = weight_roles(g, s);
  const auto recorded = recorded_by_autograd(g);
  const bool full = s.mode == Mode::Full;
  const auto precision = precision_rule(s.precision);
  // A full fine-tune under autocast reads the master weight and its 16-bit copy.
  const double weight_read = full ? (precision.autocast ? precision.parameter_bytes + precision.compute_bytes
                                                        : static_cast<double>(precision.parameter_bytes))
                                  : (s.mode == Mode::QLoRA ? 4.5 : 2.0);
  const int act = compute_bytes(s);
  std::vector<NodeCost> out(g.nodes.size());
  for (const auto& n : g.nodes) {
    auto& c = out[static_cast<std::size_t>(n.index)];
    const graph::Shape& in = n.inputs.empty() ? n.out : g.nodes[static_cast<std::size_t>(n.inputs[0])].out;
    const double tokens = static_cast<double>(n.type == graph::NodeType::Pooler ? 1 : rows_of(in));
    double in_elems = 1, out_elems = 1;
    for (auto d : in) in_elems *= static_cast<double>(d);
    for (auto d : n.out) out_elems *= static_cast<double>(d);
    c.activation_bytes = (in_elems + out_elems) * act;
    for (int t : n.tensors) {
      const auto& spec = g.tensors[static_cast<std::size_t>(t)];
      const auto& r = roles[static_cast<std::size_t>(t)];
      if (r.idle) continue;  // not run on this input: neither read nor multiplied
      if (!r.matmul) {
        if (spec.saved()) c.weight_bytes += static_cast<double>(spec.scalars()) * model_parameter_bytes(s);
        continue;
      }
      double elems = static_cast<double>(spec.scalars());
      // A convolution's kernel slides over every output position: H x W of a [C, H, W] map, the frames
      // of a Conv1d's [frames, channels]; stacked expert matrices [experts, out, in] are plain
      // matmuls over the routed tokens.
      double positions = tokens;
      if (spec.shape.size() == 4 && n.spatial && n.out.size() == 3)
        positions = static_cast<double>(n.out[1] * n.out[2]);
      else if (spec.shape.size() >= 3 && !n.moe)
        positions = static_cast<double>(rows_of(n.out));
      // A weight that reads another node's output runs over that node's positions, not the queries: cross-attention's
      // k and v over the encoder states, deformable attention's value projection over the value tokens.
      if (spec.operand == graph::Operand::Memory) {
        if (n.deformable)
          positions *= static_cast<double>(n.deformable->value_len) /
                       static_cast<double>(std::max<std::int64_t>(n.deformable->queries, 1));
        else if (n.attention)
          positions *= static_cast<double>(n.attention->kv_len) /
                       static_cast<double>(std::max<std::int64_t>(n.attention->query_len, 1));
      }
      // A routed expert's weights see top_k / experts of the tokens on average (every token when the
      // reference dispatches densely).
      if (n.moe && n.moe->experts > 0 &&
          std::find(n.moe->routed_tensors.begin(), n.moe->routed_tensors.end(), t) != n.moe->routed_tensors.end())
        positions *= static_cast<double>(n.moe->dispatched > 0 ? n.moe->dispatched : n.moe->top_k) /
                     static_cast<double>(n.moe->experts);
      double fwd = 2.0 * positions * elems;
      c.flops_forward += fwd;
      c.flops_backward += r.trained ? 2.0 * fwd : fwd;  // frozen weights: input gradient only
      c.weight_bytes += elems * weight_read;
      if (r.lora_target && !full) {
        double adapter = 2.0 * tokens * static_cast<double>(r.lora_parameters);
        c.flops_forward += adapter;
        c.flops_backward += 2.0 * adapter;
      }
    }
    // The op's own work beyond its weights: the attention product, a scan, an FFT (plan/ops/).
    if (auto* work = op_schema(n.type).work) {
      const auto w = work({.node = n,
                           .setup = s,
                           .autocast = precision.autocast,
                           .compute_bytes = act,
                           .tokens = tokens,
                           .input_rows = rows_of(in),
                           .output_elements = out_elems});
      c.flops_forward += w.flops_forward;
      c.flops_backward += w.flops_backward;
      c.activation_bytes += w.traffic_bytes;
    }
    if (s.grad_checkpointing && n.block >= 0) c.flops_backward += c.flops_forward;  // recomputation
    if (!recorded[static_cast<std::size_t>(n.index)]) c.flops_backward = 0;  // upstream of every trained weight
  }
  return out;
}

CostPlan plan_cost(const MemoryModel& m, const graph::Graph& g, const std::vector<Card>& cards,
                   const std::vector<std::int64_t>& max_batches, const RunSpec& run) {
  CostPlan plan;
  plan.mode = m.setup().mode;
  plan.run = run;
  auto costs = node_costs(g, m.setup());
  double flops_per_sample = 0;
  for (const auto& c : costs) flops_per_sample += c.flops_forward + c.flops_backward;
  const std::int64_t steps_per_epoch = (run.samples + run.global_batch - 1) / run.global_batch;
  plan.steps = steps_per_epoch * run.epochs;
  plan.flops = flops_per_sample * static_cast<double>(run.global_batch) * static_cast<double>(plan.steps);
  const auto& rt = m.runtime();
  const auto& setup = m.setup();
  const int updated_bytes = setup.mode == Mode::Full ? precision_rule(setup.precision).parameter_bytes : adapter_bytes(setup);
  const double optimizer_bytes =
      static_cast<double>(m.trainable_parameters()) * optimizer_traffic_bytes(setup.optimizer, updated_bytes);

  for (std::size_t i = 0; i < cards.size(); ++i) {
    if (max_batches[i] <= 0) continue;
    const auto& card = cards[i];
    const double compute = card.dense_tflops * 1e12 * rt.achievable_compute_fraction;
    const double bandwidth = card.bandwidth_gbps * 1e9 * rt.achievable_bandwidth_fraction;
    CardRun r;
    r.card = card.name;
    r.micro_batch = std::min(max_batches[i], run.global_batch);
    r.accumulation = (run.global_batch + r.micro_batch - 1) / r.micro_batch;
    const double b = static_cast<double>(r.micro_batch);
    double micro_seconds = 0;
    for (const auto& c : costs) {
      double fwd = std::max(c.flops_forward * b / compute, (c.weight_bytes + c.activation_bytes * b) / bandwidth);
      double bwd = std::max(c.flops_backward * b / compute, 2.0 * (c.weight_bytes + c.activation_bytes * b) / bandwidth);
      micro_seconds += fwd + bwd;
    }
    r.step_seconds = micro_seconds * static_cast<double>(r.accumulation) + optimizer_bytes / bandwidth;
    r.hours = r.step_seconds * static_cast<double>(plan.steps) / 3600.0;
    if (card.usd_per_hour) r.usd = r.hours * *card.usd_per_hour;
    plan.cards.push_back(r);
  }
  std::sort(plan.cards.begin(), plan.cards.end(), [](const CardRun& a, const CardRun& b) { return a.hours < b.hours; });
  for (const auto& r : plan.cards)
    if (r.usd && (!plan.cheapest || !plan.cheapest->usd || *r.usd < *plan.cheapest->usd)) plan.cheapest = r;
  if (!plan.cheapest && !plan.cards.empty()) plan.cheapest = plan.cards.front();
  return plan;
}

}  // namespace neurarch::plan
