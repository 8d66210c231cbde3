// Qwen3 (models/qwen3/modeling_qwen3.py + configuration_qwen3.py, transformers 4.57.6): Llama's
// layer plus an RMSNorm over each head of q and k (q_norm/k_norm, [head_dim]). head_dim is its
// own key (default 128, hidden need not divide); attention_bias covers q/k/v/o. Sliding windows
// follow Qwen2's rules (use_sliding_window, max_window_layers, layer_types). The QA head keeps
// the historical `transformer.` prefix.
#include "families/qwen3.hpp"

namespace neurarch::families {

decoder::DecoderSpec qwen3_spec(const Config& c, const decoder::LlamaDefaults& defaults) {
  decoder::DecoderSpec s = decoder::read_llama_config(c, defaults);
  const bool bias = c.flag({"attention_bias"}, false);
  s.qkv_bias = bias;
  s.o_bias = bias;
  s.qk_norm = decoder::QkNorm::PerHead;
  s.windows = decoder::qwen_windows(c, s.layers, 4096, 28);
  s.qa_prefix = "transformer";
  return s;
}

namespace qwen3_impl {
namespace {

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  const decoder::DecoderSpec s = qwen3_spec(
      in.config, {.vocab = 151936, .hidden = 4096, .intermediate = 22016, .layers = 32, .heads = 32, .kv_heads = 32,
                  .head_dim = 128, .positions = 32768, .activation = "silu", .tie_word_embeddings = false});
  return decoder::build_decoder(in, b, s);
}

}  // namespace
}  // namespace qwen3_impl

const Family& qwen3_family() {
  static const Family family{"qwen3", "models/qwen3/modeling_qwen3.py", classes("Qwen3", heads::kDecoder), qwen3_impl::build};
  return family;
}

}  // namespace neurarch::families
