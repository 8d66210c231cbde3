// Gemma 3n text (models/gemma3n/modeling_gemma3n.py + configuration_gemma3n.py; tensors as 4.57.6 saves them,
// which the shared ground truth and the published checkpoints hold): Gemma 3's layer with
// - per-layer embeddings (PLE): a second token table [vocab_size_per_layer_input, layers x
//   hidden_size_per_layer_input] plus a projection of the token embedding, normed and averaged; layer i gates its
//   output down to that width, multiplies by its slice, projects back and adds the result;
// - AltUp: altup_num_inputs parallel residual streams (the embedding and its projections); each layer predicts
//   every stream from all of them with per-token coefficients routed from the active stream, runs the active one
//   through attention and MLP, and corrects every stream by the innovation; the streams are projected back and
//   averaged before the final norm;
// - Laurel: a rank-laurel_rank residual (linear_left, linear_right, post_laurel_norm) beside the attention;
// - intermediate_size per layer (a list), every 5th layer global, a weightless v_norm, q/k norms per head.
// 5.24.0 drops k_proj, v_proj and k_norm from the last num_kv_shared_layers layers (they reuse an earlier layer's
// keys and values); 4.57.6 keeps and saves them, and so do the published files, so they are kept here too.
// The MLP's activation sparsity (a Gaussian top-k on the gate of the first layers) adds no tensors.
#include "families/gemma3n_text.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "blocks/moe.hpp"
#include "core/error.hpp"

