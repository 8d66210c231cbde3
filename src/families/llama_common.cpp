#include "families/llama_common.hpp"
#include "families/decoder_layer.hpp"

#include <utility>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "families/decoder_heads.hpp"
#include "families/decoder_stack.hpp"

namespace neurarch::families::decoder {
namespace llama_common_impl {
namespace {

using namespace blocks;
using graph::NodeType;

void qk_norms(GraphBuilder& b, const Value& attn, const Scope& module, const DecoderSpec& s) {
  if (s.qk_norm == QkNorm::ModulePerHead) {
    for (const auto& [name, count] : {std::pair{s.names.q_norm, s.heads}, std::pair{s.names.k_norm, s.kv_heads}})
      for (std::int64_t h = 0; h < count; ++h) {
        const Scope one = module / name / "norms" / h;
        b.parameter(attn, one("weight"), {s.head_dim}, graph::TensorRole::Norm);
        if (s.qk_norm_bias) b.parameter(attn, one("bias"), {s.head_dim}, graph::TensorRole::Bias);
      }
    return;
  }
  Shape q_shape{s.head_dim}, k_shape{s.head_dim};
  if (s.qk_norm == QkNorm::Full) {
    q_shape = {s.heads * s.head_dim};
    k_shape = {s.kv_heads * s.head_dim};
  } else if (s.qk_norm == QkNorm::Stacked) {
    q_shape = {s.heads, s.head_dim};
    k_shape = {s.kv_heads, s.head_dim};
  }
  for (const auto& [name, shape] : {std::pair{s.names.q_norm, q_shape}, std::pair{s.names.k_norm, k_shape}}) {
    b.parameter(attn, (module / name)("weight"), shape, graph::TensorRole::Norm);
    if (s.qk_norm_bias) b.parameter(attn, (module / name)("bias"), shape, graph::TensorRole::Bias);
  }
}

Value make_norm(GraphBuilder& b, const Value& x, const std::string& name, const Scope& module, const DecoderSpec& s) {
  if (s.norm_weight) return norm(b, x, name, {module, s.norm, s.norm_bias});
  return b.node(s.norm == NormKind::RMSNorm ? NodeType::RMSNorm : NodeType::LayerNorm, name, x.shape, {x}, module);
}

Value self_attention(GraphBuilder& b, const Value& x, std::int64_t i, const Scope& l, const DecoderSpec& s) {
  if (s.attention_override)
    if (auto own = s.attention_override(b, x, i, l); own.node >= 0) return own;
  const DecoderNames& n = s.names;
  const Scope attn = l / n.attn;
  AttentionSpec a{.hidden = s.hidden, .heads = s.heads, .kv_heads = s.kv_heads, .head_dim = s.head_dim,
                  .causal = true, .module = attn, .qkv_bias = s.qkv_bias, .o_bias = s.o_bias,
                  .require_divisible = false, .dropout = s.attention_dropout,
                  .output_dropout = s.residual_dropout, .rotary = s.rotary && s.names.positions.empty(),
                  .softmax_fp32 = s.softmax_fp32, .output_gate = s.attention_output_gate};
  const auto at = static_cast<std::size_t>(i);
  a.window = at < s.windows.size() ? s.windows[at] : s.window;
  if (at < s.rope_layers.size()) a.rotary = a.rotary && s.rope_layers[at];
  if (n.qkv.empty()) {
    a.q = attn / n.q;
    a.k = attn / n.k;
    a.v = attn / n.v;
  } else {
    a.qkv = attn / n.qkv;
  }
  a.o = attn / n.o;
  auto h = attention(b, x, BlockNames{i}.attention(), a);
  if (s.qk_norm != QkNorm::None) qk_norms(b, h, attn, s);
  if (!s.attn_sub_norm.empty()) b.parameter(h, (attn / s.attn_sub_norm)("weight"), {s.hidden}, graph::TensorRole::Norm);
  for (const auto& name : s.head_vectors) b.parameter(h, attn(name), {s.head_dim}, graph::TensorRole::Other);
  for (const auto& name : s.head_scalars) b.parameter(h, attn(name), {s.heads}, graph::TensorRole::Other);
  if (s.eager_only) b.at(h).attention->sdpa = false;
  if (s.require_divisible && s.hidden % s.heads != 0)
    b.fail(h, fmt::format("hidden size {} not divisible by {} heads", s.hidden, s.heads));
  if (s.head_dim <= 0) b.fail(h, fmt::format("{} heads leave no width per head in hidden size {}", s.heads, s.hidden));
  return h;
}

Value mlp(GraphBuilder& b, const Value& x, std::int64_t i, const Scope& l, const DecoderSpec& s) {
  if (s.mlp_override) return s.mlp_override(b, x, i, l);
  const DecoderNames& n = s.names;
  const Scope m = l / n.mlp;
  FeedForwardSpec f{.hidden = s.hidden, .intermediate = s.intermediate, .activation = s.activation,
                    .gated = s.gated, .module = m, .up = m / n.up, .down = m / n.down,
                    .bias = s.mlp_bias, .down_bias = s.down_bias, .output_dropout = s.residual_dropout};
  if (s.gated && n.gate_up.empty()) f.gate = m / n.gate;
  if (s.gated && !n.gate_up.empty()) f.gate_up = m / n.gate_up;
  auto h = feed_forward(b, x, BlockNames{i}.ffn(), f);
  if (!s.ffn_sub_norm.empty()) b.parameter(h, (m / s.ffn_sub_norm)("weight"), {s.intermediate}, graph::TensorRole::Norm);
  return h;
}

Value layer(GraphBuilder& b, const Value& x, std::int64_t i, const Scope& l, const DecoderSpec& s) {
  const DecoderNames& n = s.names;
  const BlockNames names{i};
  int k = 0;
  auto next_norm = [&](const Value& v, const std::string& module) {
    return make_norm(b, v, names.norm(++k, s.norm), l / module, s);
  };

  if (s.parallel) {
    const auto normed = next_norm(x, n.pre_attn_norm);
    const auto a = self_attention(b, normed, i, l, s);
    const auto f = mlp(b, n.pre_ffn_norm.empty() ? normed : next_norm(x, n.pre_ffn_norm), i, l, s);
    auto out = b.node(NodeType::Add, names.add(1), x.shape, {a, f, x});
    if (a.shape != x.shape || f.shape != x.shape) b.fail(out, "attention and MLP outputs do not match the residual");
    return out;
  }

  Value h = x;
  if (!n.pre_attn_norm.empty()) h = next_norm(h, n.pre_attn_norm);
  h = self_attention(b, h, i, l, s);
  if (!n.post_attn_norm.empty()) h = next_norm(h, n.post_attn_norm);
  const Value residual = add(b, h, x, names.add(1));

  h = residual;
  if (!n.pre_ffn_norm.empty()) h = next_norm(h, n.pre_ffn_norm);
  h = mlp(b, h, i, l, s);
  if (!n.post_ffn_norm.empty()) h = next_norm(h, n.post_ffn_norm);
  return add(b, h, residual, names.add(2));
}

}  // namespace
}  // namespace llama_common_impl
using namespace llama_common_impl;

graph::Value decoder_layer(GraphBuilder& b, const Value& x, std::int64_t i, const Scope& layer_module,
                           const DecoderSpec& s) {
  return llama_common_impl::layer(b, x, i, layer_module, s);
}

DecoderSpec read_llama_config(const Config& c, const LlamaDefaults& d) {
  DecoderSpec s;
  s.vocab = c.dim({"vocab_size"}, d.vocab);
  s.hidden = c.dim({"hidden_size"}, d.hidden);
  // A default of 0: the config class has no intermediate_size (Solar Open's layers are all mixtures); not read.
  s.intermediate = d.intermediate > 0 ? c.dim({"intermediate_size"}, d.intermediate) : 0;
  s.layers = c.dim({"num_hidden_layers"}, d.layers);
  s.heads = c.dim({"num_attention_heads"}, d.heads);
  // The config classes turn a missing or null kv-head count into the query head count.
  s.kv_heads = c.dim({"num_key_value_heads"}, d.kv_heads > 0 ? d.kv_heads : s.heads);
  s.head_dim = c.integer({"head_dim"}, d.head_dim > 0 ? d.head_dim : s.hidden / s.heads);
  s.positions = c.dim({"max_position_embeddings"}, d.positions);
  s.activation = c.text({"hidden_act"}, d.activation);
  s.tie_word_embeddings = c.flag({"tie_word_embeddings"}, d.tie_word_embeddings);
  return s;
}

std::int64_t window_or_none(const Config& c, std::string_view key, std::int64_t fallback) {
  const auto& j = c.json();
  if (auto it = j.find(key); it != j.end() && it->is_null()) return 0;
  return c.integer({key}, fallback);
}

std::vector<std::int64_t> windows_from_layer_types(const Config& c, std::int64_t layers, std::int64_t window) {
  std::vector<std::int64_t> out;
  const auto* types = c.raw({"layer_types"});
  if (!types || !types->is_array()) return out;
  out.assign(static_cast<std::size_t>(layers), 0);
  for (std::size_t i = 0; i < out.size() && i < types->size(); ++i)
    if ((*types)[i].is_string() && (*types)[i].get<std::string>() == "sliding_attention") out[i] = window;
  return out;
}

std::vector<std::int64_t> qwen_windows(const Config& c, std::int64_t layers, std::int64_t default_window,
                                       std::int64_t default_max_window_layers) {
  const bool sliding = c.flag({"use_sliding_window"}, false);
  const std::int64_t window = sliding ? window_or_none(c, "sliding_window", default_window) : 0;
  if (c.raw({"layer_types"})) return windows_from_layer_types(c, layers, window);
  const std::int64_t first = c.integer({"max_window_layers"}, default_max_window_layers);
  std::vector<std::int64_t> out(static_cast<std::size_t>(layers), 0);
  for (std::int64_t i = 0; i < layers; ++i)
    if (i >= first) out[static_cast<std::size_t>(i)] = window;
  return out;
}

Value decoder_stack(GraphBuilder& b, Value x, const Scope& root, const DecoderSpec& s, int first_block) {
  for (std::int64_t i = 0; i < s.layers; ++i) {
    b.set_block(first_block + static_cast<int>(i));
    x = llama_common_impl::layer(b, x, i, root / s.names.layers / i, s);
  }
  b.set_block(-1);
  const bool rms = s.norm == NormKind::RMSNorm;
  return llama_common_impl::make_norm(b, x, rms ? "Final_RMSNorm" : "Final_LayerNorm", root / s.names.final_norm, s);
}

Value build_decoder(const BuildInput& in, GraphBuilder& b, const DecoderSpec& s) {
  const DecoderNames& n = s.names;
  const Scope root = in.head == Head::Base                ? Scope()
                     : in.head == Head::QuestionAnswering ? Scope(s.qa_prefix)
                                                          : Scope(s.prefix);
  const std::int64_t seq = in.sequence_length(s.positions);
  auto x = b.input({seq}, "tokens");
  x = token_embedding(b, x, "Token_Embedding", root / n.embed, s.vocab, s.hidden);
  if (!n.positions.empty())
    x = learned_positions(b, x, "Position_Embedding", root / n.positions, s.positions + s.position_offset, s.hidden,
                          s.position_offset);
  else if (seq > s.positions)
    b.note(fmt::format("sequence of {} tokens is past max_position_embeddings ({}); {} extrapolate", seq,
                       s.positions, s.rotary ? "rotary positions" : "position encodings"));
  if (!n.embed_norm.empty()) x = norm(b, x, "Embedding_LayerNorm", {root / n.embed_norm});

  x = decoder_stack(b, x, root, s, 0);

  const std::string embedding = (root / n.embed)("weight");
  if (in.head == Head::CausalLM && s.lm_head_is_embedding) {
    auto logits = b.node(NodeType::LMHead, "LM_Head", {seq, s.vocab}, {x});
    b.tied(logits, embedding, {s.vocab, s.hidden}, embedding, graph::TensorRole::Linear);
    return logits;
  }
  return decoder_heads(b, x, in,
                       {.hidden = s.hidden, .vocab = s.vocab, .lm_head = Scope(s.lm_head), .lm_head_bias = s.lm_head_bias,
                        .tied_embedding = s.tie_word_embeddings ? embedding : "",
                        .token_classifier = Scope(s.token_classifier)});
}

}  // namespace neurarch::families::decoder
