// Megatron-BERT (models/megatron_bert/modeling_megatron_bert.py, transformers 4.47.1): BERT
// made pre-norm. The embeddings have no LayerNorm; each layer normalises before attention
// (attention.ln) and before the FFN (ln), and encoder.ln closes the stack. Head classes keep
// the base model under "bert" and BERT's cls.* heads. Unlike BERT, its cross-attention follows
// the configured position_embedding_type. Defaults are the 345M model.
#include "families/bert_common.hpp"

namespace neurarch::families {
namespace megatron_bert_impl {
namespace {

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  static const bert::Layout layout{
      .prefix = "bert",
      .defaults = {.vocab = 29056, .hidden = 1024, .layers = 24, .heads = 16, .intermediate = 4096},
      .embedding_norm = false,
      .pre_norm = bert::PreNormNames{.attention = "ln", .ffn = "ln", .final = "encoder.ln"},
      .cross_attention_follows_config = true};
  return bert::build(in, b, layout);
}

}  // namespace
}  // namespace megatron_bert_impl

const Family& megatron_bert_family() {
  static const Family family{"megatron-bert", "models/megatron_bert/modeling_megatron_bert.py",
                             classes("MegatronBert",
                                     {heads::ForPreTraining, heads::ForMaskedLM, heads::ForCausalLM, heads::ForSequenceClassification, heads::ForTokenClassification, heads::ForQuestionAnswering}),
                             megatron_bert_impl::build};
  return family;
}

}  // namespace neurarch::families
