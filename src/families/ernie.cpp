// ERNIE (models/ernie/modeling_ernie.py, transformers 4.47.1): BERT with the base model under
// "ernie" and, when use_task_id is set (ERNIE 3.0), a task-type embedding table of
// task_type_vocab_size rows added to the embeddings. Heads are BERT's cls.* heads.
#include "families/bert_common.hpp"

namespace neurarch::families {
namespace ernie_impl {
namespace {

// ErnieConfig: use_task_id false, task_type_vocab_size 3.
graph::Value task_types(const BuildInput& in, graph::GraphBuilder& b, const graph::Value& x, const graph::Scope& emb) {
  if (!in.config.flag({"use_task_id"}, false)) return x;
  return blocks::added_embedding(b, x, "Task_Type_Embedding", emb / "task_type_embeddings",
                                 in.config.dim({"task_type_vocab_size"}, 3), x.shape.back());
}

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  static const bert::Layout layout{.prefix = "ernie", .defaults = {}, .extra_embeddings = task_types};
  return bert::build(in, b, layout);
}

}  // namespace
}  // namespace ernie_impl

const Family& ernie_family() {
  static const Family family{"ernie", "models/ernie/modeling_ernie.py",
                             classes("Ernie",
                                     {heads::ForPreTraining, heads::ForMaskedLM, heads::ForCausalLM, heads::ForSequenceClassification, heads::ForTokenClassification, heads::ForQuestionAnswering}),
                             ernie_impl::build};
  return family;
}

}  // namespace neurarch::families
