// Ministral 3 (models/ministral3/modeling_ministral3.py + configuration_ministral3.py, transformers 5.24.0):
// Mistral's layer with the Ministral 3 / Devstral Small 2 defaults: 34 layers, head_dim 128 (its own key),
// a 131072-token vocabulary, 262144 positions and no sliding window. The YaRN / Llama-4 attention scaling in
// rope_parameters changes no tensor. Also Mistral 3's language model (text_config.model_type "ministral3").
#include "families/mistral.hpp"

namespace neurarch::families {
namespace ministral3_impl {
namespace {

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  const decoder::DecoderSpec s = mistral_spec(
      in.config,
      {.vocab = 131072, .hidden = 4096, .intermediate = 14336, .layers = 34, .heads = 32, .kv_heads = 8,
       .head_dim = 128, .positions = 262144, .activation = "silu", .tie_word_embeddings = false},
      0);
  return decoder::build_decoder(in, b, s);
}

}  // namespace
}  // namespace ministral3_impl

const Family& ministral3_family() {
  static const Family family{"ministral3",
                             "models/ministral3/modeling_ministral3.py",
                             {{"Ministral3Model", Head::Base},
                              {"Ministral3ForCausalLM", Head::CausalLM},
                              {"Ministral3ForSequenceClassification", Head::SequenceClassification},
                              {"Ministral3ForTokenClassification", Head::TokenClassification},
                              {"Ministral3ForQuestionAnswering", Head::QuestionAnswering}},
                             ministral3_impl::build};
  return family;
}

}  // namespace neurarch::families
