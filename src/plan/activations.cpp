#include "plan/activations.hpp"

#include <algorithm>
#include <numeric>

#include <fmt/format.h>

namespace neurarch::plan {
namespace {
using graph::Node;
using graph::NodeType;

std::int64_t tokens_of(const graph::Shape& s) {
  if (s.size() < 2) return 1;
  std::int64_t t = 1;
  for (std::size_t i = 0; i + 1 < s.size(); ++i) t *= s[i];
  return t;
}

// Bytes per element of what each node hands on. Under autocast, matmuls emit bf16, norms run in
// fp32, and elementwise ops promote to the wider operand (the fp32 residual stream stays fp32).
struct Precision {
  bool autocast;
  int compute;  ///< bytes of matmul outputs
  int params;   ///< bytes of non-matmul parameters (embeddings, norm weights, layer scale)
};

class Builder {
 public:
  Builder(const graph::Graph& g, const Setup& s, const std::vector<WeightRole>& roles)
      : g_(g), s_(s), roles_(roles), out_bytes_(g.nodes.size(), 4) {
    bool full = s.mode == Mode::Full;
    p_.autocast = s.autocast_bf16;
    p_.params = full ? 4 : 2;
    p_.compute = s.autocast_bf16 ? 2 : p_.params;
  }

  ActivationModel run() {
    ActivationModel m;
    for (const auto& n : g_.nodes) m.nodes.push_back(node(n));
    m.logits = logits_;
    m.notes = std::move(notes_);
    return m;
  }

 private:
  // The matmul weights of a node in declaration order (blocks declare input projections first,
  // the output projection last), and whether each one makes autograd keep its input.
  std::vector<bool> saving_weights(const Node& n) const {
    std::vector<bool> out;
    for (int t : n.tensors) {
      const auto& r = roles_[static_cast<std::size_t>(t)];
      if (!r.matmul) continue;
      // Under LoRA a classifier head is trained in full (PEFT's modules_to_save); an LM head is frozen.
      bool trainable_weight = s_.mode == Mode::Full || n.type == NodeType::Classifier;
      out.push_back(trainable_weight || r.lora_target);
    }
    return out;
  }

  bool lora_on(const Node& n, std::size_t matmul_index) const {
    std::size_t i = 0;
    for (int t : n.tensors) {
      const auto& r = roles_[static_cast<std::size_t>(t)];
      if (!r.matmul) continue;
      if (i++ == matmul_index) return r.lora_target && s_.mode != Mode::Full;
    }
    return false;
  }

  // A linear keeps its input for the weight gradient. Autocast casts an fp32 input separately for
  // every linear that reads it (only weights are cached), so q, k and v each keep their own copy;
  // a bf16 input is shared. LoRA with dropout keeps a mask and a dropped copy per adapted linear.
  void linear_inputs(NodeActivations& a, const Node& n, std::size_t first, std::size_t count, std::int64_t elements,
                     int in_bytes, const std::string& what) {
    auto saving = saving_weights(n);
    int readers = 0, lora_readers = 0;
    for (std::size_t i = first; i < first + count && i < saving.size(); ++i) {
      if (!saving[i]) continue;
      if (lora_on(n, i)) ++lora_readers;
      else ++readers;
    }
    bool cast = p_.autocast && in_bytes > 2;
    if (lora_readers > 0 && s_.lora_dropout > 0) {
      a.saved.push_back({what + ": LoRA dropout masks", elements * lora_readers, s_.dropout_mask_bytes});
      a.saved.push_back({what + ": LoRA dropped copies", elements * lora_readers, cast ? 2 : in_bytes});
      lora_dropout_seen_ = true;
    } else {
      readers += lora_readers;
    }
    if (readers == 0) return;
    if (cast)
      a.saved.push_back({what + " (bf16 casts)", elements * readers, 2});
    else
      a.saved.push_back({what, elements, in_bytes});
  }

  void lora_bottlenecks(NodeActivations& a, const Node& n, std::int64_t tokens) {
    std::int64_t adapted = 0;
    for (int t : n.tensors)
      if (roles_[static_cast<std::size_t>(t)].lora_target && s_.mode != Mode::Full) ++adapted;
    if (adapted) a.saved.push_back({"LoRA A outputs", tokens * s_.lora_rank * adapted, p_.compute});
  }

