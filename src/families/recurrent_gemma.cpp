// RecurrentGemma (models/recurrent_gemma/modeling_recurrent_gemma.py + configuration_recurrent_gemma.py, transformers
// 5.24.0; the shared ground truth is 4.47.1's, the same tensors): Griffin's residual stack. Each layer's
// `temporal_block` is, by `block_types` repeated over the layers (default recurrent, recurrent, attention), either
// Griffin's recurrent block (a gelu branch and an RG-LRU branch behind a depthwise conv1d of conv1d_width taps,
// lru_width wide, gates in num_attention_heads blocks) or local attention over attention_window_size tokens
// (q/k/v without bias unless attention_bias, o_proj always with one; rotary on half of each head). The MLP is
// gated with biases and intermediate_size / 2 wide. head_dim is always hidden_size / num_attention_heads (the
// config class overwrites any head_dim key). The embeddings are scaled by sqrt(hidden_size) through a
// non-persistent buffer, and the LM head is tied to them unless tie_word_embeddings is false.
#include <limits>
#include <string>
#include <vector>

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "blocks/recurrent.hpp"
#include "families/llama_common.hpp"

namespace neurarch::families {
namespace recurrent_gemma_impl {
namespace {

/// Per layer: true for a recurrent block. The config class repeats block_types (a list of "recurrent" and
/// "attention") over num_hidden_layers.
std::vector<bool> recurrent_layers(const Config& c, std::int64_t layers) {
  std::vector<std::string> types{"recurrent", "recurrent", "attention"};
  if (const auto* raw = c.raw({"block_types"}); raw && raw->is_array() && !raw->empty()) {
    types.clear();
    for (const auto& t : *raw) types.push_back(t.is_string() ? t.get<std::string>() : "");
  } else {
    c.record_default("block_types", types);
  }
  std::vector<bool> out;
  for (std::int64_t i = 0; i < layers; ++i) out.push_back(types[static_cast<std::size_t>(i) % types.size()] == "recurrent");
  return out;
}

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  const Config& c = in.config;
  decoder::DecoderSpec s;
  s.vocab = c.dim({"vocab_size"}, 256000);
  s.hidden = c.dim({"hidden_size"}, 2560);
  s.layers = c.dim({"num_hidden_layers"}, 26);
  s.heads = c.dim({"num_attention_heads"}, 10);
  s.kv_heads = c.dim({"num_key_value_heads"}, s.heads);
  s.head_dim = s.hidden / s.heads;
  s.intermediate = c.dim({"intermediate_size"}, 3 * 2560) / 2;
  s.activation = c.text({"hidden_activation"}, "gelu_pytorch_tanh");
  s.tie_word_embeddings = c.flag({"tie_word_embeddings"}, true);
  // Rotary positions and no max_position_embeddings: no length is past the model's; the default sequence is the
  // usual cap.
  s.positions = std::numeric_limits<std::int64_t>::max();
  const bool bias = c.flag({"attention_bias"}, false);
  s.qkv_bias = bias;
  s.o_bias = true;
  s.mlp_bias = true;
  s.down_bias = true;
  s.attention_dropout = c.number({"attention_dropout"}, 0.0);
  s.window = c.dim({"attention_window_size"}, 2048);
  s.names.attn = "temporal_block";
  s.names.pre_attn_norm = "temporal_pre_norm";
  s.names.pre_ffn_norm = "channel_pre_norm";
  s.names.mlp = "mlp_block";
  s.names.final_norm = "final_norm";

  const blocks::RgLruBlockSpec mixer{.hidden = s.hidden, .width = c.dim({"lru_width"}, s.hidden), .heads = s.heads,
                                     .conv_kernel = c.dim({"conv1d_width"}, 4), .activation = s.activation};
  s.attention_override = [recurrent = recurrent_layers(c, s.layers), mixer](
                             graph::GraphBuilder& gb, const graph::Value& x, std::int64_t i, const graph::Scope& layer) {
    if (!recurrent[static_cast<std::size_t>(i)]) return graph::Value{};  // local attention
    blocks::RgLruBlockSpec m = mixer;
    m.module = layer / "temporal_block";
    return blocks::rg_lru_block(gb, x, fmt::format("RG_LRU_{}", i), m);
  };
  return decoder::build_decoder(in, b, s);
}

}  // namespace
}  // namespace recurrent_gemma_impl

const Family& recurrent_gemma_family() {
  static const Family family{"recurrent_gemma", "models/recurrent_gemma/modeling_recurrent_gemma.py",
                             classes("RecurrentGemma", {heads::ForCausalLM}), recurrent_gemma_impl::build};
  return family;
}

}  // namespace neurarch::families
