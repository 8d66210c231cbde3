#include "families/hybrid_common.hpp"

#include <nlohmann/json.hpp>

namespace neurarch::families::hybrid {

decoder::DecoderSpec llama_shaped_spec(const Config& c, std::int64_t positions) {
  decoder::DecoderSpec s = decoder::read_llama_config(
      c, {.vocab = 128000, .hidden = 4096, .intermediate = 14336, .layers = 32, .heads = 32, .kv_heads = 8,
          .positions = positions, .activation = "silu", .tie_word_embeddings = false});
  const bool bias = c.flag({"attention_bias"}, false);
  s.qkv_bias = bias;
  s.o_bias = bias;
  s.mlp_bias = c.flag({"mlp_bias"}, false);
  s.down_bias = s.mlp_bias;
  s.attention_dropout = c.number({"attention_dropout"}, 0.0);
  s.names.mlp = "feed_forward";
  s.names.pre_ffn_norm = "pre_ff_layernorm";
  s.names.final_norm = "final_layernorm";
  return s;
}

blocks::MambaMixerSpec mamba2_mixer(const Config& c, std::int64_t hidden, const Mamba2Defaults& d) {
  const std::int64_t inner =
      d.inner > 0 ? d.inner : static_cast<std::int64_t>(c.number({"mamba_expand"}, 2) * static_cast<double>(hidden));
  const std::int64_t heads = c.dim({"mamba_n_heads"}, d.heads);
  const auto* head_dim = c.raw({"mamba_d_head"});
  return {.version = 2,
          .hidden = hidden,
          .inner = inner,
          .state = c.dim({"mamba_d_state"}, d.state),
          .conv_kernel = c.dim({"mamba_d_conv"}, 4),
          .heads = heads,
          .head_dim = !head_dim || head_dim->is_string() || head_dim->is_null() ? (heads > 0 ? inner / heads : 0)
                                                                                : c.dim({"mamba_d_head"}),
          .groups = c.dim({"mamba_n_groups"}, 1),
          .bias = c.flag({"mamba_proj_bias"}, false),
          .conv_bias = c.flag({"mamba_conv_bias"}, true)};
}

}  // namespace neurarch::families::hybrid
