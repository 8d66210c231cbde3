// Splinter (models/splinter/modeling_splinter.py, transformers 4.47.1): BERT's encoder without a
// pooler, pretrained for few-shot extractive QA. SplinterForQuestionAnswering's QASS head
// gathers the question token ([QUESTION], question_token_id) and scores every position as
// start and end through four dense + gelu + LayerNorm transforms and two bias-free bilinear
// classifiers; with one question per input it returns start and end logits over the sequence.
#include "families/bert_common.hpp"

namespace neurarch::families {
namespace splinter_impl {
namespace {

using namespace blocks;

Value qass_head(GraphBuilder& b, const Value& x, std::int64_t hidden) {
  Scope qass("splinter_qass");
  const std::int64_t seq = x.shape.size() >= 2 ? x.shape[x.shape.size() - 2] : 0;
  auto out = b.node(graph::NodeType::Classifier, "QASS_Head", {seq, 2}, {x}, qass);
  b.at(out).activation = "gelu";
  for (const char* transform : {"query_start_transform", "query_end_transform", "start_transform", "end_transform"}) {
    linear_tensors(b, out, qass / transform / "dense", hidden, hidden, true);
    b.parameter(out, (qass / transform / "LayerNorm")("weight"), {hidden}, graph::TensorRole::Norm);
    b.parameter(out, (qass / transform / "LayerNorm")("bias"), {hidden}, graph::TensorRole::Bias);
  }
  linear_tensors(b, out, qass / "start_classifier", hidden, hidden, false);
  linear_tensors(b, out, qass / "end_classifier", hidden, hidden, false);
  return out;
}

Value build(const BuildInput& in, GraphBuilder& b) {
  // SplinterConfig: BERT-base sizes (question_token_id 104 only matters at run time).
  static const bert::Layout layout{.prefix = "splinter", .defaults = {}, .pooler = bert::PoolerUse::Never};
  bert::Trunk t = bert::trunk(in, b, layout);
  if (in.head == Head::QuestionAnswering) return qass_head(b, t.x, t.hidden);
  return t.x;
}

}  // namespace
}  // namespace splinter_impl

const Family& splinter_family() {
  static const Family family{"splinter", "models/splinter/modeling_splinter.py",
                             classes("Splinter", {heads::ForQuestionAnswering}), splinter_impl::build};
  return family;
}

}  // namespace neurarch::families
