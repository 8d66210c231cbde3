#pragma once
// The heads transformers' generic decoder classes put on the last hidden state: ForCausalLM (lm_head,
// optionally tied to the input embedding), ForSequenceClassification (`score` over every position, the last
// non-pad token's logits kept), ForTokenClassification and ForQuestionAnswering. Families whose heads are
// these and nothing else end their build with decoder_heads instead of writing the switch again.
#include <cstdint>
#include <string>

#include "families/family.hpp"

namespace neurarch::families {

struct DecoderHeadsSpec {
  std::int64_t hidden = 0;
  std::int64_t vocab = 0;              ///< rows the LM head predicts
  blocks::Scope lm_head{"lm_head"};
  bool lm_head_bias = false;
  std::string tied_embedding;          ///< the input embedding's weight the LM head aliases; "" when untied
  blocks::Scope score{"score"};        ///< sequence classification
  blocks::Scope token_classifier{"classifier"};
};

/// The head `in.head` names over x ([seq, hidden]); the base model (and any head not listed above) returns x.
blocks::Value decoder_heads(blocks::GraphBuilder& b, const blocks::Value& x, const BuildInput& in,
                            const DecoderHeadsSpec& spec);

}  // namespace neurarch::families
