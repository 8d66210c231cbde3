// Gemma 3 text (models/gemma3/modeling_gemma3.py + configuration_gemma3.py, transformers 4.57.6):
// Gemma 2's four RMSNorms per layer plus Qwen3-style q/k norms over each head ([head_dim]).
// Layers slide over `sliding_window` tokens unless layer_types marks them full; without
// layer_types every sliding_window_pattern-th layer (default 6) is global. Local and global layers
// rotate with different bases (rope_local_base_freq, rope_theta), which adds no tensors. The
// embedding is scaled by sqrt(hidden) in the forward only. use_bidirectional_attention
// (EmbeddingGemma) drops the causal mask and halves the window (the reference keeps w // 2 + 1).
#include "families/gemma3_text.hpp"

namespace neurarch::families {

decoder::DecoderSpec gemma3_text::spec(const Config& c, const Defaults& d) {
  // read_llama_config's keys, less intermediate_size (see the header).
  decoder::DecoderSpec s;
  s.vocab = c.dim({"vocab_size"}, d.llama.vocab);
  s.hidden = c.dim({"hidden_size"}, d.llama.hidden);
  s.layers = c.dim({"num_hidden_layers"}, d.llama.layers);
  s.heads = c.dim({"num_attention_heads"}, d.llama.heads);
  s.kv_heads = c.dim({"num_key_value_heads"}, d.llama.kv_heads);
  s.head_dim = c.dim({"head_dim"}, d.llama.head_dim);
  s.positions = c.dim({"max_position_embeddings"}, d.llama.positions);
  s.tie_word_embeddings = c.flag({"tie_word_embeddings"}, d.llama.tie_word_embeddings);
  s.activation = c.text({"hidden_activation"}, d.llama.activation);
  const bool bias = c.flag({"attention_bias"}, false);
  s.qkv_bias = bias;
  s.o_bias = bias;
  s.qk_norm = decoder::QkNorm::PerHead;
  s.names.post_attn_norm = "post_attention_layernorm";
  s.names.pre_ffn_norm = "pre_feedforward_layernorm";
  s.names.post_ffn_norm = "post_feedforward_layernorm";
  const std::int64_t window = decoder::window_or_none(c, "sliding_window", d.window);
  s.windows = decoder::windows_from_layer_types(c, s.layers, window);
  if (s.windows.empty()) {
    const std::int64_t pattern = c.dim({"sliding_window_pattern"}, d.global_every);
    for (std::int64_t i = 0; i < s.layers; ++i) s.windows.push_back((i + 1) % pattern != 0 ? window : 0);
  }
  return s;
}

namespace gemma3_text_impl {
namespace {

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  const Config& c = in.config;
  decoder::DecoderSpec s = gemma3_text::spec(c);
  s.intermediate = c.dim({"intermediate_size"}, 9216);
  // use_bidirectional_attention (EmbeddingGemma) drops the causal mask and halves the window.
  if (c.flag({"use_bidirectional_attention"}, false)) {
    for (auto& w : s.windows)
      if (w > 0) w = w / 2 + 1;
    auto out = decoder::build_decoder(in, b, s);
    for (int i = 0; i <= out.node; ++i)
      if (auto& attrs = b.at(graph::Value{i, {}}).attention) attrs->causal = false;
    return out;
  }
  return decoder::build_decoder(in, b, s);
}

}  // namespace
}  // namespace gemma3_text_impl

const Family& gemma3_text_family() {
  static const Family family{"gemma3_text",
                             "models/gemma3/modeling_gemma3.py",
                             {{"Gemma3TextModel", Head::Base},
                              {"Gemma3ForCausalLM", Head::CausalLM},
                              {"Gemma3TextForSequenceClassification", Head::SequenceClassification}},
                             gemma3_text_impl::build};
  return family;
}

}  // namespace neurarch::families
