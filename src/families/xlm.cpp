// XLM (models/xlm/modeling_xlm.py, transformers 4.47.1): a post-norm encoder over tokens, learned or
// sinusoidal (frozen) positions and, with n_langs > 1 and use_lang_emb, language embeddings; the FFN is
// 4 x emb_dim wide (gelu_activation, else relu); causal masks the attention. Eager attention only.
// Heads: pred_layer.proj (tied to the embeddings, own bias; asm's adaptive softmax is refused),
// sequence_summary, classifier, qa_outputs (XLMForQuestionAnsweringSimple). See xlm_common.
#include "families/xlm_common.hpp"

namespace neurarch::families {
namespace xlm_impl {
namespace {

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) { return xlm::build(in, b, {}); }

}  // namespace
}  // namespace xlm_impl

const Family& xlm_family() {
  static const Family family{"xlm", "models/xlm/modeling_xlm.py",
                             classes("XLM", {{"WithLMHeadModel", Head::MaskedLM}, heads::ForSequenceClassification, heads::ForTokenClassification, {"ForQuestionAnsweringSimple", Head::QuestionAnswering}}),
                             xlm_impl::build};
  return family;
}

}  // namespace neurarch::families
