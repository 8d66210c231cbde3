// NEZHA (models/nezha/modeling_nezha.py, transformers 4.47.1): BERT without a position table.
// Every self-attention adds functional relative position encodings (a non-persistent
// [max_position_embeddings, max_position_embeddings, head_dim] buffer, clipped at
// max_relative_position), so nothing is saved for positions, but a sequence longer than
// max_position_embeddings cannot be encoded. BERT's cls.* heads and pooler rules.
#include "families/bert_common.hpp"

namespace neurarch::families {
namespace nezha_impl {
namespace {

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  // NezhaConfig: BERT's sizes with the 21128-token Chinese vocabulary.
  static const bert::Layout layout{.prefix = "nezha", .defaults = {.vocab = 21128}, .absolute_positions = false};
  return bert::build(in, b, layout);
}

}  // namespace
}  // namespace nezha_impl

const Family& nezha_family() {
  static const Family family{"nezha", "models/nezha/modeling_nezha.py",
                             classes("Nezha",
                                     {heads::ForPreTraining, heads::ForMaskedLM, heads::ForSequenceClassification, heads::ForTokenClassification, heads::ForQuestionAnswering}),
                             nezha_impl::build};
  return family;
}

}  // namespace neurarch::families
