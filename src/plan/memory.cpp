#include "plan/memory.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <string_view>

#include "plan/weights.hpp"

namespace neurarch::plan {
namespace {

// Bytes per trainable parameter of the optimizer's state and of its step's working copies.
// AdamW keeps two fp32 moments; PyTorch's default multi-tensor (foreach) step materialises
// sqrt(exp_avg_sq) for the whole group, the fused kernel does not. SGD keeps one momentum buffer.
// 8-bit Adam (bitsandbytes) keeps two 8-bit moments plus block-wise constants.
struct OptimizerBytes {
  double state;
  double temporaries;
};
OptimizerBytes optimizer_bytes(Optimizer o) {
  switch (o) {
    case Optimizer::AdamW: return {8, 4};
    case Optimizer::AdamWFused: return {8, 0};
    case Optimizer::SGDMomentum: return {4, 0};
    case Optimizer::Adam8bit: return {2.0 + 8.0 / 2048.0, 0};
  }
  return {8, 4};
}

// QLoRA stores linear weights as 4-bit NF4 (0.5 byte) with double-quantised block constants
// (8-bit absmax per 64 weights plus an fp32 scale per 256 blocks: 0.127 bits per weight, QLoRA paper).
constexpr double kNf4BytesPerWeight = 0.5 + 0.127 / 8.0;

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
      node_accumulation_(g.nodes.size(), 0) {
  auto roles = weight_roles(g, s);
  acts_ = saved_activations(g, s, roles);
  const bool full = s.mode == Mode::Full;
  const auto opt = optimizer_bytes(s.optimizer);

  std::int64_t largest_matmul = 0;
  // Autocast caches one bf16 cast per leaf tensor that requires grad: a tied head casts the embedding
  // once (its lookup reads fp32), and a weight shared by several layers (ALBERT) is cast once for all of
  // them. A frozen weight's cast is not cached.
  std::set<std::string_view> cast_once;
  // A weight used by several nodes gets its gradient at the first backward that reaches it: the
  // last node using it (a tied head, a shared layer group's last application).
  std::map<std::string_view, std::size_t> last_user;
  for (const auto& t : g.tensors)
    if (!t.saved()) {
      auto& user = last_user[t.tied_to];
      user = std::max(user, static_cast<std::size_t>(t.node));
    }
  for (std::size_t i = 0; i < g.tensors.size(); ++i) {
    const auto& t = g.tensors[i];
    const auto& r = roles[i];
    const std::size_t node = static_cast<std::size_t>(t.node);
    if (r.matmul && s.autocast_bf16 && full && !t.frozen && cast_once.insert(t.saved() ? t.name : t.tied_to).second) {
      std::int64_t copy = allocator_rounded(elements(t) * 2, rt);
      static_.autocast_copies += copy;
      node_copies_[node] += copy;
    }
    if (!t.saved()) continue;
    std::int64_t n = elements(t);
    const std::int64_t params_before = static_.parameters;
    if (t.kind == graph::TensorKind::Buffer) {
      static_.parameters += allocator_rounded(n * dtype_bytes(t.dtype), rt);
      node_params_[node] += static_.parameters - params_before;
      continue;
    }
    std::int64_t trainable_here = 0;
    if (full) {
      static_.parameters += allocator_rounded(n * 4, rt);
      trainable_here = r.trained ? n : 0;
    } else {
      bool quantized = s.mode == Mode::QLoRA && r.matmul && !r.head && t.shape.size() == 2;
      static_.parameters += allocator_rounded(
          quantized ? static_cast<std::int64_t>(static_cast<double>(n) * kNf4BytesPerWeight) : n * 2, rt);
      if (quantized) largest_matmul = std::max(largest_matmul, n);
      if (r.lora_target) {
        // Adapters are created in fp32 (PEFT autocast_adapter_dtype) and trained.
        static_.parameters += allocator_rounded(r.lora_parameters * 4, rt);
        if (s.autocast_bf16) {
          static_.autocast_copies += allocator_rounded(r.lora_parameters * 2, rt);
          node_copies_[node] += allocator_rounded(r.lora_parameters * 2, rt);
        }
        trainable_here = r.lora_parameters;
      }
      if (r.trained) {
        static_.parameters += allocator_rounded(n * 4, rt);  // PEFT's trainable copy (modules_to_save)
        trainable_here = n;
      }
    }
    trainable_ += trainable_here;
    node_trainable_[node] += trainable_here;
    node_params_[node] += static_.parameters - params_before;
    const auto user = last_user.find(t.name);
    const std::size_t grad_node = user == last_user.end() ? node : std::max(node, user->second);
    node_grads_[grad_node] += allocator_rounded(trainable_here * 4, rt);
  }
  // Each earlier user of a shared weight hands autograd a second gradient for it, which the engine adds
  // to the first before AccumulateGrad runs. Without autocast the first is the head's matmul output and
  // the sum is made out of place: the incoming gradient and the sum exist beside the first (three
  // copies at the embedding's backward); under autocast the first is a fresh fp32 cast-back that takes
  // the sum in place (two). Measured on the CPU (docs/cpu-memory.md). One weight at a time, so a node's
  // transient is its largest shared weight's.
  const std::int64_t sum_copies = s.autocast_bf16 ? 1 : 2;
  std::map<std::string_view, std::int64_t> grad_bytes;
  for (std::size_t i = 0; i < g.tensors.size(); ++i) {
    const auto& t = g.tensors[i];
    if (t.saved() && t.kind != graph::TensorKind::Buffer && roles[i].trained)
      grad_bytes[t.name] = allocator_rounded(elements(t) * 4, rt);
  }
  for (const auto& t : g.tensors) {
    const std::string_view key = t.saved() ? std::string_view(t.name) : std::string_view(t.tied_to);
    const auto user = last_user.find(key);
    const auto bytes = grad_bytes.find(key);
    if (user == last_user.end() || bytes == grad_bytes.end()) continue;
    const auto node = static_cast<std::size_t>(t.node);
    if (node < user->second) node_accumulation_[node] = std::max(node_accumulation_[node], sum_copies * bytes->second);
  }
  static_.gradients = 0;
  for (auto b : node_grads_) static_.gradients += b;
  static_.optimizer_state = static_cast<std::int64_t>(static_cast<double>(trainable_) * opt.state);
  static_.optimizer_temporaries = static_cast<std::int64_t>(static_cast<double>(trainable_) * opt.temporaries);
  static_.dequant_transient = allocator_rounded(largest_matmul * 2, rt);
  static_.workspace = rt.cublas_workspace_bytes;
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
  const auto& lg = acts_.logits;
  const std::int64_t logits = allocator_rounded(lg.logits_bytes * batch, rt_);
  const std::int64_t log_softmax = allocator_rounded(lg.log_softmax_bytes * batch, rt_);
  const std::int64_t loss_transient = allocator_rounded(lg.loss_transient_bytes * batch, rt_);
  const std::int64_t logits_grad = allocator_rounded(lg.logits_grad_bytes * batch, rt_);
  const std::int64_t in_flight = 2 * allocator_rounded(widest_output_ * batch * 4, rt_);

  PhaseMemory fwd{"forward_end", "", 0, {}};
  fwd.terms = {{"parameters", st.parameters},
               {"optimizer_state", st.optimizer_state},
               {"autocast_weight_copies", st.autocast_copies},
               {"activations", activations},
               {"logits", logits},
               {"loss_buffers", log_softmax + loss_transient},
               {"quantized_weight_dequant", st.dequant_transient},
               {"cublas_workspace", st.workspace}};

  // Backward: walk the nodes in reverse; gradients appear as each node finishes, saved tensors
  // and autocast copies go as each node's backward consumes them.
  PhaseMemory bwd{"backward", "", 0, {}};
  std::int64_t grads = 0, copies = st.autocast_copies, alive = activations;
  std::int64_t recompute = 0;
  int current_block = -2;
  bool head_done = false;
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
    grads += node_grads_[k];
    std::int64_t loss_bytes = head_done ? 0 : log_softmax + logits_grad;
    std::int64_t total = st.parameters + st.optimizer_state + grads + copies + alive + recompute + loss_bytes +
                         in_flight + node_accumulation_[k] + st.dequant_transient + st.workspace;
    // Named terms are built only for a new maximum: solvers probe this walk many times.
    if (total > bwd.allocated) {
      bwd.allocated = total;
      bwd.terms = {{"parameters", st.parameters},
                   {"optimizer_state", st.optimizer_state},
                   {"gradients", grads},
                   {"autocast_weight_copies", copies},
                   {"activations", alive + recompute},
                   {"loss_buffers", loss_bytes},
                   {"activation_gradients", in_flight},
                   {"shared_weight_gradient_sum", node_accumulation_[k]},
                   {"quantized_weight_dequant", st.dequant_transient},
                   {"cublas_workspace", st.workspace}};
      bwd.at = node.name;
    }
    alive -= kept[k];
    copies -= node_copies_[k];
    if (node.type == graph::NodeType::LMHead) head_done = true;
  }