  // Saved by the activation function itself, per intermediate element.
  void activation(NodeActivations& a, const std::string& act, std::int64_t elements) {
    int c = p_.compute;
    if (act == "gelu_new" || act == "gelu_fast") {
      // Python tanh formula: keeps x, tanh(...), 0.5*x and 1+tanh(...); pow and tanh run in fp32
      // under autocast.
      int wide = p_.autocast ? 4 : c;
      a.saved.push_back({"GELU (tanh formula) intermediates", elements, 2 * c + 2 * wide});
    } else if (act == "quick_gelu") {
      a.saved.push_back({"quick-GELU input and sigmoid", elements * 2, c});
    } else if (!act.empty()) {
      a.saved.push_back({act + " input", elements, c});
    }
  }

  void output_dropout(NodeActivations& a, const Node& n) {
    if (n.dropout > 0) a.saved.push_back({"dropout mask", tokens_of(n.out) * n.out.back(), s_.dropout_mask_bytes});
  }

  NodeActivations node(const Node& n) {
    NodeActivations a;
    a.node = n.index;
    const int c = p_.compute;
    const bool full = s_.mode == Mode::Full;
    const Node* in = n.inputs.empty() ? nullptr : &g_.nodes[static_cast<std::size_t>(n.inputs[0])];
    const int in_bytes = in ? out_bytes_[static_cast<std::size_t>(in->index)] : 4;
    const graph::Shape in_shape = in ? in->out : graph::Shape{};
    const std::int64_t tokens = tokens_of(in_shape.empty() ? n.out : in_shape);
    const std::int64_t d_in = in_shape.empty() ? 0 : in_shape.back();
    const std::int64_t d = n.out.empty() ? 0 : n.out.back();
    int out = in_bytes;

    switch (n.type) {
      case NodeType::Input:
        out = g_.input_kind_of(n.index) == "tokens" ? 8 : 4;
        break;
      case NodeType::Embedding:
      case NodeType::LearnedPosEmbed:
        if (g_.input_kind_of(n.index) == "tokens" && full) a.saved.push_back({"lookup indices", tokens_of(n.out), 8});
        out = std::max(in_bytes == 8 ? 0 : in_bytes, p_.params);
        break;
      case NodeType::PatchEmbed: {
        std::int64_t pixels = std::accumulate(in_shape.begin(), in_shape.end(), std::int64_t{1}, std::multiplies<>());
        if (full) a.saved.push_back({"pixels (conv input)", pixels, p_.autocast ? 2 : 4});
        out = std::max(c, p_.params);  // CLS tokens are concatenated in parameter precision
        break;
      }
      case NodeType::LayerNorm:
        // LayerNorm keeps its input (cast to fp32 under autocast) and per-row mean and rstd.
        a.saved.push_back({"LayerNorm input", tokens * d_in, p_.autocast ? 4 : in_bytes});
        a.saved.push_back({"LayerNorm mean/rstd", tokens * 2, 4});
        out = p_.autocast ? 4 : in_bytes;
        break;
      case NodeType::RMSNorm:
        // The reference RMSNorm is written in Python: it upcasts to fp32, keeps that for pow and
        // the rsqrt product, and keeps the normalised tensor for the weight multiply.
        a.saved.push_back({"RMSNorm fp32 input", tokens * d_in, 4});
        a.saved.push_back({"RMSNorm normalised", tokens * d_in, std::max(in_bytes, 2)});
        a.saved.push_back({"RMSNorm rsqrt", tokens, 4});
        out = std::max(in_bytes, p_.params);
        break;
      case NodeType::MultiHeadAttention:
      case NodeType::GroupedQueryAttention:
      case NodeType::MultiQueryAttention:
        attention(a, n, tokens, d_in, in_bytes);
        out = c;
        break;
      case NodeType::FeedForward:
      case NodeType::GatedFeedForward:
      case NodeType::MixtureOfExperts:
        feed_forward(a, n, tokens, d_in, in_bytes);
        out = c;
        break;
      case NodeType::LayerScale:
        if (full) a.saved.push_back({"layer-scale input", tokens * d, in_bytes});
        out = std::max(in_bytes, p_.params);
        break;
      case NodeType::Add:
        // Addition's backward needs neither operand.
        for (int i : n.inputs) out = std::max(out, out_bytes_[static_cast<std::size_t>(i)]);
        break;
      case NodeType::Linear:
        linear_inputs(a, n, 0, 1, tokens * d_in, in_bytes, "dense input");
        lora_bottlenecks(a, n, tokens);
        activation(a, n.activation, tokens * d);
        output_dropout(a, n);
        out = c;
        break;
      case NodeType::Pooler:
        linear_inputs(a, n, 0, 1, d_in, in_bytes, "pooler input (first token)");
        if (!n.activation.empty()) a.saved.push_back({"pooler " + n.activation + " output", d, c});
        out = c;
        break;
      case NodeType::Classifier:
        linear_inputs(a, n, 0, 1, tokens * d_in, in_bytes, "classifier input");
        out = c;
        break;
      case NodeType::LMHead:
        linear_inputs(a, n, 0, 1, tokens * d_in, in_bytes, "LM head input");
        logits_.logits_bytes += tokens * d * c;
        logits_.log_softmax_bytes += tokens * d * 4;
        logits_.loss_transient_bytes += 2 * tokens * d * 4;
        logits_.logits_grad_bytes += tokens * d * (4 + c);
        out = c;
        break;
      case NodeType::Output:
        break;
      case NodeType::RelativePositionBias:
        // An embedding lookup of one bucket index per (query, key) pair; its [heads, q, k]
        // output is added to the scores, which keeps nothing.
        if (full && n.out.size() == 3) a.saved.push_back({"relative-position bucket indices", n.out[1] * n.out[2], 8});
        out = p_.params;
        break;
      case NodeType::Conv1d:
        conv1d(a, n, in_bytes);
        out = c;
        break;
    }
    out_bytes_[static_cast<std::size_t>(n.index)] = out;
    if (lora_dropout_seen_ && !lora_note_) {
      notes_.push_back(fmt::format("LoRA dropout {:.2f} keeps a dropped copy and a mask of every adapted input",
                                   s_.lora_dropout));
      lora_note_ = true;
    }
    return a;
  }

