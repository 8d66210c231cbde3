// EXAONE 4.0 (models/exaone4/modeling_exaone4.py + configuration_exaone4.py, transformers 4.57.6):
// OLMo 2's post-sublayer norms (post_attention_layernorm, post_feedforward_layernorm) with
// Qwen3's per-head q/k RMSNorms ([head_dim]); no biases. layer_types picks sliding layers
// (default: every sliding_window_pattern-th layer is full).
#include "families/llama_common.hpp"

namespace neurarch::families {
namespace {

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  const Config& c = in.config;
  decoder::DecoderSpec s = decoder::read_llama_config(
      c, {.vocab = 102400, .hidden = 4096, .intermediate = 16384, .layers = 32, .heads = 32, .kv_heads = 32,
          .positions = 2048, .activation = "silu", .tie_word_embeddings = false});
  s.qk_norm = decoder::QkNorm::PerHead;
  s.names.pre_attn_norm.clear();
  s.names.post_attn_norm = "post_attention_layernorm";
  s.names.pre_ffn_norm.clear();
  s.names.post_ffn_norm = "post_feedforward_layernorm";
  const std::int64_t window = decoder::window_or_none(c, "sliding_window", 4096);
  s.windows = decoder::windows_from_layer_types(c, s.layers, window);
  const std::int64_t pattern = window > 0 ? c.integer({"sliding_window_pattern"}, 4) : 0;
  if (s.windows.empty() && pattern > 0)
    for (std::int64_t i = 0; i < s.layers; ++i) s.windows.push_back((i + 1) % pattern != 0 ? window : 0);
  return decoder::build_decoder(in, b, s);
}

}  // namespace

const Family& exaone4_family() {
  static const Family family{"exaone4", "models/exaone4/modeling_exaone4.py",
                             classes("Exaone4",
                                     {heads::ForCausalLM, heads::ForSequenceClassification, heads::ForTokenClassification}),
                             build};
  return family;
}

}  // namespace neurarch::families
