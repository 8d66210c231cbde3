// Open-Llama (models/deprecated/open_llama/modeling_open_llama.py, transformers 4.47.1): Llama
// without KV grouping, plus a LayerNorm after the embedding (use_stable_embedding). With
// shared_input_output_embedding the LM head has no module: logits come from the embedding
// matrix itself. The attention refuses hidden % heads != 0.
#include "families/llama_common.hpp"

namespace neurarch::families {
namespace open_llama_impl {
namespace {

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  const Config& c = in.config;
  decoder::DecoderSpec s = decoder::read_llama_config(
      c, {.vocab = 100000, .hidden = 4096, .intermediate = 11008, .layers = 32, .heads = 32,
          .positions = 2048, .activation = "silu", .tie_word_embeddings = false});
  s.kv_heads = s.heads;
  s.head_dim = s.hidden / s.heads;
  s.require_divisible = true;
  if (c.flag({"use_stable_embedding"}, true)) s.names.embed_norm = "embed_layer_norm";
  s.lm_head_is_embedding = c.flag({"shared_input_output_embedding"}, true);
  return decoder::build_decoder(in, b, s);
}

}  // namespace
}  // namespace open_llama_impl

const Family& open_llama_family() {
  static const Family family{"open-llama", "models/deprecated/open_llama/modeling_open_llama.py",
                             classes("OpenLlama", {heads::ForCausalLM, heads::ForSequenceClassification}), open_llama_impl::build};
  return family;
}

}  // namespace neurarch::families
