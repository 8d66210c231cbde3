#include "plan/memory.hpp"

#include <algorithm>

namespace neurarch::plan {

// What every phase of one step at `batch` reads, computed once per probe.
struct MemoryModel::StepTerms {
  std::int64_t batch = 1;
  /// Per node: bytes kept from the forward pass until its backward, and (with gradient checkpointing) bytes that
  /// exist only while its block is recomputed.
  std::vector<std::int64_t> kept, recomputed;
  std::int64_t activations = 0, inputs = 0;
  std::int64_t logits = 0, log_softmax = 0, loss_transient = 0, loss_backward = 0, head_gradient = 0;
  std::int64_t kept_grads = 0, in_flight = 0, held_logits = 0;
};

MemoryModel::StepTerms MemoryModel::step_terms(std::int64_t batch) const {
  StepTerms t;
  t.batch = batch;
  const std::size_t n = g_.nodes.size();
  t.kept.assign(n, 0);
  t.recomputed.assign(n, 0);
  for (std::size_t i = 0; i < n; ++i) {
    std::int64_t bytes = 0;
    for (const auto& s : acts_.nodes[i].saved) bytes += rounded(s, batch);
    const auto& node = g_.nodes[i];
    if (setup_.grad_checkpointing && node.block >= 0) {
      t.recomputed[i] = bytes;
      bool first_of_block = i == 0 || g_.nodes[i - 1].block != node.block;
      if (first_of_block && !node.inputs.empty()) {
        const auto& in = g_.nodes[static_cast<std::size_t>(node.inputs[0])];
        std::int64_t width = 1;
        for (auto d : in.out) width *= d;
        t.kept[i] = allocator_rounded(width * batch * 4, rt_);  // the checkpointed block input
      }
    } else {
      t.kept[i] = bytes;
    }
  }
  for (auto b : t.kept) t.activations += b;
  t.inputs = allocator_rounded(input_bytes_ * batch, rt_);
  const auto loss = loss_at(batch);
  t.logits = allocator_rounded(loss.logits, rt_);
  t.log_softmax = allocator_rounded(loss.saved, rt_);
  t.loss_transient = allocator_rounded(loss.forward_transient, rt_);
  t.loss_backward = allocator_rounded(loss.backward, rt_);
  t.head_gradient = allocator_rounded(loss.head_gradient, rt_);
  // zero_grad(set_to_none=False) keeps every gradient buffer from the previous step.
  t.kept_grads = setup_.keep_gradients ? static_.gradients : 0;
  t.in_flight = in_flight_bytes(batch);
  // A loop that holds the outputs keeps this step's logits through backward, and the previous step's
  // until the forward that replaces them returns.
  t.held_logits = setup_.hold_outputs ? t.logits : 0;
  return t;
}

std::int64_t MemoryModel::transient_bytes(std::int64_t per_sample, std::int64_t batch) const {
  return per_sample ? allocator_rounded(per_sample * batch, rt_) : 0;
}

PhaseMemory MemoryModel::forward_phase(const StepTerms& t) const {
  const auto& st = static_;
  PhaseMemory fwd{"forward_end", "", 0, {}};
  fwd.terms = {{"parameters", st.parameters},
               {"model_inputs", t.inputs},
               {"optimizer_state", st.optimizer_state},
               {"gradients", t.kept_grads},
               {"autocast_weight_copies", st.autocast_copies},
               {"activations", t.activations},
               {"logits", t.logits},
               {"previous_step_logits", t.held_logits},
               {"loss_buffers", t.log_softmax + t.loss_transient},
               {"op_transients", 0},
               {"quantized_weight_dequant", st.dequant_transient},
               {"cublas_workspace", st.workspace}};
  for (const auto& term : fwd.terms) fwd.allocated += term.bytes;
  // Inside the forward, an op's transients can outgrow what the end of the forward holds (a long sequence's eager
  // scores at the last layer, where no large logits follow).
  const std::int64_t fixed = st.parameters + t.inputs + st.optimizer_state + t.kept_grads + st.autocast_copies +
                             t.held_logits + st.dequant_transient + st.workspace;
  std::int64_t so_far = 0;
  for (std::size_t k = 0; k < g_.nodes.size(); ++k) {
    so_far += t.kept[k];
    const std::int64_t op = transient_bytes(acts_.nodes[k].forward_transient, t.batch);
    // Under checkpointing the block runs without a graph: what it would keep exists only while it runs.
    const std::int64_t running = setup_.grad_checkpointing ? t.recomputed[k] : 0;
    if (fixed + so_far + running + op <= fwd.allocated) continue;
    fwd.allocated = fixed + so_far + running + op;
    fwd.at = g_.nodes[k].name;
    fwd.terms = {{"parameters", st.parameters},
                 {"model_inputs", t.inputs},
                 {"optimizer_state", st.optimizer_state},
                 {"gradients", t.kept_grads},
                 {"autocast_weight_copies", st.autocast_copies},
                 {"activations", so_far + running},
                 {"logits", 0},
                 {"previous_step_logits", t.held_logits},
                 {"loss_buffers", 0},
                 {"op_transients", op},
                 {"quantized_weight_dequant", st.dequant_transient},
                 {"cublas_workspace", st.workspace}};
  }
  return fwd;
}

// Walks the nodes in reverse: gradients appear as each node finishes, saved tensors and autocast copies go as each
// node's backward consumes them; at each node its op's transients and the gradients flowing between nodes.
PhaseMemory MemoryModel::backward_phase(const StepTerms& t) const {
  const auto& st = static_;
  const std::size_t n = g_.nodes.size();
  PhaseMemory bwd{"backward", "", 0, {}};
  std::int64_t grads = t.kept_grads, copies = st.autocast_copies, alive = t.activations;
  std::int64_t recompute = 0;
  int current_block = -2;
  bool head_done = false;
  auto moment = [&](std::size_t k, std::int64_t grads_now, std::int64_t loss_bytes, std::int64_t op) {
    const std::int64_t total = st.parameters + t.inputs + st.optimizer_state + grads_now + copies + alive +
                               recompute + t.held_logits + loss_bytes + t.in_flight + op + node_accumulation_[k] +
                               st.dequant_transient + st.workspace;
    // Named terms are built only for a new maximum: solvers probe this walk many times.
    if (total <= bwd.allocated) return;
    bwd.allocated = total;
    bwd.terms = {{"parameters", st.parameters},
                 {"model_inputs", t.inputs},
                 {"optimizer_state", st.optimizer_state},
                 {"gradients", grads_now},
                 {"autocast_weight_copies", copies},
                 {"activations", alive + recompute},
                 {"logits", t.held_logits},
                 {"loss_buffers", loss_bytes},
                 {"activation_gradients", t.in_flight},
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
        if (g_.nodes[j].block == node.block) recompute += t.recomputed[j];
    } else if (node.block < 0) {
      recompute = 0;
    }
    // The loss's backward runs before the head's, whose weight gradient then meets the logits' gradient alone.
    const bool head = !head_done && node.type == graph::NodeType::LMHead;
    if (head) moment(k, grads, t.loss_backward, 0);
    if (!setup_.keep_gradients) grads += node_grads_[k];
    // An op's widest backward moment comes before the weight gradients it says come after it, unless those
    // buffers already exist (kept between steps or micro-batches).
    const auto& a = acts_.nodes[k];
    const std::int64_t op = std::max<std::int64_t>(
        0, transient_bytes(a.backward_transient, t.batch) - (setup_.keep_gradients ? 0 : a.gradients_after));
    // The graph's Output holds nothing of its own; the loss's moment is the head's.
    if (node.type != graph::NodeType::Output)
      moment(k, grads, head_done ? 0 : head ? t.head_gradient : t.loss_backward, op);
    alive -= t.kept[k];
    copies -= node_copies_[k];
    if (node.type == graph::NodeType::LMHead) head_done = true;
  }
  return bwd;
}

MemoryPlan MemoryModel::at(std::int64_t batch) const {
  MemoryPlan plan;
  plan.mode = setup_.mode;
  plan.batch = batch;
  plan.trainable_parameters = trainable_;
  const auto& st = static_;
  const auto t = step_terms(batch);

  PhaseMemory opt{"optimizer_step", "", 0, {}};
  opt.terms = {{"parameters", st.parameters},
               {"model_inputs", t.inputs},
               {"optimizer_state", st.optimizer_state},
               {"gradients", st.gradients},
               {"optimizer_temporaries", st.optimizer_temporaries},
               {"cublas_workspace", st.workspace}};
  // QLoRA loaded whole in 16 bits and quantized afterwards: the load is a phase of its own.
  PhaseMemory load{"load", "", 0, {{"parameters_at_load_dtype", st.load_bytes}}};
  for (auto* p : {&opt, &load})
    for (const auto& term : p->terms) p->allocated += term.bytes;
  if (st.load_bytes > 0) plan.phases.push_back(load);
  plan.phases.push_back(forward_phase(t));
  plan.phases.push_back(backward_phase(t));
  if (has_optimizer_step(setup_.optimizer)) plan.phases.push_back(opt);
  const PhaseMemory* peak = &plan.phases[0];
  for (const auto& p : plan.phases)
    if (p.allocated > peak->allocated) peak = &p;
  plan.peak_phase = peak->phase;
  plan.peak_at = peak->at;
  plan.peak_allocated = peak->allocated;
  const std::int64_t fragmentation =
      static_cast<std::int64_t>(static_cast<double>(plan.peak_allocated) * rt_.fragmentation_fraction);
  plan.reserved = plan.peak_allocated + fragmentation;
  plan.device_bytes = plan.reserved + rt_.cuda_context_bytes + st.paged_optimizer_state;
  for (const auto& term : peak->terms)
    if (term.bytes) plan.breakdown.push_back(term);
  plan.breakdown.push_back({"allocator_fragmentation", fragmentation});
  if (st.paged_optimizer_state) plan.breakdown.push_back({"paged_optimizer_state", st.paged_optimizer_state});
  plan.breakdown.push_back({"cuda_context", rt_.cuda_context_bytes});
  return plan;
}

}  // namespace neurarch::plan