  void attention(NodeActivations& a, const Node& n, std::int64_t tokens, std::int64_t d_in, int in_bytes) {
    const auto& at = *n.attention;
    const int c = p_.compute;
    const std::int64_t h = at.heads, g = at.kv_heads, hd = at.head_dim, tq = at.query_len, tk = at.kv_len;
    const std::int64_t per_token = tokens / std::max<std::int64_t>(tq, 1);  // 1 unless the graph batches inside
    // k and v are expanded to every query head before SDPA when heads are grouped (repeat_kv).
    const std::int64_t kv_saved_heads = g < h ? h : g;
    if (at.kv_input >= 0) {
      cross_attention_inputs(a, n, tokens, d_in, in_bytes);
    } else {
      std::size_t input_projections = at.fused_qkv ? 1 : 3;
      linear_inputs(a, n, 0, input_projections, tokens * d_in, in_bytes, "q/k/v projections' input");
    }
    lora_bottlenecks(a, n, tokens);

    if (at.kv_input >= 0) {
      a.saved.push_back({"q", tokens * h * hd, c});
      a.saved.push_back({"k/v of the encoder states", per_token * tk * 2 * kv_saved_heads * hd, c});
    } else if (at.rotary) {
      a.saved.push_back({"q/k projections (kept by RoPE)", tokens * (h + g) * hd, c});
      a.saved.push_back({"rotate_half(q/k)", tokens * (h + g) * hd, c});
      a.saved.push_back({"q after RoPE", tokens * h * hd, c});
      a.saved.push_back({"k after RoPE", tokens * kv_saved_heads * hd, c});
      a.saved.push_back({"v", tokens * kv_saved_heads * hd, c});
    } else {
      a.saved.push_back({"q/k/v", tokens * (h + 2 * kv_saved_heads) * hd, c});
    }
    if (s_.attention == AttentionImpl::SDPA && at.sdpa) {
      // Flash / memory-efficient kernels keep the output and the log-sum-exp, never the scores;
      // their dropout is regenerated from the RNG state.
      a.saved.push_back({"attention output (SDPA)", tokens * h * hd, c});
      a.saved.push_back({"log-sum-exp", per_token * h * tq, 4});
    } else {
      std::int64_t scores = per_token * h * tq * tk;
      int softmax_bytes = p_.autocast ? 4 : c;  // softmax runs in fp32 under autocast
      a.saved.push_back({"attention probabilities (softmax output)", scores, softmax_bytes});
      if (p_.autocast) a.saved.push_back({"attention probabilities (bf16 cast for PV)", scores, 2});
      if (at.dropout > 0) {
        a.saved.push_back({"attention dropout mask", scores, s_.dropout_mask_bytes});
        if (!p_.autocast) a.saved.push_back({"dropped attention probabilities", scores, c});
      }
      if (!eager_note_ && s_.attention != AttentionImpl::SDPA) {
        notes_.push_back("eager attention keeps the full score and probability matrices (heads x seq x seq)");
        eager_note_ = true;
      }
      if (!eager_only_note_ && !at.sdpa) {
        notes_.push_back(fmt::format("{} has no SDPA path in the reference: its score and probability matrices "
                                     "are kept whatever --attention says",
                                     n.name));
        eager_only_note_ = true;
      }
    }
    auto saving = saving_weights(n);
    if (!saving.empty() && saving.back())
      a.saved.push_back({"output projection input", tokens * h * hd, c});
    output_dropout(a, n);
  }

