// T5 (models/t5/modeling_t5.py + configuration_t5.py, transformers 4.47.1). Relative-position
// bias only in block 0 of each stack; feed_forward_proj "relu" (T5) or "gated-gelu" (v1.1, FLAN:
// wi_0/wi_1); tie_word_embeddings (default true) ties lm_head to `shared` and rescales the decoder
// output by d_model^-0.5. The attention has no SDPA path in 4.47.1: scores are always kept.
// Aliases: hidden_size -> d_model, num_attention_heads -> num_heads, num_hidden_layers -> num_layers.
#include "families/t5_common.hpp"

namespace neurarch::families {
namespace t5_impl {
namespace {
graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  return t5::build(in, b, {.bias_in_every_layer = false, .defaults = {}});
}
}  // namespace
}  // namespace t5_impl

const Family& t5_family() {
  static const Family family{"t5", "models/t5/modeling_t5.py",
                             classes("T5",
                                     {heads::ForConditionalGeneration, heads::EncoderModel, heads::ForSequenceClassification, heads::ForTokenClassification, heads::ForQuestionAnswering}),
                             t5_impl::build};
  return family;
}

}  // namespace neurarch::families
