// Mistral (models/mistral/modeling_mistral.py + configuration_mistral.py, transformers 4.47.1):
// Llama's layer without any bias switch, 8 KV heads and a 131072-position default, and a
// sliding window (sliding_window, 4096 by default; null = full attention) recorded on every
// attention node. head_dim defaults to hidden / heads.
#include "families/mistral.hpp"

namespace neurarch::families {

decoder::DecoderSpec mistral_spec(const Config& c, const decoder::LlamaDefaults& defaults, std::int64_t default_window) {
  decoder::DecoderSpec s = decoder::read_llama_config(c, defaults);
  s.window = decoder::window_or_none(c, "sliding_window", default_window);
  return s;
}

namespace mistral_impl {
namespace {

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  const decoder::DecoderSpec s = mistral_spec(
      in.config,
      {.vocab = 32000, .hidden = 4096, .intermediate = 14336, .layers = 32, .heads = 32, .kv_heads = 8,
       .positions = 4096 * 32, .activation = "silu", .tie_word_embeddings = false},
      4096);
  return decoder::build_decoder(in, b, s);
}

}  // namespace
}  // namespace mistral_impl

const Family& mistral_family() {
  static const Family family{"mistral", "models/mistral/modeling_mistral.py",
                             classes("Mistral", heads::kDecoder), mistral_impl::build};
  return family;
}

}  // namespace neurarch::families
