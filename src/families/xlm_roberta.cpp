// XLM-RoBERTa (models/xlm_roberta/modeling_xlm_roberta.py, transformers 4.47.1): RoBERTa's
// modules under the same "roberta" prefix; only the class names differ. Positions start at
// pad_token_id + 1. XLMRobertaConfig keeps BertConfig's 30522-token default vocabulary (the
// published checkpoints say 250002).
#include "families/bert_common.hpp"

namespace neurarch::families {

const Family& xlm_roberta_family() {
  static const Family family{"xlm-roberta", "models/xlm_roberta/modeling_xlm_roberta.py",
                             classes("XLMRoberta", heads::kRoberta), bert::roberta_copy};
  return family;
}

}  // namespace neurarch::families
