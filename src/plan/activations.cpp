#include "plan/activations.hpp"

#include <algorithm>
#include <numeric>

#include <fmt/format.h>

#include "plan/attention_rules.hpp"

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
struct Bytes {
  bool autocast;
  int compute;  ///< bytes of matmul outputs
  int params;   ///< bytes of non-matmul parameters (embeddings, norm weights, layer scale)
};

class Builder {
 public:
  Builder(const graph::Graph& g, const Setup& s, const std::vector<WeightRole>& roles)
      : g_(g), s_(s), roles_(roles), out_bytes_(g.nodes.size(), 4), kept_output_(g.nodes.size(), 0), recorded_(recorded_by_autograd(g)),
        origin_(g.nodes.size()) {
    const bool full = s.mode == Mode::Full;
    const auto rule = precision_rule(s.precision);
    p_.autocast = rule.autocast;
    p_.params = full ? rule.parameter_bytes : rule.frozen_base_bytes;
    p_.compute = rule.autocast ? rule.compute_bytes : p_.params;
  }

  ActivationModel run() {
    ActivationModel m;
    for (const auto& n : g_.nodes) m.nodes.push_back(node(n));
    m.logits = logits_;
    m.notes = std::move(notes_);
    return m;
  }

 private:
  // The matmul weights of a node that multiply `operand`, as its block declared them.
  std::vector<int> matmuls(const Node& n, graph::Operand operand) const {
    std::vector<int> out;
    for (int t : n.tensors)
      if (roles_[static_cast<std::size_t>(t)].matmul && g_.tensors[static_cast<std::size_t>(t)].operand == operand)
        out.push_back(t);
    return out;
  }

  // Whether a matmul weight makes autograd keep its input: a trained weight (its gradient), an adapter
  // (lora_A's gradient) or a 4-bit base that keeps it.
  bool saving(int t) const {
    const auto& r = roles_[static_cast<std::size_t>(t)];
    return r.trained || r.lora_target || quantized(t);
  }

  // A 4-bit base linear that keeps its input: bitsandbytes < 0.43.2's MatMul4Bit keeps it whenever the
  // input needs a gradient (ctx.tensors = (A, B), autograd/_functions.py), frozen weight or not; from 0.43.2
  // on it keeps the packed weight alone (ctx.tensors = (None, B), bitsandbytes#1270).
  bool quantized(int t) const { return roles_[static_cast<std::size_t>(t)].quantized && s_.qlora_keeps_input; }

  // Whether the base matmul itself keeps its input: a trained weight (its gradient) or a 4-bit one.
  bool base_keeps_input(int t) const {
    const auto& r = roles_[static_cast<std::size_t>(t)];
    return r.trained || quantized(t);
  }

  bool lora_on(int t) const { return roles_[static_cast<std::size_t>(t)].lora_target && s_.mode != Mode::Full; }

  // Whether a matmul keeps its input as it comes, not only an adapter's dropped copy.
  bool keeps_plain_input(int t) const {
    if (!saving(t)) return false;
    return !lora_on(t) || base_keeps_input(t) || s_.lora_dropout <= 0;
  }
  bool keeps_plain_input(const Node& n, graph::Operand operand) const {
    const auto readers = matmuls(n, operand);
    return std::any_of(readers.begin(), readers.end(), [&](int t) { return keeps_plain_input(t); });
  }
  bool keeps_input(const Node& n, graph::Operand operand) const {
    const auto readers = matmuls(n, operand);
    return std::any_of(readers.begin(), readers.end(), [&](int t) { return saving(t); });
  }

  // The closing projection (an attention's o_proj, an MLP's down_proj) reads the node's inner activations:
  // it keeps them as a base linear does, plus, when LoRA with dropout adapts it, the adapter's mask and
  // dropped copy, like any other adapted linear.
  void output_projection_input(NodeActivations& a, const Node& n, std::int64_t elements, const std::string& what) {
    linear_inputs(a, n, graph::Operand::Inner, elements, p_.compute, what);
  }

  // A linear keeps its input for the weight gradient. Autocast casts an fp32 input separately for
  // every linear that reads it (only weights are cached), so q, k and v each keep their own copy;
  // a bf16 input is shared. LoRA with dropout keeps a mask and a dropped copy per adapted linear.
  // `adapters_only`: the input itself is already kept (shared encoder states): only the adapters'
  // own dropout copies are new.
  // `one_linear`: the framework's model runs these matmuls as one linear (litgpt's fused qkv), whose adapter
  // drops its input once for all of them.
  void linear_inputs(NodeActivations& a, const Node& n, graph::Operand operand, std::int64_t elements, int in_bytes,
                     const std::string& what, bool adapters_only = false, bool one_linear = false) {
    linear_inputs(a, matmuls(n, operand), elements, in_bytes, what, adapters_only, one_linear);
  }

  void linear_inputs(NodeActivations& a, const std::vector<int>& matmuls, std::int64_t elements, int in_bytes,
                     const std::string& what, bool adapters_only = false, bool one_linear = false) {
    int readers = 0, lora_readers = 0;
    for (int t : matmuls) {
      if (!saving(t)) continue;
      const bool adapted = lora_on(t);
      if (adapted) ++lora_readers;
      if (!adapted || base_keeps_input(t)) ++readers;
    }
    if (one_linear) {
      lora_readers = std::min(lora_readers, 1);
      readers = std::min(readers, 1);
    }
    bool cast = p_.autocast && in_bytes > 2;
    if (lora_readers > 0 && s_.lora_dropout > 0) {
      // PEFT's Linear.forward casts the input to lora_A's dtype before the dropout (_cast_input_dtype,
      // peft/tuners/lora/layer.py): an fp32 adapter drops an fp32 copy, so the CPU's noise mask is fp32
      // too; torchtune / litgpt drop the input as it comes. lora_A then keeps the dropped values, cast
      // to bf16 under autocast.
      const int dropped = s_.lora_fp32_adapters ? adapter_bytes(s_) : in_bytes;
      a.saved.push_back({what + ": LoRA dropout masks", elements * lora_readers, mask_bytes(dropped)});
      a.saved.push_back({what + ": LoRA dropped copies", elements * lora_readers, p_.autocast ? p_.compute : dropped});
      lora_dropout_seen_ = true;
    } else {
      readers += lora_readers;
    }
    if (readers == 0 || adapters_only) return;
    if (cast)
      a.saved.push_back({what + " (bf16 casts)", elements * readers, 2});
    else
      a.saved.push_back({what, elements, in_bytes});
  }

