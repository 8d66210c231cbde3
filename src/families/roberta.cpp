// RoBERTa (models/roberta/modeling_roberta.py, transformers 4.47.1): BERT's encoder with
// positions numbered from pad_token_id + 1 (so max_position_embeddings - pad - 1 tokens fit),
// lm_head.* instead of cls.predictions.*, and a classification head (classifier.dense + tanh,
// classifier.out_proj) on the first token instead of the pooler, which only RobertaModel keeps.
#include "families/bert_common.hpp"

namespace neurarch::families {
namespace roberta_impl {
namespace {

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  // RobertaConfig differs from BertConfig only in its vocabulary and pad id.
  static const bert::Layout layout = bert::roberta_layout("roberta", {.vocab = 50265});
  return bert::build(in, b, layout);
}

}  // namespace
}  // namespace roberta_impl

const Family& roberta_family() {
  static const Family family{"roberta", "models/roberta/modeling_roberta.py",
                             classes("Roberta", heads::kRoberta), roberta_impl::build};
  return family;
}

}  // namespace neurarch::families
