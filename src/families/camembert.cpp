// CamemBERT (models/camembert/modeling_camembert.py, transformers 4.47.1): a RoBERTa copy whose
// head classes also keep the base model under "roberta". Positions start at pad_token_id + 1;
// CamembertConfig's default vocabulary is BERT's 30522.
#include "families/bert_common.hpp"

namespace neurarch::families {

const Family& camembert_family() {
  static const Family family{"camembert", "models/camembert/modeling_camembert.py",
                             classes("Camembert", heads::kRoberta), bert::roberta_copy};
  return family;
}

}  // namespace neurarch::families