  void lora_bottlenecks(NodeActivations& a, const Node& n, std::int64_t tokens) {
    std::int64_t adapted = 0, adapted_outputs = 0;
    for (int t : n.tensors)
      if (roles_[static_cast<std::size_t>(t)].lora_target && s_.mode != Mode::Full) {
        ++adapted;
        adapted_outputs += g_.tensors[static_cast<std::size_t>(t)].shape.front();
      }
    // DoRA rescales base and adapter outputs by magnitude / ||W + BA||: the product keeps both.
    if (s_.dora && adapted_outputs)
      a.saved.push_back({"DoRA base and adapter outputs", 2 * tokens * adapted_outputs, p_.compute});
    // Without autocast the adapter runs in its own dtype (PEFT casts the input to an fp32 adapter's).
    if (adapted)
      a.saved.push_back({"LoRA A outputs", tokens * s_.lora_rank * adapted, p_.autocast ? p_.compute : adapter_bytes(s_)});
  }

  // Saved by the activation function itself, per intermediate element; `bytes` overrides the compute
  // dtype when the activation runs on a wider tensor (after an fp32 residual sum or frozen batch norm).
  void activation(NodeActivations& a, const std::string& act, std::int64_t elements, int bytes = 0) {
    int c = bytes > 0 ? bytes : p_.compute;
    if (act == "gelu_new" || act == "gelu_fast") {
      // Python tanh formula: keeps x, tanh(...), 0.5*x and 1+tanh(...); pow and tanh run in fp32
      // under autocast.
      int wide = p_.autocast ? 4 : c;
      a.saved.push_back({"GELU (tanh formula) intermediates", elements, 2 * c + 2 * wide});
    } else if (act == "clamped_swiglu") {
      // GPT-OSS's experts: clamp keeps its input (gate_up's output, both interleaved halves), sigmoid its
      // output, and the product its clamped gate; the GLU product terms are counted by the caller.
      a.saved.push_back({"clamped SwiGLU: gate_up output (clamp input)", elements * 2, c});
      a.saved.push_back({"clamped SwiGLU: clamped gate and sigmoid output", elements * 2, c});
    } else if (act == "glu") {
      // nn.GLU keeps its input, twice as wide as the `elements` it produces.
      a.saved.push_back({"GLU input", elements * 2, c});
    } else if (act == "quick_gelu") {
      a.saved.push_back({"quick-GELU input and sigmoid", elements * 2, c});
    } else if (!act.empty()) {
      a.saved.push_back({act + " input", elements, c});
    }
  }

  int mask_bytes(int dropped_bytes) const { return dropout_mask_bytes(s_, dropped_bytes); }

  // Score-shaped tensors (attention_rules.hpp) over `elements` scores.
  static void keep(NodeActivations& a, const std::vector<ScoreTensor>& kept, std::int64_t elements) {
    for (const auto& t : kept) a.saved.push_back({t.what, elements * t.count, t.bytes});
  }
  void softmax(NodeActivations& a, const std::string& what, std::int64_t elements, int bytes) const {
    keep(a, softmax_kept(s_, what, bytes), elements);
  }