  PhaseMemory opt{"optimizer_step", "", 0, {}};
  opt.terms = {{"parameters", st.parameters},
               {"optimizer_state", st.optimizer_state},
               {"gradients", st.gradients},
               {"optimizer_temporaries", st.optimizer_temporaries},
               {"cublas_workspace", st.workspace}};

  for (auto* p : {&fwd, &opt}) {
    p->allocated = 0;
    for (const auto& t : p->terms) p->allocated += t.bytes;
  }
  plan.phases = {fwd, bwd, opt};
  const PhaseMemory* peak = &plan.phases[0];
  for (const auto& p : plan.phases)
    if (p.allocated > peak->allocated) peak = &p;
  plan.peak_phase = peak->phase;
  plan.peak_allocated = peak->allocated;
  const std::int64_t fragmentation =
      static_cast<std::int64_t>(static_cast<double>(plan.peak_allocated) * rt_.fragmentation_fraction);
  plan.reserved = plan.peak_allocated + fragmentation;
  plan.device_bytes = plan.reserved + rt_.cuda_context_bytes;
  for (const auto& t : peak->terms)
    if (t.bytes) plan.breakdown.push_back(t);
  plan.breakdown.push_back({"allocator_fragmentation", fragmentation});
  plan.breakdown.push_back({"cuda_context", rt_.cuda_context_bytes});
  return plan;
}

std::int64_t MemoryModel::node_model_bytes(int node) const {
  const auto i = static_cast<std::size_t>(node);
  const auto opt = optimizer_bytes(setup_.optimizer);
  return node_params_[i] + node_grads_[i] + node_copies_[i] +
         static_cast<std::int64_t>(static_cast<double>(node_trainable_[i]) * (opt.state + opt.temporaries));
}

std::int64_t MemoryModel::node_activation_bytes(int node, std::int64_t batch) const {
  std::int64_t bytes = 0;
  for (const auto& t : acts_.nodes[static_cast<std::size_t>(node)].saved) bytes += rounded(t, batch);
  return bytes;
}

std::int64_t MemoryModel::logits_peak_bytes(std::int64_t batch) const {
  const auto& lg = acts_.logits;
  std::int64_t forward = lg.logits_bytes + lg.log_softmax_bytes + lg.loss_transient_bytes;
  std::int64_t backward = lg.log_softmax_bytes + lg.logits_grad_bytes;
  return allocator_rounded(std::max(forward, backward) * batch, rt_);
}

std::int64_t MemoryModel::in_flight_bytes(std::int64_t batch) const {
  return 2 * allocator_rounded(widest_output_ * batch * 4, rt_);
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

const char* optimizer_name(Optimizer o) {
  switch (o) {
    case Optimizer::AdamW: return "adamw";
    case Optimizer::AdamWFused: return "adamw-fused";
    case Optimizer::SGDMomentum: return "sgd-momentum";
    case Optimizer::Adam8bit: return "adam-8bit";
  }
  return "?";
}

}  // namespace neurarch::plan
