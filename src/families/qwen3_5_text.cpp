// Qwen3.5's text model on its own (model_type qwen3_5_text; models/qwen3_5/modeling_qwen3_5.py +
// configuration_qwen3_5.py, transformers 5.24.0): Qwen3-Next's hybrid stack (qwen3_next.hpp) with the Gated
// DeltaNet's input projections split in four and a dense gated MLP on every layer; Qwen3_5TextConfig's defaults.
// The causal LM is Qwen3_5ForCausalLM (no `Text` in its name); the sequence classifier
// Qwen3_5TextForSequenceClassification. The Qwen3.5 checkpoints themselves are vision-language (qwen3_5).
#include "families/qwen3_5.hpp"

namespace neurarch::families {

namespace qwen3_5 {

decoder::DecoderSpec text_spec(const Config& text) {
  return qwen3_next::spec(text,
                          {.vocab = 248320, .hidden = 4096, .intermediate = 12288, .layers = 32, .heads = 16,
                           .kv_heads = 4, .head_dim = 256, .positions = 32768, .activation = "silu",
                           .tie_word_embeddings = false},
                          true);
}

}  // namespace qwen3_5

namespace qwen3_5_text_impl {
namespace {

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  return decoder::build_decoder(in, b, qwen3_5::text_spec(in.config));
}

}  // namespace
}  // namespace qwen3_5_text_impl

const Family& qwen3_5_text_family() {
  static const Family family{"qwen3_5_text", "models/qwen3_5/modeling_qwen3_5.py",
                             {{"Qwen3_5TextModel", Head::Base},
                              {"Qwen3_5ForCausalLM", Head::CausalLM},
                              {"Qwen3_5TextForSequenceClassification", Head::SequenceClassification}},
                             qwen3_5_text_impl::build};
  return family;
}

}  // namespace neurarch::families