  void output_dropout(NodeActivations& a, const Node& n) {
    if (n.dropout > 0) a.saved.push_back({"dropout mask", tokens_of(n.out) * n.out.back(), mask_bytes(p_.compute)});
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
        // An activation on the normed output (GLM-4.1V's merger: GELU after post_projection_norm) keeps its input.
        if (!n.activation.empty()) activation(a, n.activation, tokens * d, out);
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
        feed_forward(a, n, tokens, d_in, in_bytes);
        out = c;
        break;
      case NodeType::MixtureOfExperts:
        if (n.moe)
          mixture_of_experts(a, n, tokens, d_in, in_bytes);
        else
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
          activation(a, n.activation, std::accumulate(n.out.begin(), n.out.end(), std::int64_t{1}, std::multiplies<>()),
                     out);
        break;
      case NodeType::Linear:
        linear_inputs(a, n, graph::Operand::Input, tokens * d_in, in_bytes, "dense input");
        lora_bottlenecks(a, n, tokens);
        activation(a, n.activation, tokens * d);
        output_dropout(a, n);
        out = c;
        break;
      case NodeType::Pooler:
        linear_inputs(a, n, graph::Operand::Input, d_in, in_bytes, "pooler input (first token)");
        if (!n.activation.empty()) a.saved.push_back({"pooler " + n.activation + " output", d, c});
        out = c;
        break;
      case NodeType::Classifier:
        linear_inputs(a, n, graph::Operand::Input, tokens * d_in, in_bytes, "classifier input");
        out = c;
        break;
      case NodeType::LMHead: {
        // One product, even when the head's matrix is two concatenated (MobileBERT's decoder and dense).
        linear_inputs(a, n, graph::Operand::Input, tokens * d_in, in_bytes, "LM head input", false, true);
        lora_bottlenecks(a, n, tokens);
        const auto loss = loss_memory(s_, tokens, d, c);
        logits_.tokens += tokens;
        logits_.vocab = std::max(logits_.vocab, d);
        logits_.compute_bytes = c;
        logits_.logits_bytes += loss.logits;
        logits_.log_softmax_bytes += loss.saved;
        logits_.loss_transient_bytes += loss.forward_transient;
        logits_.logits_grad_bytes += loss.logits_gradient;
        out = c;
      }
        break;
      case NodeType::ContrastiveLogits:
        contrastive(a, n);
        out = 4;  // the bf16 similarities times the fp32 logit_scale
        break;
      case NodeType::Conv2d: {
        // The weight gradient needs the input (a bf16 cast of an fp32 map under autocast); frozen
        // convolutions (LoRA, QLoRA) need only their weights for the input gradient.
        std::int64_t elements = std::accumulate(in_shape.begin(), in_shape.end(), std::int64_t{1}, std::multiplies<>());
        // Uncast, the input a convolution keeps is the tensor its producer made: when a ReLU already keeps it (or
        // a sibling convolution of a residual branch does), only the adapters' own copies are new.
        const bool shared = in && !(p_.autocast && in_bytes > 2) && already_kept(*in, in_bytes);
        linear_inputs(a, n, graph::Operand::Input, elements, in_bytes, "conv input", shared);
        if (in && recorded_[static_cast<std::size_t>(n.index)] && !(p_.autocast && in_bytes > 2) &&
            keeps_plain_input(n, graph::Operand::Input))
          keep_output(*in, in_bytes);
        // An activation and dropout on the conv's output (SegFormer's Mix-FFN) keep their own.
        const std::int64_t produced = std::accumulate(n.out.begin(), n.out.end(), std::int64_t{1}, std::multiplies<>());
        activation(a, n.activation, produced);
        if (n.dropout > 0) a.saved.push_back({"dropout mask", produced, mask_bytes(p_.compute)});
        out = c;
        break;
      }
      case NodeType::BatchNorm: {
        std::int64_t elements = std::accumulate(in_shape.begin(), in_shape.end(), std::int64_t{1}, std::multiplies<>());
        if (frozen_affine(n)) {
          // x * scale + shift with scale and shift computed from buffers: the product needs only the
          // [C] scale for the input gradient, and promotes a bf16 map to the buffers' dtype. ReLU keeps
          // that wider output.
          for (int t : n.tensors)
            out = std::max(out, dtype_bytes(g_.tensors[static_cast<std::size_t>(t)].dtype));
          activation(a, n.activation, elements, out);
          break;
        }
        // Training-mode batch norm keeps its input and the per-channel batch mean and inverse std
        // (fp32); it runs in its input's dtype under autocast. ReLU after it keeps its output.
        a.saved.push_back({"BatchNorm input", elements, in_bytes});
        // Channels lead a [C, H, W] map and close a time-major [frames, channels] sequence (BatchNorm1d).
        const std::int64_t channels = in_shape.empty() ? 0 : in_shape.size() == 2 ? in_shape.back() : in_shape.front();
        a.saved.push_back({"BatchNorm batch mean/invstd", 2 * channels, 4});
        activation(a, n.activation, elements);
        break;
      }
      case NodeType::Pool:
        // Max pooling keeps its input and the argmax of every output (int64); average pooling
        // needs only the shapes.
        if (n.spatial && n.spatial->max) {
          if (!in || !already_kept(*in, in_bytes))
            a.saved.push_back({"max-pool input", std::accumulate(in_shape.begin(), in_shape.end(), std::int64_t{1},
                                                                 std::multiplies<>()),
                               in_bytes});
          if (in && recorded_[static_cast<std::size_t>(n.index)]) keep_output(*in, in_bytes);
          a.saved.push_back(
              {"max-pool indices", std::accumulate(n.out.begin(), n.out.end(), std::int64_t{1}, std::multiplies<>()), 8});
        }
        break;
      case NodeType::Output:
        break;
      case NodeType::LatentAttention:
        latent_attention(a, n, tokens, d_in, in_bytes);
        out = c;
        break;
      case NodeType::StateSpaceMixer:
        state_space(a, n, tokens, d_in, in_bytes);
        out = c;
        break;
      case NodeType::GatedDeltaNet:
        gated_delta_net(a, n, tokens, d_in, in_bytes);
        out = c;
        break;
      case NodeType::RecurrentMixer:
        recurrent_mixer(a, n, tokens, d_in, in_bytes);
        out = c;
        break;
      case NodeType::DeformableAttention:
        deformable_attention(a, n, tokens, d_in, in_bytes);
        out = c;
        break;
      case NodeType::FourierMixer:
        // fftn is linear, so its backward needs nothing saved, and .real is a view: the mixer keeps nothing.
        // Autocast has no rule for the FFT ops: they run in the input's dtype. The complex result (complex64, 8
        // bytes a point, for an fp32 input) lives only until the residual sum has read its real part: a transient
        // the planner has no per-node term for (the loss's up-cast is its only forward transient).
        out = in_bytes;
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
    // ReLU, sigmoid and tanh keep their result for backward: when it is the node's output (no dropout after it)
    // and in the output's dtype, the next node's kept input is the same storage.
    if (recorded_[static_cast<std::size_t>(n.index)] && saves_result(n.activation) && n.dropout <= 0 &&
        (n.type == NodeType::Conv2d || n.type == NodeType::BatchNorm || n.type == NodeType::Linear ||
         n.type == NodeType::Add) &&
        (n.type != NodeType::BatchNorm || frozen_affine(n) || out == c))
      keep_output(n, out);
    // Autograd records no graph where no input needs a gradient and no parameter is trained (pixels
    // through a frozen batch norm or a frozen stem).
    if (!recorded_[static_cast<std::size_t>(n.index)]) a.saved.clear();
    if (lora_dropout_seen_ && !lora_note_) {
      notes_.push_back(fmt::format("LoRA dropout {:.2f} keeps a dropped copy and a mask of every adapted input",
                                   s_.lora_dropout));
      lora_note_ = true;
    }
    return a;
  }

