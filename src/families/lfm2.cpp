// LFM2 (models/lfm2/modeling_lfm2.py + configuration_lfm2.py, transformers 4.57.6): a hybrid of
// Llama-style attention layers and gated short-convolution layers, chosen per layer by layer_types
// ("full_attention" / "conv"; absent: full_attn_idxs, else every layer attends). Attention: q/k/v and
// `out_proj` without bias, per-head RMSNorms q_layernorm / k_layernorm [head_dim]. Short convolution
// under `conv`: in_proj [3 x hidden, hidden] gives B, C and x; B * x runs through a depthwise causal
// Conv1d (kernel conv_L_cache, weight [hidden, 1, L]); C scales its output; out_proj [hidden, hidden];
// conv_bias on all three. The MLP is `feed_forward` w1 (gate) / w3 (up) / w2 (down), its width
// block_ff_dim (else intermediate_size) shrunk to 2/3, times block_ffn_dim_multiplier and rounded up
// to block_multiple_of when block_auto_adjust_ff_dim. Norms: operator_norm, ffn_norm and a final
// norm named `embedding_norm`. Embeddings tied by default (tie_embedding in the original keys).
#include <algorithm>

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "families/lfm2.hpp"

namespace neurarch::families {
namespace lfm2_impl {
namespace {

std::int64_t feed_forward_width(const Config& c) {
  std::int64_t width = c.dim({"block_ff_dim", "intermediate_size"}, 12288);
  if (!c.flag({"block_auto_adjust_ff_dim"}, true)) return width;
  width = static_cast<std::int64_t>(2.0 * static_cast<double>(width) / 3.0);
  if (c.has("block_ffn_dim_multiplier"))
    width = static_cast<std::int64_t>(c.number({"block_ffn_dim_multiplier"}, 1.0) * static_cast<double>(width));
  const std::int64_t multiple = c.dim({"block_multiple_of"}, 256);
  return multiple * ((width + multiple - 1) / multiple);
}

std::vector<bool> conv_layers(const Config& c, std::int64_t layers) {
  std::vector<bool> out(static_cast<std::size_t>(layers), false);
  if (const auto* types = c.raw({"layer_types"}); types && types->is_array()) {
    for (std::size_t i = 0; i < out.size() && i < types->size(); ++i)
      out[i] = (*types)[i].is_string() && (*types)[i].get<std::string>() == "conv";
    return out;
  }
  if (const auto* idxs = c.raw({"full_attn_idxs"}); idxs && idxs->is_array()) {
    std::fill(out.begin(), out.end(), true);
    for (const auto& v : *idxs)
      if (v.is_number_integer() && v.get<std::int64_t>() >= 0 && v.get<std::int64_t>() < layers)
        out[static_cast<std::size_t>(v.get<std::int64_t>())] = false;
  }
  return out;
}

}  // namespace
}  // namespace lfm2_impl
using namespace lfm2_impl;

// in_proj -> depthwise causal Conv1d over B * x -> C * conv -> out_proj, on [seq, hidden].
graph::Value lfm2::short_conv(graph::GraphBuilder& b, const graph::Value& x, std::int64_t i,
                              const graph::Scope& module, std::int64_t hidden, std::int64_t kernel, bool bias) {
  auto bcx = blocks::dense(b, x, fmt::format("ShortConv_In_{}", i), module / "in_proj", hidden, 3 * hidden, bias);
  const std::int64_t seq = x.shape.empty() ? 0 : x.shape.front();
  // The reference pads kernel - 1 frames on both sides and keeps the first seq outputs: causal, same length.
  auto conv = b.node(graph::NodeType::Conv1d, fmt::format("ShortConv_{}", i), {seq, hidden}, {bcx}, module / "conv");
  b.at(conv).conv = graph::ConvAttrs{hidden, hidden, kernel, 1, kernel - 1, hidden, seq, seq, true};
  b.parameter(conv, (module / "conv")("weight"), {hidden, 1, kernel}, graph::TensorRole::Conv);
  if (bias) b.parameter(conv, (module / "conv")("bias"), {hidden}, graph::TensorRole::Bias);
  if (kernel < 1) b.fail(conv, fmt::format("conv_L_cache {} leaves the convolution no kernel", kernel));
  return blocks::dense(b, conv, fmt::format("ShortConv_Out_{}", i), module / "out_proj", hidden, hidden, bias);
}

decoder::DecoderSpec lfm2::spec(const Config& c, const decoder::LlamaDefaults& defaults) {
  decoder::DecoderSpec s = decoder::read_llama_config(c, defaults);
  s.tie_word_embeddings = c.flag({"tie_embedding", "tie_word_embeddings"}, defaults.tie_word_embeddings);
  s.qk_norm = decoder::QkNorm::PerHead;
  s.names.o = "out_proj";
  s.names.q_norm = "q_layernorm";
  s.names.k_norm = "k_layernorm";
  s.names.mlp = "feed_forward";
  s.names.gate = "w1";
  s.names.up = "w3";
  s.names.down = "w2";
  s.names.pre_attn_norm = "operator_norm";
  s.names.pre_ffn_norm = "ffn_norm";
  s.names.final_norm = "embedding_norm";
  const std::int64_t kernel = c.integer({"conv_L_cache"}, 3);
  const bool bias = c.flag({"conv_bias"}, false);
  s.attention_override = [conv = conv_layers(c, s.layers), hidden = s.hidden, kernel, bias](
                             graph::GraphBuilder& gb, const graph::Value& x, std::int64_t i,
                             const graph::Scope& layer) -> graph::Value {
    const auto at = static_cast<std::size_t>(i);
    if (at >= conv.size() || !conv[at]) return {};  // an attention layer: the default path
    return lfm2::short_conv(gb, x, i, layer / "conv", hidden, kernel, bias);
  };
  return s;
}

namespace lfm2_impl {
namespace {

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  decoder::DecoderSpec s = lfm2::spec(
      in.config, {.vocab = 65536, .hidden = 2560, .intermediate = 12288, .layers = 32, .heads = 32, .kv_heads = 8,
                  .positions = 128000, .activation = "silu", .tie_word_embeddings = true});
  s.intermediate = feed_forward_width(in.config);
  return decoder::build_decoder(in, b, s);
}

}  // namespace
}  // namespace lfm2_impl

const Family& lfm2_family() {
  static const Family family{"lfm2", "models/lfm2/modeling_lfm2.py", classes("Lfm2", {heads::ForCausalLM}), lfm2_impl::build};
  return family;
}

}  // namespace neurarch::families
