// Gemma 3 text (models/gemma3/modeling_gemma3.py + configuration_gemma3.py, transformers 4.57.6):
// Gemma 2's four RMSNorms per layer plus Qwen3-style q/k norms over each head ([head_dim]).
// Layers slide over `sliding_window` tokens unless layer_types marks them full; without
// layer_types every sliding_window_pattern-th layer (default 6) is global. Local and global layers
// rotate with different bases (rope_local_base_freq, rope_theta), which adds no tensors. The
// embedding is scaled by sqrt(hidden) in the forward only. use_bidirectional_attention
// (EmbeddingGemma) drops the causal mask and halves the window (the reference keeps w // 2 + 1).
#include "families/llama_common.hpp"

namespace neurarch::families {
namespace {

std::vector<std::int64_t> gemma3_windows(const Config& c, std::int64_t layers, std::int64_t window) {
  auto windows = decoder::windows_from_layer_types(c, layers, window);
  if (!windows.empty()) return windows;
  const std::int64_t pattern = c.dim({"sliding_window_pattern"}, 6);
  for (std::int64_t i = 0; i < layers; ++i) windows.push_back((i + 1) % pattern != 0 ? window : 0);
  return windows;
}

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  const Config& c = in.config;
  decoder::DecoderSpec s = decoder::read_llama_config(
      c, {.vocab = 262208, .hidden = 2304, .intermediate = 9216, .layers = 26, .heads = 8, .kv_heads = 4,
          .head_dim = 256, .positions = 131072, .activation = "gelu_pytorch_tanh", .tie_word_embeddings = true});
  s.activation = c.text({"hidden_activation"}, "gelu_pytorch_tanh");
  const bool bias = c.flag({"attention_bias"}, false);
  s.qkv_bias = bias;
  s.o_bias = bias;
  s.qk_norm = decoder::QkNorm::PerHead;
  s.names.post_attn_norm = "post_attention_layernorm";
  s.names.pre_ffn_norm = "pre_feedforward_layernorm";
  s.names.post_ffn_norm = "post_feedforward_layernorm";
  const bool bidirectional = c.flag({"use_bidirectional_attention"}, false);
  std::int64_t window = decoder::window_or_none(c, "sliding_window", 4096);
  if (bidirectional && window > 0) window = window / 2 + 1;
  s.windows = gemma3_windows(c, s.layers, window);
  auto out = decoder::build_decoder(in, b, s);
  if (bidirectional)
    for (int i = 0; i <= out.node; ++i)
      if (auto& attrs = b.at(graph::Value{i, {}}).attention) attrs->causal = false;
  return out;
}

}  // namespace

const Family& gemma3_text_family() {
  static const Family family{"gemma3_text",
                             "models/gemma3/modeling_gemma3.py",
                             {{"Gemma3TextModel", Head::Base},
                              {"Gemma3ForCausalLM", Head::CausalLM},
                              {"Gemma3TextForSequenceClassification", Head::SequenceClassification}},
                             build};
  return family;
}

}  // namespace neurarch::families
