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
