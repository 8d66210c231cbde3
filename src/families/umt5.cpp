// UMT5 (models/umt5/modeling_umt5.py + configuration_umt5.py, transformers 4.47.1): mT5 whose
// every self-attention owns its relative_attention_bias (cross-attention none). UMT5Config
// defaults: gated-gelu, d_ff 1024, 8 layers, 6 heads, tie_word_embeddings true.
#include "families/t5_common.hpp"

namespace neurarch::families {
namespace umt5_impl {
namespace {
graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  return t5::build(in, b, {.bias_in_every_layer = true, .defaults = {.vocab = 250112, .d_ff = 1024, .layers = 8, .heads = 6, .feed_forward_proj = "gated-gelu", .tie_word_embeddings = true}});
}
}  // namespace
}  // namespace umt5_impl

const Family& umt5_family() {
  static const Family family{"umt5", "models/umt5/modeling_umt5.py",
                             classes("UMT5",
                                     {heads::ForConditionalGeneration, heads::EncoderModel, heads::ForSequenceClassification, heads::ForTokenClassification, heads::ForQuestionAnswering}),
                             umt5_impl::build};
  return family;
}

}  // namespace neurarch::families
