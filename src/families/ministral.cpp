// Ministral (models/ministral/modeling_ministral.py + configuration_ministral.py, transformers 5.24.0;
// Ministral-8B-Instruct-2410): Mistral's layer and defaults, with per-layer windows from layer_types (absent:
// every layer slides when sliding_window is set). head_dim defaults to hidden / heads. The QA head keeps the
// historical `transformer.` prefix.
#include "families/mistral.hpp"

namespace neurarch::families {
namespace ministral_impl {
namespace {

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  decoder::DecoderSpec s = mistral_spec(
      in.config,
      {.vocab = 32000, .hidden = 4096, .intermediate = 14336, .layers = 32, .heads = 32, .kv_heads = 8,
       .positions = 4096 * 32, .activation = "silu", .tie_word_embeddings = false},
      4096);
  s.windows = decoder::windows_from_layer_types(in.config, s.layers, s.window);
  s.qa_prefix = "transformer";
  return decoder::build_decoder(in, b, s);
}

}  // namespace
}  // namespace ministral_impl

const Family& ministral_family() {
  static const Family family{"ministral",
                             "models/ministral/modeling_ministral.py",
                             {{"MinistralModel", Head::Base},
                              {"MinistralForCausalLM", Head::CausalLM},
                              {"MinistralForSequenceClassification", Head::SequenceClassification},
                              {"MinistralForTokenClassification", Head::TokenClassification},
                              {"MinistralForQuestionAnswering", Head::QuestionAnswering}},
                             ministral_impl::build};
  return family;
}

}  // namespace neurarch::families
