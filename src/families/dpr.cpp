// DPR (models/dpr/modeling_dpr.py, transformers 4.47.1): BERT encoders without pooler, each
// kept under its wrapper's path even when built alone: question_encoder.bert_model,
// ctx_encoder.bert_model, span_predictor.encoder.bert_model. Encoders return the first
// token, through encode_proj when projection_dim > 0. The reader scores spans
// (span_predictor.qa_outputs, start/end) and passages (qa_classifier, one logit on the first
// token); its heads read the hidden states, so they only fit when projection_dim is 0 or equal.
#include "families/bert_common.hpp"

namespace neurarch::families {
namespace dpr_impl {
namespace {

using namespace blocks;

struct Wrapper {
  bert::Layout layout;
  Scope encoder;  ///< the DPREncoder, holding bert_model and encode_proj
};

const Wrapper& wrapper_for(const BuildInput& in) {
  auto make = [](std::string_view bert_model, Scope encoder) {
    return Wrapper{bert::Layout{.prefix = bert_model, .always_prefixed = true, .defaults = {},
                                .pooler = bert::PoolerUse::Never},
                   std::move(encoder)};
  };
  static const Wrapper question = make("question_encoder.bert_model", Scope("question_encoder"));
  static const Wrapper context = make("ctx_encoder.bert_model", Scope("ctx_encoder"));
  static const Wrapper reader = make("span_predictor.encoder.bert_model", Scope("span_predictor") / "encoder");
  if (in.head == Head::QuestionAnswering) return reader;
  return in.class_name == "DPRContextEncoder" ? context : question;
}

Value build(const BuildInput& in, GraphBuilder& b) {
  const Wrapper& w = wrapper_for(in);
  bert::Trunk t = bert::trunk(in, b, w.layout);
  // DPREncoder sizes its output, and the reader's heads, by projection_dim when it has one.
  const std::int64_t projection = in.config.integer({"projection_dim"}, 0);
  const std::int64_t features = projection > 0 ? projection : t.hidden;
  if (in.head != Head::QuestionAnswering) {
    if (projection > 0) return pooler(b, t.x, "Encode_Proj", w.encoder / "encode_proj", projection, "");
    return b.node(graph::NodeType::Pooler, "First_Token", {t.hidden}, {t.x});
  }
  // The reader's encoder still builds encode_proj, though its forward never calls it.
  if (projection > 0) pooler(b, t.x, "Unused_Encode_Proj", w.encoder / "encode_proj", projection, "");
  Scope span("span_predictor");
  auto relevance = b.node(graph::NodeType::Classifier, "Relevance_Head", {1}, {t.x}, span / "qa_classifier");
  linear_tensors(b, relevance, span / "qa_classifier", features, 1, true);
  if (t.hidden != features)
    b.fail(relevance, "the reader's heads take projection_dim features but receive the hidden states");
  return classifier(b, t.x, "QA_Outputs", span / "qa_outputs", features, 2, true);
}

}  // namespace
}  // namespace dpr_impl

const Family& dpr_family() {
  static const Family family{"dpr",
                             "models/dpr/modeling_dpr.py",
                             {{"DPRQuestionEncoder", Head::Base},
                              {"DPRContextEncoder", Head::Base},
                              {"DPRReader", Head::QuestionAnswering}},
                             dpr_impl::build};
  return family;
}

}  // namespace neurarch::families
