// BERT (models/bert/modeling_bert.py, transformers 4.47.1): post-norm encoder with token-type
// and learned absolute positions, a tanh pooler on the first token, and the MLM head whose
// decoder bias is cls.predictions.bias under a second name. relative_key(_query) adds a
// distance table to every self-attention; cross-attention (decoders only) stays absolute.
// The position_ids / token_type_ids buffers are non-persistent in 4.47.1, so nothing is saved.
#include "families/bert_common.hpp"

namespace neurarch::families {
namespace bert_impl {
namespace {

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  // BertConfig's defaults: bert-base-uncased.
  static const bert::Layout layout{.prefix = "bert", .defaults = {}};
  return bert::build(in, b, layout);
}

}  // namespace
}  // namespace bert_impl

const Family& bert_family() {
  static const Family family{"bert", "models/bert/modeling_bert.py",
                             classes("Bert", {heads::ForPreTraining, heads::ForMaskedLM, heads::LMHeadModel, heads::ForSequenceClassification, heads::ForTokenClassification, heads::ForQuestionAnswering}),
                             bert_impl::build};
  return family;
}

}  // namespace neurarch::families