namespace neurarch::families {
namespace gemma3n {
namespace gemma3n_text_impl {
namespace {

using namespace blocks;
using graph::NodeType;

std::vector<std::int64_t> per_layer_widths(const Config& c, std::int64_t layers, std::int64_t fallback) {
  const auto* listed = c.raw({"intermediate_size"});
  if (!listed || !listed->is_array())
    return std::vector<std::int64_t>(static_cast<std::size_t>(layers), c.dim({"intermediate_size"}, fallback));
  if (static_cast<std::int64_t>(listed->size()) != layers)
    throw Error(ErrorKind::InvalidInput, fmt::format("{}: key 'intermediate_size'", c.origin()),
                fmt::format("lists {} widths for {} layers", listed->size(), layers));
  std::vector<std::int64_t> widths;
  for (const auto& w : *listed) {
    if (!w.is_number_integer() || w.get<std::int64_t>() <= 0)
      throw Error(ErrorKind::InvalidInput, fmt::format("{}: key 'intermediate_size'", c.origin()),
                  fmt::format("expected positive integers, found {}", w.dump()));
    widths.push_back(w.get<std::int64_t>());
  }
  return widths;
}

Value rms_norm(GraphBuilder& b, const Value& x, const std::string& name, const Scope& module) {
  return norm(b, x, name, {module, NormKind::RMSNorm, false});
}

// q/k/v/o with per-head q and k norms (v's norm has no weight). A layer that reuses keys and values owns
// neither k_proj nor v_proj; one whose keys serve as values owns no v_proj.
Value self_attention(GraphBuilder& b, const Value& x, std::int64_t i, const Scope& l, const TextSpec& t) {
  const decoder::DecoderSpec& s = t.decoder;
  const LayerAttention& la = t.attention[static_cast<std::size_t>(i)];
  const Scope attn = l / "self_attn";
  const std::int64_t window = s.windows[static_cast<std::size_t>(i)];
  const std::string name = BlockNames{i}.attention();
  Value h;
  if (la.keys && la.values) {
    h = attention(b, x, name, {.hidden = s.hidden, .heads = s.heads, .kv_heads = la.kv_heads,
                               .head_dim = la.head_dim, .causal = true, .window = window, .module = attn,
                               .q = attn / "q_proj", .k = attn / "k_proj", .v = attn / "v_proj",
                               .o = attn / "o_proj", .qkv_bias = s.qkv_bias, .o_bias = s.o_bias,
                               .require_divisible = false, .rotary = true});
  } else {
    const std::int64_t kv = la.kv_heads;
    const NodeType type = kv == s.heads ? NodeType::MultiHeadAttention
                          : kv == 1     ? NodeType::MultiQueryAttention
                                        : NodeType::GroupedQueryAttention;
    Shape out = x.shape;
    out.back() = s.hidden;
    h = b.node(type, name, out, {x}, attn);
    const std::int64_t seq = x.shape.size() >= 2 ? x.shape[x.shape.size() - 2] : 1;
    b.at(h).attention = graph::AttentionAttrs{s.heads, kv, la.head_dim, seq, seq, true, window, 0.0, true, false};
    linear_tensors(b, h, attn / "q_proj", s.hidden, s.heads * la.head_dim, s.qkv_bias);
    if (la.keys) linear_tensors(b, h, attn / "k_proj", s.hidden, kv * la.head_dim, s.qkv_bias);
    if (la.values) linear_tensors(b, h, attn / "v_proj", s.hidden, kv * la.head_dim, s.qkv_bias);
    linear_tensors(b, h, attn / "o_proj", s.heads * la.head_dim, s.hidden, s.o_bias, graph::Operand::Inner);
    if (x.shape.back() != s.hidden)
      b.fail(h, fmt::format("expects hidden size {}, receives {}", s.hidden, x.shape.back()));
    if (kv <= 0 || s.heads % kv != 0)
      b.fail(h, fmt::format("{} KV heads do not divide {} query heads", kv, s.heads));
  }
  b.parameter(h, (attn / "q_norm")("weight"), {la.head_dim}, graph::TensorRole::Norm);
  if (la.keys) b.parameter(h, (attn / "k_norm")("weight"), {la.head_dim}, graph::TensorRole::Norm);
  return h;
}

// The dense MLP, and beside it Gemma 4's experts, which read the residual rather than the MLP's normed input.
Value feed_forward_block(GraphBuilder& b, const Value& residual, std::int64_t i, const Scope& l, const TextSpec& t,
                         int& norms) {
  const decoder::DecoderSpec& s = t.decoder;
  const BlockNames names{i};
  auto next_norm = [&](const Value& v, const std::string& module) {
    return rms_norm(b, v, names.norm(++norms, NormKind::RMSNorm), l / module);
  };
  const Scope m = l / "mlp";
  Value h = feed_forward(b, next_norm(residual, "pre_feedforward_layernorm"), names.ffn(),
                         {.hidden = s.hidden, .intermediate = t.intermediates[static_cast<std::size_t>(i)],
                          .activation = s.activation, .gated = true, .module = m, .up = m / "up_proj",
                          .down = m / "down_proj", .gate = m / "gate_proj", .bias = false, .down_bias = false});
  if (!t.experts) return h;
  h = next_norm(h, "post_feedforward_layernorm_1");
  MoESpec e;
  e.hidden = s.hidden;
  e.intermediate = t.experts->intermediate;
  e.experts = t.experts->experts;
  e.top_k = t.experts->top_k;
  e.activation = s.activation;
  e.module = l / "experts";
  e.router = l / "router" / "proj";
  e.bare_experts = l / "experts";
  e.bare_out_in = true;
  e.gate_up = "gate_up_proj";
  e.down = "down_proj";
  auto routed = mixture_of_experts(b, next_norm(residual, "pre_feedforward_layernorm_2"),
                                   fmt::format("MoE_{}", i), e);
  // The router normalises the residual without a weight, then scales it by `scale`; `per_expert_scale`
  // multiplies the chosen experts' weights.
  b.parameter(routed, (l / "router")("scale"), {s.hidden}, graph::TensorRole::Other);
  b.parameter(routed, (l / "router")("per_expert_scale"), {t.experts->experts}, graph::TensorRole::Other);
  routed = next_norm(routed, "post_feedforward_layernorm_2");
  return add(b, h, routed, names.add(3));
}

// One layer over `streams`: [seq, altup_inputs x hidden] with AltUp (the streams side by side), else [seq, hidden].
Value layer(GraphBuilder& b, const Value& streams, const std::optional<Value>& per_layer_inputs, std::int64_t i,
            const Scope& l, const TextSpec& t) {
  const decoder::DecoderSpec& s = t.decoder;
  const std::int64_t hidden = s.hidden, n = t.altup_inputs;
  const std::int64_t seq = streams.shape.front();
  const Shape one{seq, hidden};
  const BlockNames names{i};
  int norms = 0;
  auto next_norm = [&](const Value& v, const std::string& module) {
    return rms_norm(b, v, names.norm(++norms, NormKind::RMSNorm), l / module);
  };
  const Scope altup = l / "altup";

  // AltUp's prediction: a tanh router over the active stream gives each token n x n mixing coefficients.
  Value predictions = streams, active = streams;
  if (n > 0) {
    predictions = b.node(NodeType::Linear, fmt::format("AltUp_Predict_{}", i), streams.shape, {streams}, altup);
    b.parameter(predictions, (altup / "router_norm")("weight"), {hidden}, graph::TensorRole::Norm);
    b.parameter(predictions, (altup / "modality_router")("weight"), {n, hidden}, graph::TensorRole::Linear);
    // The coefficients project the router's n-wide tanh output, not the streams.
    b.parameter(predictions, (altup / "prediction_coefs")("weight"), {n * n, n}, graph::TensorRole::Linear,
                graph::Operand::Internal);
    // The active stream of the predictions (a view, as the graph's other slices are Add nodes).
    active = b.node(NodeType::Add, fmt::format("AltUp_Active_{}", i), one, {predictions});
  }

  const Value normed = next_norm(active, "input_layernorm");
  std::optional<Value> laurel;
  if (t.laurel_rank > 0) {
    // A low-rank MLP without activation (the planner keeps its input and its rank-wide middle), then a norm.
    const Scope m = l / "laurel";
    laurel = feed_forward(b, normed, fmt::format("Laurel_{}", i),
                          {.hidden = hidden, .intermediate = t.laurel_rank, .activation = "", .gated = false,
                           .module = m, .up = m / "linear_left", .down = m / "linear_right", .bias = false,
                           .down_bias = false});
    b.parameter(*laurel, (m / "post_laurel_norm")("weight"), {hidden}, graph::TensorRole::Norm);
  }
  Value h = next_norm(self_attention(b, normed, i, l, t), "post_attention_layernorm");
  Value residual = add(b, h, active, names.add(1));
  // (attention + residual + Laurel) / sqrt(2)
  if (laurel) residual = b.node(NodeType::Add, fmt::format("Laurel_Add_{}", i), one, {residual, *laurel});

  h = next_norm(feed_forward_block(b, residual, i, l, t, norms), "post_feedforward_layernorm");
  Value out = add(b, h, residual, names.add(2));

  // AltUp's correction: every stream moves by the active stream's innovation, scaled per token and stream.
  Value corrected = out;
  if (n > 0) {
    corrected =
        b.node(NodeType::Linear, fmt::format("AltUp_Correct_{}", i), streams.shape, {out, predictions}, altup);
    b.parameter(corrected, (altup / "correction_coefs")("weight"), {n, n}, graph::TensorRole::Linear);
    b.parameter(corrected, altup("correct_output_scale"), {hidden}, graph::TensorRole::Other);
    out = b.node(NodeType::Add, fmt::format("AltUp_Corrected_Active_{}", i), one, {corrected});
  }

  if (per_layer_inputs) {
    const std::int64_t width = t.per_layer_width;
    auto gate = dense(b, out, fmt::format("Per_Layer_Gate_{}", i), l / "per_layer_input_gate", hidden, width, false,
                      s.activation);
    // The gate scaled elementwise by this layer's slice of the per-layer inputs.
    auto product = b.node(NodeType::LayerScale, fmt::format("Per_Layer_Input_{}", i), {seq, width},
                          {gate, *per_layer_inputs});
    auto projected =
        dense(b, product, fmt::format("Per_Layer_Projection_{}", i), l / "per_layer_projection", width, hidden, false);
    projected = next_norm(projected, "post_per_layer_input_norm");
    // With AltUp the result joins the streams other than the active one.
    out = n > 0 ? b.node(NodeType::Add, fmt::format("AltUp_Update_{}", i), streams.shape, {corrected, projected})
                : add(b, projected, out, names.add(4));
  } else if (n > 0) {
    out = corrected;
  }
  // torch.ones(1) at construction: the default dtype, which from_config sets to the model's.
  if (t.layer_scalar) b.buffer(out, l("layer_scalar"), {1}, b.param_dtype());
  return out;
}

}  // namespace
}  // namespace gemma3n_text_impl
using namespace gemma3n_text_impl;

TextSpec text_spec(const Config& c) {
  gemma3_text::Defaults d;
  d.llama = {.vocab = 262400, .hidden = 2048, .intermediate = 16384, .layers = 35, .heads = 8, .kv_heads = 2,
             .head_dim = 256, .positions = 32768, .activation = "gelu_pytorch_tanh", .tie_word_embeddings = true};
  d.window = 512;
  d.global_every = 5;
  TextSpec t;
  t.decoder = gemma3_text::spec(c, d);
  const decoder::DecoderSpec& s = t.decoder;
  t.intermediates = per_layer_widths(c, s.layers, d.llama.intermediate);
  // Checked as the reference checks it, though 4.57.6 keeps every layer's projections (see the top).
  first_shared_layer(c, s, 15);
  t.attention.assign(static_cast<std::size_t>(s.layers), LayerAttention{s.head_dim, s.kv_heads, true, true});
  t.per_layer_vocab = c.dim({"vocab_size_per_layer_input"}, 262144);
  t.per_layer_width = c.dim({"hidden_size_per_layer_input"}, 256);
  t.altup_inputs = c.dim({"altup_num_inputs"}, 4);
  t.altup_correct_scale = c.flag({"altup_correct_scale"}, true);
  const std::int64_t active = c.integer({"altup_active_idx"}, 0);
  if (active < 0 || active >= t.altup_inputs)
    throw Error(ErrorKind::InvalidInput, fmt::format("{}: key 'altup_active_idx'", c.origin()),
                fmt::format("stream {} is not one of the {} AltUp streams", active, t.altup_inputs));
  t.laurel_rank = c.dim({"laurel_rank"}, 64);
  return t;
}

std::int64_t first_shared_layer(const Config& c, const decoder::DecoderSpec& s, std::int64_t default_shared) {
  const std::int64_t shared = c.integer({"num_kv_shared_layers"}, default_shared);
  if (shared < 0 || shared > s.layers)
    throw Error(ErrorKind::InvalidInput, fmt::format("{}: key 'num_kv_shared_layers'", c.origin()),
                fmt::format("{} layers cannot share keys and values in a {}-layer model", shared, s.layers));
  const std::int64_t first = s.layers - shared;
  if (shared == 0 || first == 0) return first;
  // Each sharing layer reuses the last earlier layer of its own type (sliding or full).
  bool produced[2] = {false, false}, consumed[2] = {false, false};
  for (std::int64_t i = 0; i < s.layers; ++i) {
    const int full = s.windows[static_cast<std::size_t>(i)] == 0 ? 1 : 0;
    (i < first ? produced : consumed)[full] = true;
  }
  for (int type = 0; type < 2; ++type)
    if (produced[type] != (produced[type] || consumed[type]))
      throw Error(ErrorKind::InvalidInput, fmt::format("{}: key 'num_kv_shared_layers'", c.origin()),
                  fmt::format("the last {} layers reuse the keys and values of a {} layer before them, and there "
                              "is none",
                              shared, type == 1 ? "full-attention" : "sliding-window"));
  return first;
}

Value build_text(const BuildInput& in, GraphBuilder& b, const TextSpec& t) {
  const decoder::DecoderSpec& s = t.decoder;
  const std::int64_t hidden = s.hidden, n = t.altup_inputs;
  const Scope root = in.head == Head::Base ? Scope() : Scope("model");
  const std::int64_t seq = in.sequence_length(s.positions);
  const Value ids = b.input({seq}, "tokens");
  const Value embedded = token_embedding(b, ids, "Token_Embedding", root / "embed_tokens", s.vocab, hidden);
  if (seq > s.positions)
    b.note(fmt::format("sequence of {} tokens is past max_position_embeddings ({}); rotary positions extrapolate",
                       seq, s.positions));

  std::optional<Value> per_layer_inputs;
  if (t.per_layer_width > 0) {
    const std::int64_t width = s.layers * t.per_layer_width;
    auto table = token_embedding(b, ids, "Per_Layer_Embedding", root / "embed_tokens_per_layer", t.per_layer_vocab,
                                 width);
    auto projected =
        dense(b, embedded, "Per_Layer_Model_Projection", root / "per_layer_model_projection", hidden, width, false);
    auto normed = rms_norm(b, Value{projected.node, {seq, s.layers, t.per_layer_width}}, "Per_Layer_RMSNorm",
                           root / "per_layer_projection_norm");
    // (projection + table) / sqrt(2), one [per_layer_width] slice per layer.
    per_layer_inputs = b.node(NodeType::Add, "Per_Layer_Inputs", {seq, width}, {normed, table});
  }

  Value x = embedded;
  if (n > 0) {
    // The embedding and n - 1 projections of it, each rescaled to the embedding's magnitude.
    std::vector<Value> projections;
    for (std::int64_t k = 1; k < n; ++k)
      projections.push_back(dense(b, embedded, fmt::format("AltUp_Projection_{}", k),
                                  root / "altup_projections" / (k - 1), hidden, hidden, false));
    x = b.node(NodeType::Add, "AltUp_Streams", {seq, n * hidden}, {embedded});
    for (const auto& p : projections) b.at(x).inputs.push_back(p.node);
  }

  for (std::int64_t i = 0; i < s.layers; ++i) {
    b.set_block(static_cast<int>(i));
    x = layer(b, x, per_layer_inputs, i, root / "layers" / i, t);
  }
  b.set_block(-1);

  if (n > 0) {
    // Streams 1.. projected back, rescaled to the active stream's magnitude, and all n averaged.
    std::vector<Value> streams;
    for (std::int64_t k = 1; k < n; ++k) {
      auto stream = b.node(NodeType::Add, fmt::format("AltUp_Stream_{}", k), {seq, hidden}, {x});
      streams.push_back(dense(b, stream, fmt::format("AltUp_Unembed_{}", k),
                              root / "altup_unembed_projections" / (k - 1), hidden, hidden, false));
    }
    auto mean = b.node(NodeType::Add, "AltUp_Mean", {seq, hidden}, {x});
    for (const auto& p : streams) b.at(mean).inputs.push_back(p.node);
    x = mean;
  }
  x = rms_norm(b, x, "Final_RMSNorm", root / "norm");

  if (in.head == Head::CausalLM) {
    LmHeadSpec head{.module = Scope("lm_head"), .hidden = hidden, .vocab = s.vocab};
    if (s.tie_word_embeddings) head.tied_weight = (root / "embed_tokens")("weight");
    return lm_head(b, x, "LM_Head", head);
  }
  return x;
}

}  // namespace gemma3n

namespace gemma3n_text_impl {
namespace {

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  return gemma3n::build_text(in, b, gemma3n::text_spec(in.config));
}

}  // namespace
}  // namespace gemma3n_text_impl

const Family& gemma3n_text_family() {
  static const Family family{"gemma3n_text", "models/gemma3n/modeling_gemma3n.py",
                             {{"Gemma3nTextModel", Head::Base}, {"Gemma3nForCausalLM", Head::CausalLM}}, gemma3n_text_impl::build};
  return family;
}

}  // namespace neurarch::families
