// mT5 (models/mt5/modeling_mt5.py + configuration_mt5.py, transformers 4.47.1): T5 v1.1 with a
// 250k vocabulary. MT5Config defaults differ from T5's: feed_forward_proj "gated-gelu", d_ff 1024,
// num_layers 8, num_heads 6, and tie_word_embeddings false (a separate lm_head).
#include "families/t5_common.hpp"

namespace neurarch::families {
namespace mt5_impl {
namespace {
graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  return t5::build(in, b, {.bias_in_every_layer = false, .defaults = {.vocab = 250112, .d_ff = 1024, .layers = 8, .heads = 6, .feed_forward_proj = "gated-gelu", .tie_word_embeddings = false}});
}
}  // namespace
}  // namespace mt5_impl

const Family& mt5_family() {
  static const Family family{"mt5", "models/mt5/modeling_mt5.py",
                             classes("MT5",
                                     {heads::ForConditionalGeneration, heads::EncoderModel, heads::ForSequenceClassification, heads::ForTokenClassification, heads::ForQuestionAnswering}),
                             mt5_impl::build};
  return family;
}

}  // namespace neurarch::families
