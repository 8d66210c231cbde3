// CamemBERT (models/camembert/modeling_camembert.py, transformers 4.47.1): a RoBERTa copy whose
// head classes also keep the base model under "roberta". Positions start at pad_token_id + 1;
// CamembertConfig's default vocabulary is BERT's 30522.
#include "families/bert_common.hpp"

namespace neurarch::families {
namespace {

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  static const bert::Layout layout{.prefix = "roberta",
                                   .defaults = {.vocab = 30522, .pad = 1},
                                   .heads = bert::HeadStyle::Roberta,
                                   .pooler = bert::PoolerUse::BaseOnly,
                                   .roberta_positions = true};
  return bert::build(in, b, layout);
}

}  // namespace

const Family& camembert_family() {
  static const Family family{"camembert", "models/camembert/modeling_camembert.py",
                             classes("Camembert", heads::kRoberta), build};
  return family;
}

}  // namespace neurarch::families
