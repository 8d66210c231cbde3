#include "plan/memory.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <string_view>

#include "plan/setup_rules.hpp"
#include "plan/weights.hpp"

namespace neurarch::plan {
namespace {

std::int64_t elements(const graph::TensorSpec& t) { return t.scalars(); }

}  // namespace

MemoryModel::MemoryModel(const graph::Graph& g, const Setup& s, const Runtime& rt)
    : g_(g),
      setup_(s),
      rt_(rt),
      node_grads_(g.nodes.size(), 0),
      node_copies_(g.nodes.size(), 0),
      node_params_(g.nodes.size(), 0),
      node_trainable_(g.nodes.size(), 0),
      node_optimizer_(g.nodes.size(), 0),
      node_accumulation_(g.nodes.size(), 0) {
  auto roles = weight_roles(g, s);
  acts_ = saved_activations(g, s, roles);
  const bool full = s.mode == Mode::Full;
  const auto precision = precision_rule(s.precision);
  const int adapter = adapter_bytes(s);
  const bool group_temporaries = temporaries_per_group(s);
  const auto nf4 = quantized_base_rule(s);

  std::int64_t largest_matmul = 0, largest_temporaries = 0, group_temporaries_bytes = 0;
  // One trainable tensor: its optimizer state (paged state is counted apart) and step temporaries.
  auto optimize = [&](std::size_t node, const graph::Shape& shape, std::int64_t n, int bytes) {
    const auto m = optimizer_memory(s.optimizer, shape, n, bytes);
    (optimizer_state_paged(s.optimizer, n) ? static_.paged_optimizer_state : static_.optimizer_state) += m.state;
    node_optimizer_[node] += m.state + m.temporaries;
    group_temporaries_bytes += m.temporaries;
    largest_temporaries = std::max(largest_temporaries, m.temporaries);
  };
  // A LoRA/DoRA adapter: A [rank, in] and B [out, rank] (plus DoRA's magnitude) in the adapters'
  // dtype, autocast's 16-bit copy of them, their optimizer memory; returns its gradients' bytes.
  auto add_adapter = [&](const graph::TensorSpec& t, const WeightRole& r) {
    const std::size_t node = static_cast<std::size_t>(t.node);
    const std::int64_t bytes = allocator_rounded(r.lora_parameters * adapter, rt);
    static_.parameters += bytes;
    if (r.idle) return std::int64_t{0};
    if (precision.autocast && adapter > precision.compute_bytes) {
      const std::int64_t copy = allocator_rounded(r.lora_parameters * precision.compute_bytes, rt);
      static_.autocast_copies += copy;
      node_copies_[node] += copy;
    }
    optimize(node, {s.lora_rank, t.shape[1]}, s.lora_rank * t.shape[1], adapter);
    optimize(node, {t.shape[0], s.lora_rank}, t.shape[0] * s.lora_rank, adapter);
    if (r.dora_parameters) optimize(node, {r.dora_parameters}, r.dora_parameters, adapter);
    return bytes;
  };
  // Autocast caches one bf16 cast per leaf tensor that requires grad: a tied head casts the embedding
  // once (its lookup reads fp32), and a weight shared by several layers (ALBERT) is cast once for all of
  // them. A frozen weight's cast is not cached.
  std::set<std::string_view> cast_once;
  // A weight used by several nodes gets its gradient at the first backward that reaches it: the
  // last node using it (a tied head, a shared layer group's last application).
  std::map<std::string_view, std::size_t> last_user;
  // A framework that unties the head (litgpt) stores, trains and optimizes it as a weight of its own.
  auto owns_storage = [&](const graph::TensorSpec& t) {
    return t.saved() || (s.untie_head && g.nodes[static_cast<std::size_t>(t.node)].type == graph::NodeType::LMHead);
  };
  for (const auto& t : g.tensors)
    if (!owns_storage(t)) {
      auto& user = last_user[t.tied_to];
      user = std::max(user, static_cast<std::size_t>(t.node));
    }
  for (std::size_t i = 0; i < g.tensors.size(); ++i) {
    const auto& t = g.tensors[i];
    const auto& r = roles[i];
    const std::size_t node = static_cast<std::size_t>(t.node);
    if (r.matmul && precision.autocast && full && !t.frozen && !r.idle &&
        cast_once.insert(owns_storage(t) ? t.name : t.tied_to).second) {
      std::int64_t copy = allocator_rounded(elements(t) * precision.compute_bytes, rt);
      static_.autocast_copies += copy;
      node_copies_[node] += copy;
    }
    if (!owns_storage(t)) {
      // A tied head shares its weight, not its adapter: the adapter is the head's own.
      if (!full && r.lora_target) {
        trainable_ += r.lora_parameters;
        node_trainable_[node] += r.lora_parameters;
        const std::int64_t before = static_.parameters;
        node_grads_[node] += add_adapter(t, r);
        node_params_[node] += static_.parameters - before;
      }
      continue;
    }
    std::int64_t n = elements(t);
    const std::int64_t params_before = static_.parameters;
    // Loaded whole in 16 bits before anything is quantized: every tensor at its load dtype.
    static_.load_bytes += allocator_rounded(
        n * (t.kind == graph::TensorKind::Buffer ? dtype_bytes(t.dtype) : precision.frozen_base_bytes), rt);
    if (t.kind == graph::TensorKind::Buffer) {
      static_.parameters += allocator_rounded(n * dtype_bytes(t.dtype), rt);
      node_params_[node] += static_.parameters - params_before;
      continue;
    }
    std::int64_t grad_bytes = 0;
    std::int64_t trainable_here = 0;
    if (full) {
      static_.parameters += allocator_rounded(n * precision.parameter_bytes, rt);
      if (r.trained) {
        trainable_here = n;
        if (!r.idle) {
          grad_bytes = allocator_rounded(n * precision.parameter_bytes, rt);
          optimize(node, t.shape, n, precision.parameter_bytes);
        }
      }
    } else {
      const bool quantized = r.quantized;
      const std::int64_t base = quantized ? static_cast<std::int64_t>(static_cast<double>(n) * nf4.bytes_per_weight)
                                          : n * precision.frozen_base_bytes;
      static_.parameters += allocator_rounded(base, rt);
      if (quantized && !r.idle) largest_matmul = std::max(largest_matmul, n);  // an idle weight is never dequantized
      if (r.lora_target) {
        trainable_here = r.lora_parameters;
        grad_bytes = add_adapter(t, r);
      }
      if (r.trained) {
        // PEFT's trainable copy (modules_to_save) in the adapters' dtype.
        static_.parameters += allocator_rounded(n * adapter, rt);
        trainable_here += n;
        grad_bytes += allocator_rounded(n * adapter, rt);
        optimize(node, t.shape, n, adapter);
      }
    }
    trainable_ += trainable_here;
    node_trainable_[node] += trainable_here;
    node_params_[node] += static_.parameters - params_before;
    const auto user = last_user.find(t.name);
    const std::size_t grad_node = user == last_user.end() ? node : std::max(node, user->second);
    node_grads_[grad_node] += grad_bytes;
  }
  // Each earlier user of a shared weight hands autograd a second gradient for it, which the engine adds
  // to the first before AccumulateGrad runs. Without autocast the first is the head's matmul output and
  // the sum is made out of place: the incoming gradient and the sum exist beside the first (three
  // copies at the embedding's backward); under autocast the first is a fresh fp32 cast-back that takes
  // the sum in place (two). Measured on the CPU (docs/cpu-memory.md). One weight at a time, so a node's
  // transient is its largest shared weight's.
  const std::int64_t sum_copies = precision.autocast ? 1 : 2;
  std::map<std::string_view, std::int64_t> grad_bytes;
  for (std::size_t i = 0; i < g.tensors.size(); ++i) {
    const auto& t = g.tensors[i];
    if (owns_storage(t) && t.kind != graph::TensorKind::Buffer && roles[i].trained && !roles[i].idle)
      grad_bytes[t.name] = allocator_rounded(elements(t) * precision.parameter_bytes, rt);
  }
  for (const auto& t : g.tensors) {
    const std::string_view key = owns_storage(t) ? std::string_view(t.name) : std::string_view(t.tied_to);
    const auto user = last_user.find(key);
    const auto bytes = grad_bytes.find(key);
    if (user == last_user.end() || bytes == grad_bytes.end()) continue;
    const auto node = static_cast<std::size_t>(t.node);
    if (node < user->second) node_accumulation_[node] = std::max(node_accumulation_[node], sum_copies * bytes->second);
  }
  static_.gradients = 0;
  for (auto b : node_grads_) static_.gradients += b;
  static_.optimizer_temporaries = group_temporaries ? group_temporaries_bytes : largest_temporaries;
  static_.dequant_transient = allocator_rounded(largest_matmul * nf4.dequant_bytes, rt);
  // DoRA recomputes the adapted weight (W + scale * B A) for its column norm: one weight at a time.
  if (s.mode != Mode::Full && s.dora)
    for (std::size_t i = 0; i < g.tensors.size(); ++i)
      if (roles[i].lora_target && !roles[i].idle)
        static_.dequant_transient = std::max(static_.dequant_transient, allocator_rounded(elements(g.tensors[i]) * 4, rt));
  if (s.mode != Mode::QLoRA || s.qlora_load != QuantizedLoad::LoadThenQuantize) static_.load_bytes = 0;
  static_.workspace = rt.cublas_workspace_bytes;
  // The loop's batch lives on the device through the whole step: token ids in int64, pixels and features in fp32
  // (in the model's half dtype when it is half throughout, which a convolution requires).
  for (const auto& in : g.inputs) {
    std::int64_t elements = 1;
    for (auto d : in.shape) elements *= d;
    const bool half = !precision.autocast && s.precision != Precision::Fp32;
    input_bytes_ += elements * (in.kind == "tokens" ? 8 : half ? precision.compute_bytes : 4);
  }
  // Activation gradients in flight: the widest output's. The LM head's (the logits) is the loss's
  // gradient, counted with the loss buffers.
  for (const auto& n : g.nodes) {
    // The logits' gradient is the loss buffers' term already (CPU-measured: counting it twice over-planned
    // the backward of a large vocabulary by its size).
    if (n.type == graph::NodeType::LMHead || n.type == graph::NodeType::Output) continue;
    std::int64_t width = 1;
    for (auto d : n.out) width *= d;
    widest_output_ = std::max(widest_output_, width);
  }
}

std::int64_t MemoryModel::rounded(const SavedTensor& t, std::int64_t batch) const {
  return allocator_rounded(t.bytes(batch), rt_);
}

MemoryPlan MemoryModel::at(std::int64_t batch) const {
  MemoryPlan plan;
  plan.mode = setup_.mode;
  plan.batch = batch;
  plan.trainable_parameters = trainable_;
  const auto& st = static_terms();
  const std::size_t n = g_.nodes.size();

  // Per node: bytes kept from the forward pass until its backward, and (with gradient
  // checkpointing) bytes that exist only while its block is recomputed.
  std::vector<std::int64_t> kept(n, 0), recomputed(n, 0);
  for (std::size_t i = 0; i < n; ++i) {
    std::int64_t bytes = 0;
    for (const auto& t : acts_.nodes[i].saved) bytes += rounded(t, batch);
    const auto& node = g_.nodes[i];
    if (setup_.grad_checkpointing && node.block >= 0) {
      recomputed[i] = bytes;
      bool first_of_block = i == 0 || g_.nodes[i - 1].block != node.block;
      if (first_of_block && !node.inputs.empty()) {
        const auto& in = g_.nodes[static_cast<std::size_t>(node.inputs[0])];
        std::int64_t width = 1;
        for (auto d : in.out) width *= d;
        kept[i] = allocator_rounded(width * batch * 4, rt_);  // the checkpointed block input
      }
    } else {
      kept[i] = bytes;
    }
  }
  std::int64_t activations = 0;
  for (auto b : kept) activations += b;
  const std::int64_t inputs = allocator_rounded(input_bytes_ * batch, rt_);
  auto transient = [&](std::int64_t per_sample) { return per_sample ? allocator_rounded(per_sample * batch, rt_) : 0; };
  const auto loss = loss_at(batch);
  const std::int64_t logits = allocator_rounded(loss.logits, rt_);
  const std::int64_t log_softmax = allocator_rounded(loss.saved, rt_);
  const std::int64_t loss_transient = allocator_rounded(loss.forward_transient, rt_);
  const std::int64_t loss_backward = allocator_rounded(loss.backward, rt_);
  const std::int64_t head_gradient = allocator_rounded(loss.head_gradient, rt_);
  // zero_grad(set_to_none=False) keeps every gradient buffer from the previous step.
  const std::int64_t kept_grads = setup_.keep_gradients ? st.gradients : 0;
  const std::int64_t in_flight = in_flight_bytes(batch);
  // A loop that holds the outputs keeps this step's logits through backward, and the previous step's
  // until the forward that replaces them returns.
  const std::int64_t held_logits = setup_.hold_outputs ? logits : 0;

  PhaseMemory fwd{"forward_end", "", 0, {}};
  fwd.terms = {{"parameters", st.parameters},
               {"model_inputs", inputs},
               {"optimizer_state", st.optimizer_state},
               {"gradients", kept_grads},
               {"autocast_weight_copies", st.autocast_copies},
               {"activations", activations},
               {"logits", logits},
               {"previous_step_logits", held_logits},
               {"loss_buffers", log_softmax + loss_transient},
               {"op_transients", 0},
               {"quantized_weight_dequant", st.dequant_transient},
               {"cublas_workspace", st.workspace}};

  // Inside the forward, an op's transients can outgrow what the end of the forward holds (a long sequence's eager
  // scores at the last layer, where no large logits follow).
  std::int64_t fwd_total = 0;
  for (const auto& t : fwd.terms) fwd_total += t.bytes;
  {
    const std::int64_t fixed = st.parameters + inputs + st.optimizer_state + kept_grads + st.autocast_copies +
                               held_logits + st.dequant_transient + st.workspace;
    std::int64_t so_far = 0;
    for (std::size_t k = 0; k < n; ++k) {
      so_far += kept[k];
      const std::int64_t op = transient(acts_.nodes[k].forward_transient);
      // Under checkpointing the block runs without a graph: what it would keep exists only while it runs.
      const std::int64_t running = setup_.grad_checkpointing ? recomputed[k] : 0;
      if (fixed + so_far + running + op <= fwd_total) continue;
      fwd_total = fixed + so_far + running + op;
      fwd.at = g_.nodes[k].name;
      fwd.terms = {{"parameters", st.parameters},
                   {"model_inputs", inputs},
                   {"optimizer_state", st.optimizer_state},
                   {"gradients", kept_grads},
                   {"autocast_weight_copies", st.autocast_copies},
                   {"activations", so_far + running},
                   {"logits", 0},
                   {"previous_step_logits", held_logits},
                   {"loss_buffers", 0},
                   {"op_transients", op},
                   {"quantized_weight_dequant", st.dequant_transient},
                   {"cublas_workspace", st.workspace}};
    }
  }

  // Backward: walk the nodes in reverse; gradients appear as each node finishes, saved tensors
  // and autocast copies go as each node's backward consumes them.
  PhaseMemory bwd{"backward", "", 0, {}};
  std::int64_t grads = kept_grads, copies = st.autocast_copies, alive = activations;
  std::int64_t recompute = 0;
  int current_block = -2;
  bool head_done = false;
  auto moment = [&](std::size_t k, std::int64_t grads_now, std::int64_t loss_bytes, std::int64_t op) {
    const std::int64_t total = st.parameters + inputs + st.optimizer_state + grads_now + copies + alive + recompute +
                               held_logits + loss_bytes + in_flight + op + node_accumulation_[k] +
                               st.dequant_transient + st.workspace;
    // Named terms are built only for a new maximum: solvers probe this walk many times.
    if (total <= bwd.allocated) return;
    bwd.allocated = total;
    bwd.terms = {{"parameters", st.parameters},
                 {"model_inputs", inputs},
                 {"optimizer_state", st.optimizer_state},
                 {"gradients", grads_now},
                 {"autocast_weight_copies", copies},
                 {"activations", alive + recompute},
                 {"logits", held_logits},
                 {"loss_buffers", loss_bytes},
                 {"activation_gradients", in_flight},
                 {"op_transients", op},
                 {"shared_weight_gradient_sum", node_accumulation_[k]},
                 {"quantized_weight_dequant", st.dequant_transient},
                 {"cublas_workspace", st.workspace}};
    bwd.at = g_.nodes[k].name;
  };
  for (std::size_t k = n; k-- > 0;) {
    const auto& node = g_.nodes[k];
    if (setup_.grad_checkpointing && node.block >= 0 && node.block != current_block) {
      current_block = node.block;
      recompute = 0;
      for (std::size_t j = 0; j < n; ++j)
        if (g_.nodes[j].block == node.block) recompute += recomputed[j];
    } else if (node.block < 0) {
      recompute = 0;
    }
    // The loss's backward runs before the head's, whose weight gradient then meets the logits' gradient alone.
    const bool head = !head_done && node.type == graph::NodeType::LMHead;
    if (head) moment(k, grads, loss_backward, 0);
    if (!setup_.keep_gradients) grads += node_grads_[k];
    // The graph's Output holds nothing of its own; the loss's moment is the head's.
    if (node.type != graph::NodeType::Output)
      moment(k, grads, head_done ? 0 : head ? head_gradient : loss_backward,
             std::max<std::int64_t>(0, transient(acts_.nodes[k].backward_transient) -
                                           (setup_.keep_gradients ? 0 : acts_.nodes[k].gradients_after)));
    alive -= kept[k];
    copies -= node_copies_[k];
    if (node.type == graph::NodeType::LMHead) head_done = true;
  }

  PhaseMemory opt{"optimizer_step", "", 0, {}};
  opt.terms = {{"parameters", st.parameters},
               {"model_inputs", inputs},
               {"optimizer_state", st.optimizer_state},
               {"gradients", st.gradients},
               {"optimizer_temporaries", st.optimizer_temporaries},
               {"cublas_workspace", st.workspace}};

  // QLoRA loaded whole in 16 bits and quantized afterwards: the load is a phase of its own.
  PhaseMemory load{"load", "", 0, {{"parameters_at_load_dtype", st.load_bytes}}};
  fwd.allocated = fwd_total;
  for (auto* p : {&opt, &load}) {
    p->allocated = 0;
    for (const auto& t : p->terms) p->allocated += t.bytes;
  }
  if (st.load_bytes > 0) plan.phases.push_back(load);
  plan.phases.push_back(fwd);
  plan.phases.push_back(bwd);
  if (has_optimizer_step(setup_.optimizer)) plan.phases.push_back(opt);
  const PhaseMemory* peak = &plan.phases[0];
  for (const auto& p : plan.phases)
    if (p.allocated > peak->allocated) peak = &p;
  plan.peak_phase = peak->phase;
  plan.peak_allocated = peak->allocated;
  const std::int64_t fragmentation =
      static_cast<std::int64_t>(static_cast<double>(plan.peak_allocated) * rt_.fragmentation_fraction);
  plan.reserved = plan.peak_allocated + fragmentation;
  plan.device_bytes = plan.reserved + rt_.cuda_context_bytes + st.paged_optimizer_state;
  for (const auto& t : peak->terms)
    if (t.bytes) plan.breakdown.push_back(t);
  plan.breakdown.push_back({"allocator_fragmentation", fragmentation});
  if (st.paged_optimizer_state) plan.breakdown.push_back({"paged_optimizer_state", st.paged_optimizer_state});
  plan.breakdown.push_back({"cuda_context", rt_.cuda_context_bytes});
  return plan;
}

std::int64_t MemoryModel::node_model_bytes(int node) const {
  const auto i = static_cast<std::size_t>(node);
  return node_params_[i] + node_grads_[i] + node_copies_[i] + node_optimizer_[i];
}

LossMemory MemoryModel::loss_at(std::int64_t batch) const {
  const auto& lg = acts_.logits;
  if (lg.tokens == 0) return {};
  return loss_memory(setup_, lg.tokens * batch, lg.vocab, lg.compute_bytes);
}

std::int64_t MemoryModel::node_activation_bytes(int node, std::int64_t batch) const {
  std::int64_t bytes = 0;
  for (const auto& t : acts_.nodes[static_cast<std::size_t>(node)].saved) bytes += rounded(t, batch);
  return bytes;
}

std::int64_t MemoryModel::logits_peak_bytes(std::int64_t batch) const {
  const auto l = loss_at(batch);
  return allocator_rounded(std::max({l.logits + l.saved + l.forward_transient, l.backward, l.head_gradient}), rt_);
}

std::int64_t MemoryModel::in_flight_bytes(std::int64_t batch) const {
  // Gradients have their activation's dtype: 16-bit in a pure half model, fp32 for the residual
  // stream under autocast and in fp32.
  const auto precision = precision_rule(setup_.precision);
  const int bytes = precision.autocast || setup_.precision == Precision::Fp32 ? 4 : precision.compute_bytes;
  return 2 * allocator_rounded(widest_output_ * batch * bytes, rt_);
}

std::int64_t MemoryModel::usable_bytes(const Card& card) const {
  return static_cast<std::int64_t>(static_cast<double>(card.memory_bytes) * (1.0 - rt_.safety_margin_fraction));
}

bool MemoryModel::fits(const Card& card, std::int64_t batch) const { return at(batch).device_bytes <= usable_bytes(card); }

const char* mode_name(Mode m) {
  switch (m) {
    case Mode::Full: return "full";
    case Mode::LoRA: return "lora";
    case Mode::QLoRA: return "qlora";
  }
  return "?";
}

const char* mode_label(Mode m) {
  switch (m) {
    case Mode::Full: return "Full fine-tune";
    case Mode::LoRA: return "LoRA";
    case Mode::QLoRA: return "QLoRA";
  }
  return "?";
}

const char* optimizer_name(Optimizer o) {
  switch (o) {
    case Optimizer::AdamW: return "adamw";
    case Optimizer::AdamWFused: return "adamw-fused";
    case Optimizer::AdamW8bit: return "adamw-8bit";
    case Optimizer::PagedAdamW8bit: return "paged-adamw-8bit";
    case Optimizer::PagedAdamW: return "paged-adamw";
    case Optimizer::Adafactor: return "adafactor";
    case Optimizer::SGD: return "sgd";
    case Optimizer::SGDMomentum: return "sgd-momentum";
    case Optimizer::None: return "none";
  }
  return "?";
}

const char* precision_name(Precision p) {
  switch (p) {
    case Precision::Fp32: return "fp32";
    case Precision::AmpBf16: return "amp-bf16";
    case Precision::AmpFp16: return "amp-fp16";
    case Precision::Bf16: return "bf16";
    case Precision::Fp16: return "fp16";
  }
  return "?";
}

const char* loss_name(Loss l) {
  switch (l) {
    case Loss::CrossEntropy: return "cross-entropy";
    case Loss::Chunked: return "chunked";
    case Loss::Fused: return "fused";
    case Loss::LogitsSum: return "logits-sum";
  }
  return "?";
}

}  // namespace neurarch::plan