  static bool saves_result(const std::string& act) { return act == "relu" || act == "sigmoid" || act == "tanh"; }
  bool already_kept(const Node& producer, int bytes) const {
    return kept_output_[static_cast<std::size_t>(producer.index)] == bytes;
  }
  void keep_output(const Node& producer, int bytes) { kept_output_[static_cast<std::size_t>(producer.index)] = bytes; }

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
      linear_inputs(a, n, graph::Operand::Input, tokens * d_in, in_bytes, "q/k/v projections' input", false,
                    s_.fused_qkv);
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
    // Disentangled terms: each bmm keeps the relative table projected for every head and repeated for
    // every sample; p2c's also keeps the unscaled key layer (the content score read a scaled copy).
    const std::int64_t projected_table = per_token * h * at.relative_span * hd;
    if (at.c2p) a.saved.push_back({"c2p: relative table through the key projection", projected_table, c});
    if (at.p2c) {
      a.saved.push_back({"p2c: relative table through the query projection", projected_table, c});
      a.saved.push_back({"p2c: key layer", tokens * kv_saved_heads * hd, c});
    }
    attention_core(a, n, at, tokens, tokens * h * hd);
    if (at.output_gate) {
      // attn_output * sigmoid(gate): the product keeps the heads' output (a contiguous copy of the kernel's)
      // and the sigmoid's output, which sigmoid's own backward reuses.
      a.saved.push_back({"heads' output (for the output gate)", tokens * h * hd, c});
      a.saved.push_back({"output gate (sigmoid output)", tokens * h * hd, c});
    }
    output_projection_input(a, n, tokens * h * hd, "output projection input");
    output_dropout(a, n);
  }

  // What the attention product itself keeps (score_rule): SDPA's output and log-sum-exp, or the score-shaped
  // tensors of the eager or math path. `output` is the elements of the heads' concatenated output.
  void attention_core(NodeActivations& a, const Node& n, const graph::AttentionAttrs& at, std::int64_t tokens, std::int64_t output) {
    const int c = p_.compute;
    const std::int64_t h = at.heads, tq = at.query_len, tk = at.kv_len;
    const std::int64_t per_token = tokens / std::max<std::int64_t>(tq, 1);  // 1 unless the graph batches inside
    const auto rule = score_rule(at, s_, p_.autocast, c);
    if (rule.fused) {
      a.saved.push_back({"attention output (SDPA)", output, c});
      a.saved.push_back({"log-sum-exp", per_token * h * tq, 4});
      return;
    }
    keep(a, rule.kept, per_token * h * tq * tk);
    if (rule.math_path) {
      // The math path's scaled fp32 copies of q and k, with v, replace the q/k/v the fused kernel would keep.
      if (p_.autocast) {
        const std::int64_t kv_heads = at.kv_heads < h ? h : at.kv_heads;
        a.saved.push_back({"SDPA math path: q, k, v in fp32 (beyond the bf16 ones)",
                           tokens * at.head_dim * (h + 2 * kv_heads), 2});
      }
      return;
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

  // DeepSeek's MLA as the reference runs it (eager projections, then the attention product): the q
  // and kv down-projections both read the layer input; each latent's RMSNorm keeps its fp32 input,
  // normalised copy and rsqrt; the up-projections keep the normed latents; the RoPE parts go
  // through fp32; q, k (nope and rope parts concatenated) and v reach the attention product, and
  // o_proj keeps the heads' output.
  void latent_attention(NodeActivations& a, const Node& n, std::int64_t tokens, std::int64_t d_in, int in_bytes) {
    const auto& l = *n.latent;
    const auto& at = *n.attention;
    const int c = p_.compute;
    const std::int64_t h = at.heads, qk = l.qk_nope_head_dim + l.qk_rope_head_dim, v = l.v_head_dim;
    const bool q_lora = l.q_lora_rank > 0;
    linear_inputs(a, n, graph::Operand::Input, tokens * d_in, in_bytes, "q/kv down-projections' input");
    lora_bottlenecks(a, n, tokens);
    // The norm's output is weight * x in the input's dtype: fp32 with fp32 weights, cast again by autocast.
    const int latent_bytes = std::max(c, p_.params);
    auto latent_norm = [&](std::int64_t width, const std::string& what) {
      a.saved.push_back({what + " RMSNorm fp32 input", tokens * width, 4});
      a.saved.push_back({what + " RMSNorm normalised", tokens * width, std::max(c, 2)});
      a.saved.push_back({what + " RMSNorm rsqrt", tokens, 4});
    };
    if (q_lora) {
      latent_norm(l.q_lora_rank, "q latent");
      linear_inputs(a, n, graph::Operand::QueryLatent, tokens * l.q_lora_rank, latent_bytes, "q up-projection input");
    }
    latent_norm(l.kv_lora_rank, "kv latent");
    linear_inputs(a, n, graph::Operand::KvLatent, tokens * l.kv_lora_rank, latent_bytes, "kv up-projection input");
    if (l.qk_rope_head_dim > 0)
      a.saved.push_back({"q/k RoPE parts (fp32)", tokens * (h + 1) * l.qk_rope_head_dim, 4});
    a.saved.push_back({"q, k and v", tokens * h * (2 * qk + v), c});
    attention_core(a, n, at, tokens, tokens * h * v);
    output_projection_input(a, n, tokens * h * v, "output projection input");
    output_dropout(a, n);
  }

  // A convolution keeps its input for the weight gradient (cast once under autocast), plus what
  // its activation function keeps.
  void conv1d(NodeActivations& a, const Node& n, int in_bytes) {
    const auto& cv = *n.conv;
    linear_inputs(a, n, graph::Operand::Input, cv.in_channels * cv.in_len, in_bytes, "convolution input");
    if (cv.gated && !n.inputs.empty()) {
      std::int64_t projected = 1;
      for (auto d : g_.nodes[static_cast<std::size_t>(n.inputs.front())].out) projected *= d;
      a.saved.push_back({"gate operands B, C, x (the projection output both products keep)", projected, in_bytes});
      const std::int64_t uncut = (cv.in_len + 2 * cv.padding - cv.kernel) / std::max<std::int64_t>(cv.stride, 1) + 1;
      a.saved.push_back({"convolution output before the cut (kept by the product with C)", cv.out_channels * uncut,
                         p_.compute});
    }
    // The activation rule takes what the activation produces; a GLU halves the convolution's channels.
    const std::int64_t produced = n.activation == "glu" ? cv.out_channels / 2 : cv.out_channels;
    activation(a, n.activation, produced * cv.out_len);
    output_dropout(a, n);
  }

  // Cross-attention: q reads the decoder stream; k and v read the encoder's last state, which
  // every decoder layer shares. Under autocast each k/v linear keeps its own bf16 cast of it;
  // otherwise the one tensor is kept once for all layers.
  void cross_attention_inputs(NodeActivations& a, const Node& n, std::int64_t tokens, std::int64_t d_in,
                              int in_bytes) {
    const auto& at = *n.attention;
    linear_inputs(a, n, graph::Operand::Input, tokens * d_in, in_bytes, "q projection input");
    const auto& memory = g_.nodes[static_cast<std::size_t>(at.kv_input)];
    const int memory_bytes = out_bytes_[static_cast<std::size_t>(memory.index)];
    const std::int64_t per_token = tokens / std::max<std::int64_t>(at.query_len, 1);
    const std::int64_t elements = per_token * at.kv_len * (memory.out.empty() ? 0 : memory.out.back());
    const bool cast = p_.autocast && memory_bytes > 2;
    if (memory_saved_.size() != g_.nodes.size()) memory_saved_.assign(g_.nodes.size(), false);
    if (!cast && memory_saved_[static_cast<std::size_t>(memory.index)]) {
      // Only LoRA extras (dropout copies) would still be new; the states themselves are shared.
      linear_inputs(a, n, graph::Operand::Memory, elements, memory_bytes, "k/v projections' input (encoder states)",
                    true);
      return;
    }
    const std::size_t before = a.saved.size();
    linear_inputs(a, n, graph::Operand::Memory, elements, memory_bytes, "k/v projections' input (encoder states)");
    if (!cast && a.saved.size() > before) memory_saved_[static_cast<std::size_t>(memory.index)] = true;
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
    if (f.token_shift || f.output_gate) {
      channel_mix(a, n, tokens, d_in, in_bytes);
      return;
    }
    std::int64_t inter = tokens * f.intermediate;
    linear_inputs(a, n, graph::Operand::Input, tokens * d_in, in_bytes, "MLP input");
    lora_bottlenecks(a, n, tokens);
    const bool down_keeps = keeps_plain_input(n, graph::Operand::Inner);
    // ReLU's backward reads its output, which is the very tensor an ungated down projection keeps.
    if (f.gated || f.activation != "relu" || !down_keeps) activation(a, f.activation, inter);
    if (f.gated) a.saved.push_back({"gate activation and up projection (for the product)", inter * 2, c});
    if (f.inner_dropout > 0) a.saved.push_back({"dropout mask before the down projection", inter, mask_bytes(c)});
    output_projection_input(a, n, inter, "down projection input");
    output_dropout(a, n);
  }

  // The reference's eager expert loop (Mixtral, Qwen-MoE, OLMoE, GraniteMoE, DeepSeek). The router
  // linear keeps its input; the fp32 softmax keeps its [tokens, experts] output; topk keeps its
  // indices and the routing weights are kept for the product. Each expert gathers the tokens routed
  // to it (a new tensor its projections keep) and runs a dense MLP on them, so summed over experts
  // the MLP terms scale with tokens x top_k, never with the expert count; multiplying by the
  // routing weight keeps each expert's output. Shared experts see every token like a dense MLP.
  void mixture_of_experts(NodeActivations& a, const Node& n, std::int64_t tokens, std::int64_t d_in, int in_bytes) {
    const auto& m = *n.moe;
    const int c = p_.compute;
    const std::int64_t routed = tokens * (m.dispatched > 0 ? m.dispatched : m.top_k);
    if (m.dispatched > m.top_k && !dense_moe_note_) {
      notes_.push_back(fmt::format("{} runs every token through all {} experts (the unchosen with a zero score), as "
                                   "the reference does: its expert activations are {}x what top-{} routing would keep",
                                   n.name, m.dispatched, m.dispatched / std::max<std::int64_t>(m.top_k, 1), m.top_k));
      dense_moe_note_ = true;
    }
    // Router and shared expert (and its gate) all read the layer input.
    linear_inputs(a, n, graph::Operand::Input, tokens * d_in, in_bytes, "router and shared expert input");
    softmax(a, "router probabilities (fp32)", tokens * m.experts, 4);
    a.saved.push_back({"top-k expert indices", routed, 8});
    a.saved.push_back({"top-k routing weights", routed, 4});

    a.saved.push_back({"token indices gathered per expert", routed, 8});
    // The experts are alike: one expert's input projections stand for all of them, each reading its share of
    // the gathered tokens (a stacked weight holds every expert's).
    auto expert_inputs = matmuls(n, graph::Operand::Routed);
    expert_inputs.resize(std::min(expert_inputs.size(), static_cast<std::size_t>(std::max<std::int64_t>(m.expert_inputs, 0))));
    linear_inputs(a, expert_inputs, routed * d_in, in_bytes, "routed experts' gathered input");
    activation(a, m.activation, routed * m.intermediate);
    if (m.gated)
      a.saved.push_back({"experts' gate activation and up projection", routed * m.intermediate * 2, c});
    const auto expert_downs = matmuls(n, graph::Operand::RoutedInner);
    if (!expert_downs.empty() && saving(expert_downs.front()))
      a.saved.push_back({"experts' down projection input", routed * m.intermediate, c});
    a.saved.push_back({"expert outputs (for the routing-weight product)", routed * n.out.back(), c});

    if (m.shared_intermediate > 0) {
      const std::int64_t inter = tokens * m.shared_intermediate;
      activation(a, m.activation, inter);
      if (m.gated) a.saved.push_back({"shared expert gate activation and up projection", inter * 2, c});
      if (keeps_input(n, graph::Operand::Inner)) a.saved.push_back({"shared expert down projection input", inter, c});
    }
    if (m.shared_gate) {
      a.saved.push_back({"shared expert gate (sigmoid output)", tokens, c});
      a.saved.push_back({"shared expert output (for the gate product)", tokens * n.out.back(), c});
    }

    // LoRA adapters on routed experts see only the tokens routed to them.
    if (s_.mode != Mode::Full) {
      std::int64_t rows = 0;
      for (int t : n.tensors) {
        if (!roles_[static_cast<std::size_t>(t)].lora_target) continue;
        const bool is_routed = std::find(m.routed_tensors.begin(), m.routed_tensors.end(), t) != m.routed_tensors.end();
        rows += is_routed ? routed / std::max<std::int64_t>(m.experts, 1) : tokens;
      }
      if (rows) a.saved.push_back({"LoRA A outputs", rows * s_.lora_rank, c});
    }
    output_dropout(a, n);
  }

  // Mamba as it trains on a GPU with the mamba-ssm and causal-conv1d kernels (the path transformers
  // takes when they are installed). in_proj keeps its input. Version 1's fused mamba_inner_fn keeps
  // in_proj's output (x and z), the conv output, x_proj's output, dt, contiguous B and C, the scan
  // output and the scan's fp32 states at each 2048-token chunk boundary, and recomputes the rest
  // (out_proj's input included). Mamba-2's mamba_split_conv1d_scan_combined keeps in_proj's
  // output, the scan output and the gated norm's rstd per group.
  void state_space(NodeActivations& a, const Node& n, std::int64_t tokens, std::int64_t d_in, int in_bytes) {
    const auto& m = *n.ssm;
    const int c = p_.compute;
    linear_inputs(a, n, graph::Operand::Input, tokens * d_in, in_bytes, "in_proj input");
    lora_bottlenecks(a, n, tokens);
    a.saved.push_back({"in_proj output", tokens * m.projection, c});
    if (m.version == 1) {
      constexpr std::int64_t kScanChunk = 2048;  // selective_scan_cuda's chunk length
      a.saved.push_back({"conv1d output", tokens * m.inner, c});
      a.saved.push_back({"x_proj output (dt, B, C)", tokens * (m.time_step_rank + 2 * m.state), c});
      a.saved.push_back({"dt", tokens * m.inner, c});
      a.saved.push_back({"B and C", tokens * 2 * m.state, c});
      a.saved.push_back({"scan output", tokens * m.inner, c});
      a.saved.push_back({"scan chunk states (fp32)", m.inner * ((tokens + kScanChunk - 1) / kScanChunk) * 2 * m.state, 4});
    } else {
      a.saved.push_back({"scan output", tokens * m.inner, c});
      a.saved.push_back({"gated RMSNorm rstd", tokens * m.groups, 4});
    }
    if (!ssm_note_) {
      notes_.push_back("Mamba mixers are sized for the mamba-ssm / causal-conv1d CUDA kernels; without them "
                       "transformers' sequential scan keeps an [inner x state] state for every token");
      ssm_note_ = true;
    }
    output_dropout(a, n);
  }

  // A Gated DeltaNet mixer as transformers 5.24 trains it on a GPU (models/qwen3_next/modeling_qwen3_next.py,
  // models/qwen3_5): with flash-linear-attention and causal-conv1d installed it takes fla's chunk_gated_delta_rule
  // and causal_conv1d_fn over its PyTorch fallbacks; the gated RMSNorm stays eager PyTorch (fla's
  // FusedRMSNormGated replaces it only under use_kernels=True). What autograd keeps:
  // - the input projections keep their input; causal_conv1d_fn (CausalConv1dFn) keeps its input, the
  //   concatenated q/k/v [tokens, 2 key_dim + value_dim], and recomputes its SiLU;
  // - beta = sigmoid(b) keeps its output; g = -exp(A_log) * softplus(a.float() + dt_bias) keeps softplus's fp32
  //   input and output;
  // - ChunkGatedDeltaRuleFunction.forward (fla/ops/gated_delta_rule/chunk.py, flash-linear-attention at
  //   github.com/fla-org/flash-linear-attention) saves q and k after its in-kernel L2 norm with their fp32 rstd,
  //   v, the chunk-local cumulative g (fp32), beta and the solved WY matrix A [tokens, value_heads, chunk] in
  //   k's dtype, and recomputes w, u and the chunk states in backward. q and k are counted at value_heads, as
  //   the PyTorch path and fla releases without grouped-value support repeat them; newer fla reads them at
  //   key_heads. That errs high by 2 x tokens x (value_heads - key_heads) x key_head_dim elements;
  // - the eager gated RMSNorm keeps its fp32 input and rstd, the normalised input cast back (for the weight),
  //   the weighted product (fp32 when an fp32 weight promotes it), the gate's fp32 copy (silu's input) and
  //   silu's output;
  // - out_proj keeps its input.
  void gated_delta_net(NodeActivations& a, const Node& n, std::int64_t tokens, std::int64_t d_in, int in_bytes) {
    const auto& m = *n.linear_attention;
    const int c = p_.compute;
    const std::int64_t key_dim = m.key_heads * m.key_head_dim, value_dim = m.value_heads * m.value_head_dim;
    const std::int64_t per_head = tokens * m.value_heads;
    linear_inputs(a, n, graph::Operand::Input, tokens * d_in, in_bytes, "input projections' input");
    lora_bottlenecks(a, n, tokens);
    a.saved.push_back({"causal conv1d input (q, k, v)", tokens * (2 * key_dim + value_dim), c});
    a.saved.push_back({"beta (sigmoid output)", per_head, c});
    a.saved.push_back({"decay: softplus input and output (fp32)", 2 * per_head, 4});
    a.saved.push_back({"delta rule: L2-normed q and k", 2 * per_head * m.key_head_dim, c});
    a.saved.push_back({"delta rule: q and k rstd (fp32)", 2 * per_head, 4});
    a.saved.push_back({"delta rule: v", tokens * value_dim, c});
    a.saved.push_back({"delta rule: cumulative decay (fp32)", per_head, 4});
    a.saved.push_back({"delta rule: WY matrix A", per_head * m.chunk, c});
    a.saved.push_back({"gated RMSNorm: fp32 input", tokens * value_dim, 4});
    a.saved.push_back({"gated RMSNorm: rstd (fp32)", per_head, 4});
    a.saved.push_back({"gated RMSNorm: normalised input", tokens * value_dim, c});
    a.saved.push_back({"gated RMSNorm: weighted output", tokens * value_dim, p_.autocast ? 4 : c});
    a.saved.push_back({"gated RMSNorm: gate (fp32) and silu output", 2 * tokens * value_dim, 4});
    if (keeps_input(n, graph::Operand::Inner)) a.saved.push_back({"out_proj input", tokens * value_dim, c});
    if (!gdn_note_) {
      notes_.push_back("Gated DeltaNet mixers are sized for flash-linear-attention's chunked kernel and "
                       "causal-conv1d; without them transformers' PyTorch fallback keeps fp32 copies of every "
                       "chunk's matrices");
      gdn_note_ = true;
    }
    output_dropout(a, n);
  }

  // RWKV's token shift: each projection reads hidden * mix + shifted * (1 - mix), a new tensor per projection.
  // The products keep the input and the shifted copy (ZeroPad2d's output) for the mix weights' gradient, which
  // only full training has; the projections keep their own mixes.
  void token_shift_inputs(NodeActivations& a, const Node& n, std::int64_t tokens, std::int64_t d_in, int in_bytes) {
    if (s_.mode == Mode::Full) {
      a.saved.push_back({"token shift: input", tokens * d_in, in_bytes});
      a.saved.push_back({"token shift: shifted input", tokens * d_in, in_bytes});
    }
    for (int t : matmuls(n, graph::Operand::Input))
      linear_inputs(a, {t}, tokens * d_in, p_.autocast ? in_bytes : p_.compute, "token-shift mix (projection input)");
  }

  // RWKV's channel mix (models/rwkv/modeling_rwkv.py, RwkvFeedForward): sigmoid(receptance(xr)) * value(relu(key(xk))^2)
  // with xk and xr token-shift mixes. relu keeps its output, which square and value read too; sigmoid keeps its
  // output and the product both operands. key and receptance read the input, value the squared ReLU.
  void channel_mix(NodeActivations& a, const Node& n, std::int64_t tokens, std::int64_t d_in, int in_bytes) {
    const auto& f = *n.feed_forward;
    const int c = p_.compute;
    const std::int64_t inter = tokens * f.intermediate, out = tokens * n.out.back();
    if (f.token_shift)
      token_shift_inputs(a, n, tokens, d_in, in_bytes);
    else
      linear_inputs(a, n, graph::Operand::Input, tokens * d_in, in_bytes, "MLP input");
    lora_bottlenecks(a, n, tokens);
    a.saved.push_back({"squared ReLU: ReLU output (also the value projection's input)", inter, c});
    if (f.output_gate) {
      a.saved.push_back({"receptance (sigmoid output)", out, c});
      a.saved.push_back({"value projection output (for the receptance product)", out, c});
    }
    output_dropout(a, n);
  }

  // Multi-scale deformable attention (graph::DeformableAttrs) as transformers 5.24 trains it without the custom
  // kernel: the pure-PyTorch MultiScaleDeformableAttention.forward in models/deformable_detr/modeling_deformable_detr.py
  // (the kernels-community kernel is CUDA-only and opt-in). Per module, with Q queries, V value tokens, d = heads x
  // head_dim and S = levels x points samples per query and head:
  // - sampling_offsets and attention_weights both read the queries (plus positions): one input kept by both;
  // - value_proj keeps its input (the encoder states: once for the whole decoder when they are not cast);
  // - grid_sample keeps the projected values, split by level and reshaped to [heads x head_dim, H, W], and its
  //   sampling grid (2 x sampling_locations - 1, per level): V x d and Q x heads x S x 2. The offsets and reference
  //   points themselves are not kept: dividing by the level sizes and adding the reference points need no operand
  //   for the offsets' gradient;
  // - softmax keeps its output, Q x heads x S, and the product with the samples keeps a transposed copy of it and
  //   the stacked grid_sample outputs, Q x d x S (the per-level outputs are not kept: stack's backward slices);
  // - output_proj keeps its input, Q x d.
  // At batch 1 the reshapes are views and the weights' copy does not exist; from batch 2 on they copy, which is what
  // is counted (the total is the same for the values and the grids either way). Checked with saved_tensors_hooks on
  // CPU (torch 2.13, fp32, batch 2): exact but for the bool padding mask masked_fill keeps (V bytes) and the [levels,
  // 2] level sizes (docs/deformable-detection.md). Under autocast softmax runs in fp32 and grid_sampler is a promote
  // op (the fp32 reference points make the grid fp32), so the values, the grids, the samples and both weight tensors
  // are fp32; output_proj keeps a bf16 cast.
  void deformable_attention(NodeActivations& a, const Node& n, std::int64_t tokens, std::int64_t d_in, int in_bytes) {
    const auto& da = *n.deformable;
    const int c = p_.compute;
    const int sampled_bytes = p_.autocast ? 4 : c;
    const std::int64_t d = da.heads * da.head_dim;
    const std::int64_t weights = tokens * da.heads * da.samples;
    linear_inputs(a, n, graph::Operand::Input, tokens * d_in, in_bytes,
                  "sampling offsets' and attention weights' input (queries)");
    value_projection_input(a, n, da);
    lora_bottlenecks(a, n, tokens);
    const std::int64_t per_query = da.queries > 0 ? tokens / da.queries : 1;  // 1 unless the graph batches inside
    a.saved.push_back({"projected values, per level (grid_sample input)", per_query * da.value_len * d,
                       sampled_bytes});
    a.saved.push_back({"sampling grids (grid_sample input)", weights * 2, sampled_bytes});
    softmax(a, "attention weights", weights, p_.autocast ? 4 : c);
    a.saved.push_back({"attention weights, transposed copy (for the weighted sum)", weights, sampled_bytes});
    a.saved.push_back({"sampled values (grid_sample outputs, stacked)", tokens * d * da.samples, sampled_bytes});
    linear_inputs(a, n, graph::Operand::Inner, tokens * d, sampled_bytes, "output projection input");
    output_dropout(a, n);
    if (!deformable_note_) {
      notes_.push_back("multi-scale deformable attention is sized for transformers' pure-PyTorch path (the default); "
                       "the kernels-community CUDA kernel (use_kernels=True) keeps only the values, sampling locations "
                       "and attention weights, not the Q x d x samples grid_sample outputs");
      deformable_note_ = true;
    }
  }

  // value_proj reads the value node: the layer's own stream in an encoder, the encoder's
  // output in a decoder, kept once for all the layers that read it unless autocast casts it again for each.
  void value_projection_input(NodeActivations& a, const Node& n, const graph::DeformableAttrs& da) {
    const auto& memory = g_.nodes[static_cast<std::size_t>(da.value_input)];
    const int memory_bytes = out_bytes_[static_cast<std::size_t>(memory.index)];
    const std::int64_t elements = da.value_len * (memory.out.empty() ? 0 : memory.out.back());
    const bool cast = p_.autocast && memory_bytes > 2;
    if (memory_saved_.size() != g_.nodes.size()) memory_saved_.assign(g_.nodes.size(), false);
    const bool shared = !cast && memory_saved_[static_cast<std::size_t>(memory.index)];
    const std::size_t before = a.saved.size();
    linear_inputs(a, n, graph::Operand::Memory, elements, memory_bytes, "value projection input", shared);
    if (!cast && a.saved.size() > before) memory_saved_[static_cast<std::size_t>(memory.index)] = true;
  }

  // A recurrent mixer (graph::RecurrentAttrs) as transformers 5.24 trains it; each cell's terms are listed with it.
  void recurrent_mixer(NodeActivations& a, const Node& n, std::int64_t tokens, std::int64_t d_in, int in_bytes) {
    const auto& r = *n.recurrent;
    const int c = p_.compute;
    if (r.token_shift)
      token_shift_inputs(a, n, tokens, d_in, in_bytes);
    else
      linear_inputs(a, n, graph::Operand::Input, tokens * d_in, in_bytes, "input projections' input");
    lora_bottlenecks(a, n, tokens);
    const std::int64_t w = tokens * r.width;
    const int wide = p_.autocast ? 4 : c;  // terms an fp32 parameter promotes under autocast
    switch (r.cell) {
      case graph::RecurrentCell::RgLru:
        // Griffin's recurrent block (models/recurrent_gemma, RecurrentGemmaRecurrentBlock and RecurrentGemmaRglru),
        // eager PyTorch with a Python loop over tokens: the y branch keeps its activation's input and output; the
        // conv1d keeps its input; the per-head gates (baddbmm) keep the conv output (a view of it), sigmoid their
        // outputs; -8 r keeps itself for the product with softplus(recurrent_param); the decay
        // a = exp(-8 r softplus(.)) and a^2 (fp32 under autocast, promoted by the fp32 parameter) keep their
        // outputs, the clipped sqrt(1 - a^2) its input; the gamma normalisation keeps x * input_gate and the
        // normaliser; each loop step keeps its slice of the reset-masked fp32 decay and the previous fp32 state;
        // the product with the y branch keeps both, and linear_out its input. Checked on CPU in fp32 (torch
        // 2.13, saved_tensors_hooks): 16 values per token and channel, as here.
        activation(a, n.activation, w);
        a.saved.push_back({"y branch (activation output)", w, c});
        a.saved.push_back({"conv1d input", w, c});
        a.saved.push_back({"RG-LRU: conv output (the gates' input)", w, c});
        a.saved.push_back({"RG-LRU: input and recurrent gates (sigmoid outputs)", 2 * w, c});
        a.saved.push_back({"RG-LRU: -8 x recurrent gate (for the softplus product)", w, c});
        a.saved.push_back({"RG-LRU: decay a and a^2 (exp outputs)", 2 * w, wide});
        a.saved.push_back({"RG-LRU: sqrt(1 - a^2) input", w, wide});
        a.saved.push_back({"RG-LRU: gated input and its normaliser", 2 * w, c});
        a.saved.push_back({"RG-LRU scan: reset-masked decay and every previous state (fp32)", 2 * w, 4});
        a.saved.push_back({"scan output (for the y-branch product)", w, c});
        break;
      case graph::RecurrentCell::Wkv:
        // RWKV-4's time mix (models/rwkv, RwkvSelfAttention) with the WKV CUDA kernel (RwkvLinearAttention saves
        // time_decay, time_first, key, value and its output; fp16 inputs are cast to fp32 first); receptance keeps
        // its sigmoid output for the product, which keeps the kernel output too.
        a.saved.push_back({"WKV: key and value", 2 * w, c});
        a.saved.push_back({"WKV output", w, c});
        a.saved.push_back({"receptance (sigmoid output)", w, c});
        if (!wkv_note_) {
          notes_.push_back("RWKV's WKV is sized for its CUDA kernel (kernels-community/rwkv); without it transformers' "
                           "token-by-token loop keeps several fp32 tensors per token and channel");
          wkv_note_ = true;
        }
        break;
      case graph::RecurrentCell::Mlstm: {
        // xLSTM's mLSTM layer (models/xlstm, xLSTMLayer) with the chunkwise native-autograd kernel
        // (mlstm_chunkwise_native_autograd): the soft-capped gates, logsigmoid, the cumulative decays, the
        // stabilising maxima and their indices are about 16 fp32 values per token and head; per head and chunk of C
        // tokens the intra-chunk decay matrix D (exp output), the scores S = q k^T and their product M are [C, C];
        // q and k are kept by q k^T, the gated q and k by the state products, v and the numerator by the products
        // and the division; the recurrent pass keeps every chunk's [dk, dv] memory and [dk] normaliser. The
        // multi-head LayerNorm runs in fp32 (its input, centred input and rstd); its output, the output gate's
        // sigmoid output and the gated heads are kept by the weight and gate products, and out_proj its input.
        // Checked on CPU in fp32 (torch 2.13, saved_tensors_hooks, 128 and 256 tokens): within 0.1 %.
        const std::int64_t h = tokens * r.heads, chunk = std::max<std::int64_t>(r.chunk, 1);
        const std::int64_t qk = tokens * r.heads * r.key_head_dim;
        const std::int64_t chunks = (tokens + chunk - 1) / chunk;
        const std::int64_t head_dim = r.width / std::max<std::int64_t>(r.heads, 1);
        a.saved.push_back({"mLSTM gates, decays and stabilisers (fp32)", 16 * h, 4});
        a.saved.push_back({"mLSTM: q, k and their gated copies", 4 * qk, c});
        a.saved.push_back({"mLSTM: v and the numerator", 2 * w, c});
        a.saved.push_back({"mLSTM: intra-chunk decay, scores and their product", 3 * h * chunk, c});
        a.saved.push_back({"mLSTM: chunk memories and normalisers",
                           2 * chunks * r.heads * r.key_head_dim * (head_dim + 1), c});
        a.saved.push_back({"multi-head LayerNorm: fp32 input, centred input and rstd", 2 * w + h, 4});
        a.saved.push_back({"LayerNorm output, weighted heads and the output gate (sigmoid output)", 3 * w, c});
        break;
      }
      case graph::RecurrentCell::Lightning: {
        // Lightning attention (models/minimax, MiniMaxLightningAttention), eager PyTorch block by block: SiLU keeps
        // qkv_proj's output and q, k, v are views of its output, which the products keep; per block of C tokens
        // the intra-block scores times the decay mask ([C, C] per head), q and k scaled by their decays, and the
        // running [dk, dv] key-value state of every block. The RMSNorm over all heads keeps its fp32 input, its
        // rstd and the normalised input; sigmoid(output_gate(x)) keeps its output and the product the normed heads.
        // Checked on CPU in fp32 (torch 2.13, saved_tensors_hooks, 128 and 256 tokens): 1.6 % above the measurement.
        const std::int64_t h = tokens * r.heads, chunk = std::max<std::int64_t>(r.chunk, 1);
        const std::int64_t qk = tokens * r.heads * r.key_head_dim;
        const std::int64_t chunks = (tokens + chunk - 1) / chunk;
        const std::int64_t head_dim = r.width / std::max<std::int64_t>(r.heads, 1);
        a.saved.push_back({"lightning: qkv_proj output (SiLU input) and q, k, v (SiLU output)", 2 * (2 * qk + w), c});
        a.saved.push_back({"lightning: decayed q and k", 2 * qk, c});
        a.saved.push_back({"lightning: intra-block decayed scores", h * chunk, c});
        a.saved.push_back({"lightning: every block's key-value state", chunks * r.heads * r.key_head_dim * head_dim, c});
        a.saved.push_back({"RMSNorm: fp32 input and rstd", w + tokens, 4});
        a.saved.push_back({"RMSNorm: normalised input", w, c});
        a.saved.push_back({"output gate (sigmoid output) and normed heads", 2 * w, c});
        break;
      }
    }
    output_projection_input(a, n, w, "output projection input");
    output_dropout(a, n);
  }

  // DETR's frozen batch norm keeps its affine in buffers; a trained one has weight and bias parameters.
  bool frozen_affine(const Node& n) const {
    for (int t : n.tensors)
      if (g_.tensors[static_cast<std::size_t>(t)].kind == graph::TensorKind::Parameter) return false;
    return !n.tensors.empty();
  }

  const graph::Graph& g_;
  const Setup& s_;
  const std::vector<WeightRole>& roles_;
  std::vector<int> out_bytes_;
  /// Bytes per element of a node's output when autograd already keeps that very tensor (a ReLU's result, or a
  /// convolution's or max pool's input saved whole and uncast); 0 otherwise. A later node that keeps the same
  /// tensor as its input adds nothing: autograd saves one storage, however many nodes hold it.
  std::vector<int> kept_output_;
  std::vector<bool> recorded_;  ///< per node: recorded_by_autograd
  bool dense_moe_note_ = false;
  std::vector<const graph::GraphInput*> origin_;
  Bytes p_{};
  LogitsTerms logits_;
  std::vector<std::string> notes_;
  bool lora_dropout_seen_ = false, lora_note_ = false, eager_note_ = false, ssm_note_ = false, eager_only_note_ = false,
       gdn_note_ = false, wkv_note_ = false, deformable_note_ = false;
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
