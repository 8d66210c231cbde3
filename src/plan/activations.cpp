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
      : g_(g), s_(s), roles_(roles), out_bytes_(g.nodes.size(), 4), origin_(g.nodes.size()) {
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
    // Which input a node's main operand descends from: a text tower's lookups index token ids, a
    // vision tower's positions are added to pixels' patches.
    const graph::GraphInput* origin = n.type == NodeType::Input ? g_.input_at(n.index)
                                      : in                     ? origin_[static_cast<std::size_t>(in->index)]
                                                               : nullptr;
    origin_[static_cast<std::size_t>(n.index)] = origin;
    const bool from_tokens = origin ? origin->kind == "tokens" : g_.input_kind == "tokens";

    switch (n.type) {
      case NodeType::Input:
        out = from_tokens ? 8 : 4;
        break;
      case NodeType::Embedding:
      case NodeType::LearnedPosEmbed:
        if (from_tokens && full) a.saved.push_back({"lookup indices", tokens_of(n.out), 8});
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
        // Addition's backward needs neither operand; an activation after the sum (ResNet's ReLU) keeps its own.
        for (int i : n.inputs) out = std::max(out, out_bytes_[static_cast<std::size_t>(i)]);
        if (!n.activation.empty())
          activation(a, n.activation, std::accumulate(n.out.begin(), n.out.end(), std::int64_t{1}, std::multiplies<>()));
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
      case NodeType::ContrastiveLogits:
        contrastive(a, n);
        out = 4;  // the bf16 similarities times the fp32 logit_scale
        break;
      case NodeType::Conv2d: {
        // The weight gradient needs the input (a bf16 cast of an fp32 map under autocast); frozen
        // convolutions (LoRA, QLoRA) need only their weights for the input gradient.
        std::int64_t elements = std::accumulate(in_shape.begin(), in_shape.end(), std::int64_t{1}, std::multiplies<>());
        linear_inputs(a, n, 0, 1, elements, in_bytes, "conv input");
        // An activation and dropout on the conv's output (SegFormer's Mix-FFN) keep their own.
        const std::int64_t produced = std::accumulate(n.out.begin(), n.out.end(), std::int64_t{1}, std::multiplies<>());
        activation(a, n.activation, produced);
        if (n.dropout > 0) a.saved.push_back({"dropout mask", produced, s_.dropout_mask_bytes});
        out = c;
        break;
      }
      case NodeType::BatchNorm: {
        // Training-mode batch norm keeps its input and the per-channel batch mean and inverse std
        // (fp32); it runs in its input's dtype under autocast. ReLU after it keeps its output.
        std::int64_t elements = std::accumulate(in_shape.begin(), in_shape.end(), std::int64_t{1}, std::multiplies<>());
        a.saved.push_back({"BatchNorm input", elements, in_bytes});
        a.saved.push_back({"BatchNorm batch mean/invstd", 2 * (in_shape.empty() ? 0 : in_shape.front()), 4});
        activation(a, n.activation, elements);
        break;
      }
      case NodeType::Pool:
        // Max pooling keeps its input and the argmax of every output (int64); average pooling
        // needs only the shapes.
        if (n.spatial && n.spatial->max) {
          a.saved.push_back({"max-pool input", std::accumulate(in_shape.begin(), in_shape.end(), std::int64_t{1},
                                                               std::multiplies<>()),
                             in_bytes});
          a.saved.push_back(
              {"max-pool indices", std::accumulate(n.out.begin(), n.out.end(), std::int64_t{1}, std::multiplies<>()), 8});
        }
        break;
      case NodeType::Output:
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
    std::size_t input_projections = at.fused_qkv ? 1 : 3;
    linear_inputs(a, n, 0, input_projections, tokens * d_in, in_bytes, "q/k/v projections' input");
    lora_bottlenecks(a, n, tokens);

    // k and v are expanded to every query head before SDPA when heads are grouped (repeat_kv).
    const std::int64_t kv_saved_heads = g < h ? h : g;
    if (at.rotary) {
      a.saved.push_back({"q/k projections (kept by RoPE)", tokens * (h + g) * hd, c});
      a.saved.push_back({"rotate_half(q/k)", tokens * (h + g) * hd, c});
      a.saved.push_back({"q after RoPE", tokens * h * hd, c});
      a.saved.push_back({"k after RoPE", tokens * kv_saved_heads * hd, c});
      a.saved.push_back({"v", tokens * kv_saved_heads * hd, c});
    } else {
      a.saved.push_back({"q/k/v", tokens * (h + 2 * kv_saved_heads) * hd, c});
    }
    if (s_.attention == AttentionImpl::SDPA) {
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
      if (!eager_note_) {
        notes_.push_back("eager attention keeps the full score and probability matrices (heads x seq x seq)");
        eager_note_ = true;
      }
    }
    auto saving = saving_weights(n);
    if (!saving.empty() && saving.back())
      a.saved.push_back({"output projection input", tokens * h * hd, c});
    output_dropout(a, n);
  }

  // Each tower's embedding is L2-normalised (the norm keeps its input, in fp32 under autocast, and the
  // division keeps the norm), then one matmul of the two keeps both normalised operands. The B x B
  // logits and their loss add B values per sample, negligible at any batch that fits.
  void contrastive(NodeActivations& a, const Node& n) {
    std::int64_t elements = 0;
    int widest = p_.compute;
    for (int i : n.inputs) {
      elements += g_.nodes[static_cast<std::size_t>(i)].out.back();
      widest = std::max(widest, out_bytes_[static_cast<std::size_t>(i)]);
    }
    a.saved.push_back({"projected embeddings (L2-norm input)", elements, p_.autocast ? 4 : widest});
    a.saved.push_back({"embedding norms", static_cast<std::int64_t>(n.inputs.size()), 4});
    a.saved.push_back({"normalised embeddings (similarity matmul input)", elements, p_.compute});
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
    if (!saving.empty() && saving.back()) a.saved.push_back({"down projection input", inter, c});
    output_dropout(a, n);
  }

  const graph::Graph& g_;
  const Setup& s_;
  const std::vector<WeightRole>& roles_;
  std::vector<int> out_bytes_;
  std::vector<const graph::GraphInput*> origin_;
  Precision p_{};
  LogitsTerms logits_;
  std::vector<std::string> notes_;
  bool lora_dropout_seen_ = false, lora_note_ = false, eager_note_ = false;
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
