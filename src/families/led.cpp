// LED (models/led/modeling_led.py + configuration_led.py, transformers 4.47.1): BART (post-norm,
// layernorm_embedding, gelu, final_logits_bias) whose encoder self-attention is Longformer's:
// sliding windows of attention_window / 2 tokens per side (an int, or one entry per encoder
// layer) with separate query/key/value_global projections for globally attending tokens. Learned
// positions have no offset rows and each stack its own table (max_encoder_position_embeddings
// 16384, max_decoder_position_embeddings 1024). The head classes name the base model `led`. Only
// eager attention classes in 4.47.1.
#include "families/bart_common.hpp"

namespace neurarch::families {
namespace led_impl {
namespace {
graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  return bart::build(in, b, {.position_offset = 0,
                                .sdpa = false,
                                .base = "led",
                                .split_positions = true,
                                .longformer_encoder = true,
                                .default_positions = 16384});
}
}  // namespace
}  // namespace led_impl

const Family& led_family() {
  static const Family family{"led", "models/led/modeling_led.py",
                             classes("LED",
                                     {heads::ForConditionalGeneration, heads::ForSequenceClassification, heads::ForQuestionAnswering}),
                             led_impl::build};
  return family;
}

}  // namespace neurarch::families
