// Data2Vec text (models/data2vec/modeling_data2vec_text.py, transformers 4.47.1): RoBERTa's
// layout with the base model under "data2vec_text" in head classes. Positions start at
// pad_token_id + 1; Data2VecTextConfig's default vocabulary is BERT's 30522.
#include "families/bert_common.hpp"

namespace neurarch::families {
namespace data2vec_text_impl {
namespace {

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  static const bert::Layout layout = bert::roberta_layout("data2vec_text");
  return bert::build(in, b, layout);
}

}  // namespace
}  // namespace data2vec_text_impl

const Family& data2vec_text_family() {
  static const Family family{"data2vec-text", "models/data2vec/modeling_data2vec_text.py",
                             classes("Data2VecText", heads::kRoberta), data2vec_text_impl::build};
  return family;
}

}  // namespace neurarch::families
