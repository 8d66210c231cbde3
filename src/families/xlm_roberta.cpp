// XLM-RoBERTa (models/xlm_roberta/modeling_xlm_roberta.py, transformers 4.47.1): RoBERTa's
// modules under the same "roberta" prefix; only the class names differ. Positions start at
// pad_token_id + 1. XLMRobertaConfig keeps BertConfig's 30522-token default vocabulary (the
// published checkpoints say 250002).
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

const Family& xlm_roberta_family() {
  static const Family family{"xlm-roberta", "models/xlm_roberta/modeling_xlm_roberta.py",
                             classes("XLMRoberta", heads::kRoberta), build};
  return family;
}

}  // namespace neurarch::families
