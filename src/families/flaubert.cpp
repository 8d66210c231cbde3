// FlauBERT (models/flaubert/modeling_flaubert.py, transformers 4.47.1): XLM's encoder and heads
// (xlm_common) with two additions: pre_norm moves layer_norm1 / layer_norm2 before their sublayers,
// and layerdrop skips whole layers in training (no tensors, no change to one step's peak).
#include "families/xlm_common.hpp"

namespace neurarch::families {
namespace flaubert_impl {
namespace {

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  return xlm::build(in, b, {.pre_norm_key = true});
}

}  // namespace
}  // namespace flaubert_impl

const Family& flaubert_family() {
  static const Family family{"flaubert", "models/flaubert/modeling_flaubert.py",
                             classes("Flaubert", {{"WithLMHeadModel", Head::MaskedLM}, heads::ForSequenceClassification, heads::ForTokenClassification, {"ForQuestionAnsweringSimple", Head::QuestionAnswering}}),
                             flaubert_impl::build};
  return family;
}

}  // namespace neurarch::families
