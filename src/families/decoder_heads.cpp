#include "families/decoder_heads.hpp"

namespace neurarch::families {

using namespace blocks;

Value decoder_heads(GraphBuilder& b, const Value& x, const BuildInput& in, const DecoderHeadsSpec& spec) {
  switch (in.head) {
    case Head::CausalLM: {
      LmHeadSpec head{.module = spec.lm_head, .hidden = spec.hidden, .vocab = spec.vocab, .bias = spec.lm_head_bias};
      head.tied_weight = spec.tied_embedding;
      return lm_head(b, x, "LM_Head", head);
    }
    case Head::SequenceClassification: {
      // Every position is scored; the logits of the last non-pad token are kept.
      auto last = b.node(graph::NodeType::Pooler, "Last_Token_Pool", {spec.hidden}, {x});
      return classifier(b, last, "Classifier", spec.score, spec.hidden, in.num_labels(), false);
    }
    case Head::TokenClassification:
      return classifier(b, x, "Classifier", spec.token_classifier, spec.hidden, in.num_labels(), true);
    case Head::QuestionAnswering:
      return classifier(b, x, "QA_Head", Scope("qa_outputs"), spec.hidden, 2, true);
    default:
      return x;
  }
}

}  // namespace neurarch::families