  // A convolution keeps its input for the weight gradient (cast once under autocast), plus what
  // its activation function keeps.
  void conv1d(NodeActivations& a, const Node& n, int in_bytes) {
    const auto& cv = *n.conv;
    linear_inputs(a, n, 0, 1, cv.in_channels * cv.in_len, in_bytes, "convolution input");
    activation(a, n.activation, cv.out_channels * cv.out_len);
    output_dropout(a, n);
  }

  // Cross-attention: q reads the decoder stream; k and v read the encoder's last state, which
  // every decoder layer shares. Under autocast each k/v linear keeps its own bf16 cast of it;
  // otherwise the one tensor is kept once for all layers.
  void cross_attention_inputs(NodeActivations& a, const Node& n, std::int64_t tokens, std::int64_t d_in,
                              int in_bytes) {
    const auto& at = *n.attention;
    linear_inputs(a, n, 0, 1, tokens * d_in, in_bytes, "q projection input");
    const auto& memory = g_.nodes[static_cast<std::size_t>(at.kv_input)];
    const int memory_bytes = out_bytes_[static_cast<std::size_t>(memory.index)];
    const std::int64_t per_token = tokens / std::max<std::int64_t>(at.query_len, 1);
    const std::int64_t elements = per_token * at.kv_len * (memory.out.empty() ? 0 : memory.out.back());
    const bool cast = p_.autocast && memory_bytes > 2;
    if (memory_saved_.size() != g_.nodes.size()) memory_saved_.assign(g_.nodes.size(), false);
    if (!cast && memory_saved_[static_cast<std::size_t>(memory.index)]) {
      // Only LoRA extras (dropout copies) would still be new; the states themselves are shared.
      NodeActivations extra;
      linear_inputs(extra, n, 1, 2, elements, memory_bytes, "k/v projections' input (encoder states)");
      for (auto& t : extra.saved)
        if (t.what.find("LoRA") != std::string::npos) a.saved.push_back(std::move(t));
      return;
    }
    const std::size_t before = a.saved.size();
    linear_inputs(a, n, 1, 2, elements, memory_bytes, "k/v projections' input (encoder states)");
    if (!cast && a.saved.size() > before) memory_saved_[static_cast<std::size_t>(memory.index)] = true;
  }

  void feed_forward(NodeActivations& a, const Node& n, std::int64_t tokens, std::int64_t d_in, int in_bytes) {
    const auto& f = *n.feed_forward;
    const int c = p_.compute;
    std::int64_t inter = tokens * f.intermediate;
    auto saving = saving_weights(n);
    std::size_t input_projections = saving.size() >= 3 ? 2 : 1;  // gate + up, or fc1 / fused gate_up
    linear_inputs(a, n, 0, input_projections, tokens * d_in, in_bytes, "MLP input");
    lora_bottlenecks(a, n, tokens);
    activation(a, f.activation, inter);
    if (f.gated) a.saved.push_back({"gate activation and up projection (for the product)", inter * 2, c});
    if (f.inner_dropout > 0) a.saved.push_back({"dropout mask before the down projection", inter, s_.dropout_mask_bytes});
    if (!saving.empty() && saving.back()) a.saved.push_back({"down projection input", inter, c});
    output_dropout(a, n);
  }

  const graph::Graph& g_;
  const Setup& s_;
  const std::vector<WeightRole>& roles_;
  std::vector<int> out_bytes_;
  Precision p_{};
  LogitsTerms logits_;
  std::vector<std::string> notes_;
  bool lora_dropout_seen_ = false, lora_note_ = false, eager_note_ = false, eager_only_note_ = false;
  std::vector<bool> memory_saved_;  ///< encoder states already kept (uncast) by an earlier cross-attention
};

}  // namespace

std::int64_t NodeActivations::bytes_per_sample() const {
  std::int64_t total = 0;
  for (const auto& t : saved) total += t.bytes(1);
  return total;
}

ActivationModel saved_activations(const graph::Graph& g, const Setup& s, const std::vector<WeightRole>& roles) {
  return Builder(g, s, roles).run();
}

}  // namespace neurarch::plan
