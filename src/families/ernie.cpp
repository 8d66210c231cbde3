// ERNIE (models/ernie/modeling_ernie.py, transformers 4.47.1): BERT with the base model under
// "ernie" and, when use_task_id is set (ERNIE 3.0), a task-type embedding table of
// task_type_vocab_size rows added to the embeddings. Heads are BERT's cls.* heads.
#include "families/bert_common.hpp"

namespace neurarch::families {
namespace {

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  static const bert::Layout layout{.prefix = "ernie", .defaults = {}, .task_type_embedding = true};
  return bert::build(in, b, layout);
}

}  // namespace

const Family& ernie_family() {
  static const Family family{"ernie",
                             "models/ernie/modeling_ernie.py",
                             {{"ErnieModel", Head::Base},
                              {"ErnieForPreTraining", Head::PreTraining},
                              {"ErnieForMaskedLM", Head::MaskedLM},
                              {"ErnieForCausalLM", Head::CausalLM},
                              {"ErnieForSequenceClassification", Head::SequenceClassification},
                              {"ErnieForTokenClassification", Head::TokenClassification},
                              {"ErnieForQuestionAnswering", Head::QuestionAnswering}},
                             build};
  return family;
}

}  // namespace neurarch::families
