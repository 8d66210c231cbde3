#include "plan/cost.hpp"

#include <algorithm>
#include <cmath>

#include "plan/attention_rules.hpp"
#include "plan/setup_rules.hpp"
#include "plan/weights.hpp"

namespace neurarch::plan {
namespace {

std::int64_t tokens_of(const graph::Shape& s) {
  if (s.size() < 2) return 1;
  std::int64_t t = 1;
  for (std::size_t i = 0; i + 1 < s.size(); ++i) t *= s[i];
  return t;
}

}  // namespace

std::vector<NodeCost> node_costs(const graph::Graph& g, const Setup& s) {
  auto roles = weight_roles(g, s);
  const auto recorded = recorded_by_autograd(g);
  const bool full = s.mode == Mode::Full;
  const auto precision = precision_rule(s.precision);
  // A full fine-tune under autocast reads the master weight and its 16-bit copy.
  const double weight_read = full ? (precision.autocast ? precision.parameter_bytes + precision.compute_bytes
                                                        : static_cast<double>(precision.parameter_bytes))
                                  : (s.mode == Mode::QLoRA ? 4.5 : 2.0);
  const int act = precision.autocast ? precision.compute_bytes : (s.precision == Precision::Fp32 ? 4 : 2);
  std::vector<NodeCost> out(g.nodes.size());
  for (const auto& n : g.nodes) {
    auto& c = out[static_cast<std::size_t>(n.index)];
    const graph::Shape& in = n.inputs.empty() ? n.out : g.nodes[static_cast<std::size_t>(n.inputs[0])].out;
    const double tokens = static_cast<double>(n.type == graph::NodeType::Pooler ? 1 : tokens_of(in));
    double in_elems = 1, out_elems = 1;
    for (auto d : in) in_elems *= static_cast<double>(d);
    for (auto d : n.out) out_elems *= static_cast<double>(d);
    c.activation_bytes = (in_elems + out_elems) * act;
    for (int t : n.tensors) {
      const auto& spec = g.tensors[static_cast<std::size_t>(t)];
      const auto& r = roles[static_cast<std::size_t>(t)];
      if (r.idle) continue;  // not run on this input: neither read nor multiplied
      if (!r.matmul) {
        if (spec.saved())
          c.weight_bytes += static_cast<double>(spec.scalars()) * (full ? precision.parameter_bytes : 2.0);
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
        positions = static_cast<double>(tokens_of(n.out));
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
    if (n.attention) {
      const auto& a = *n.attention;
      const double per_token =
          static_cast<double>(std::max<std::int64_t>(tokens_of(in) / std::max<std::int64_t>(a.query_len, 1), 1));
      const auto work = attention_work(a, per_token, score_rule(a, s, precision.autocast, act));
      c.flops_forward += work.flops_forward;
      c.flops_backward += 2.0 * work.flops_forward;
      c.activation_bytes += work.traffic_bytes;
    }
    if (n.linear_attention) {
      // The chunked delta rule (flash-linear-attention's chunk_gated_delta_rule_fwd), per token and value head
      // with chunk length C: k k^T within the chunk (2 C dk), the WY products w and u (2 C (dk + dv)), the
      // chunk-to-chunk state update (v_new = u - w h, h += k^T v_new: 4 dk dv), the output from the state (2 dk dv)
      // and within the chunk (q k^T, then times v_new: 2 C (dk + dv)), and the triangular solve (C^2 / 3).
      // Backward is twice that plus the recomputation of w, u and the states it starts with.
      const auto& la = *n.linear_attention;
      const double dk = static_cast<double>(la.key_head_dim), dv = static_cast<double>(la.value_head_dim);
      const double chunk = static_cast<double>(la.chunk);
      const double per = tokens * static_cast<double>(la.value_heads);
      const double recompute = per * (2.0 * chunk * (dk + dv) + 4.0 * dk * dv);
      const double core = per * (2.0 * chunk * dk + 4.0 * chunk * (dk + dv) + 6.0 * dk * dv + chunk * chunk / 3.0);
      c.flops_forward += core;
      c.flops_backward += 2.0 * core + recompute;
    }
    if (n.recurrent) {
      // The scan itself (the projections, the conv1d and RG-LRU's per-head gates are matmul weights, counted
      // above). Element-wise cells, per token and channel: RG-LRU's gate, decay and normalisation arithmetic and
      // the state update (about 20), WKV's exponentials and weighted sums (about 12). Chunked cells, per token and
      // head with chunk C: the intra-chunk scores and their product with v (2 C (dk + dv)), the output from the
      // chunk's state (2 dk dv) and the state update (2 dk dv). Backward is twice that.
      const auto& r = *n.recurrent;
      const double width = static_cast<double>(r.width), heads = static_cast<double>(std::max<std::int64_t>(r.heads, 1));
      const double dk = static_cast<double>(r.key_head_dim), dv = width / heads, chunk = static_cast<double>(r.chunk);
      double core = 0;
      switch (r.cell) {
        case graph::RecurrentCell::RgLru: core = 20.0 * tokens * width; break;
        case graph::RecurrentCell::Wkv: core = 12.0 * tokens * width; break;
        case graph::RecurrentCell::Mlstm:
        case graph::RecurrentCell::Lightning: core = tokens * heads * (2.0 * chunk * (dk + dv) + 4.0 * dk * dv); break;
      }
      c.flops_forward += core;
      c.flops_backward += 2.0 * core;
    }
    if (n.deformable) {
      // The sampling itself (the four projections are matmul weights, counted above), as the pure-PyTorch
      // MultiScaleDeformableAttention computes it: per query, head, sample and channel a bilinear interpolation
      // (four corners: 4 multiply-adds, 8 FLOPs) and its share of the weighted sum (2 FLOPs); the softmax and the
      // sampling locations are per sample, not per channel, and left out. Backward: grid_sample's gradients for
      // the values (scattered to the four corners) and for the grid, and both operands of the product: twice that.
      const auto& da = *n.deformable;
      const double core = 10.0 * tokens * static_cast<double>(da.heads * da.head_dim * da.samples);
      c.flops_forward += core;
      c.flops_backward += 2.0 * core;
      // Memory traffic: the values are read and the samples written and read again.
      c.activation_bytes += static_cast<double>(da.heads * da.head_dim) *
                            (static_cast<double>(da.value_len) + 2.0 * tokens * static_cast<double>(da.samples)) * act;
    }
    if (n.type == graph::NodeType::FourierMixer && n.out.size() >= 2) {
      // FNet's fftn over the last two axes [seq, hidden]: an FFT of length hidden for every token, then one of
      // length seq for every channel, on complex data. A complex FFT of N points costs about 5 N log2 N real
      // FLOPs (the radix-2 count FFTW's benchmarks report speed by: "mflops = 5 N log2(N) / time",
      // http://www.fftw.org/speed/method.html), so the pair costs 5 S H (log2 H + log2 S) = 5 S H log2(S H).
      // The input being real (an r2c first pass) would halve part of it; this keeps the complex count. The
      // transform is linear: backward is one transform of the same size, and nothing else.
      const double seq = static_cast<double>(n.out[n.out.size() - 2]), width = static_cast<double>(n.out.back());
      const double lead = out_elems / std::max(seq * width, 1.0);  // 1 unless the graph batches inside
      const double core = seq * width > 1 ? 5.0 * lead * seq * width * std::log2(seq * width) : 0.0;
      c.flops_forward += core;
      c.flops_backward += core;
      // Memory traffic: the complex64 result (8 bytes a point) is written before its real part is read on.
      c.activation_bytes += out_elems * 8.0;
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
