// Blenderbot (models/blenderbot/modeling_blenderbot.py + configuration_blenderbot.py,
// transformers 4.47.1): mBART-style pre-norm layers with a layer_norm after each stack, no
// layernorm_embedding, learned positions without offset rows (max_position_embeddings 128),
// final_logits_bias on the LM class. BlenderbotConfig's defaults describe the 3B model: d_model
// 2560, 2 encoder and 24 decoder layers, 32 heads, ffn 10240, vocab 8008, pad 0. Only the eager
// attention class exists in 4.47.1.
#include "families/bart_common.hpp"

namespace neurarch::families {
namespace blenderbot_impl {
namespace {
graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  return bart::build(in, b, {.defaults = {.vocab = 8008, .pad = 0, .d_model = 2560, .encoder_layers = 2,
                                          .decoder_layers = 24, .heads = 32, .ffn = 10240},
                             .position_offset = 0,
                             .layernorm_embedding = false,
                             .pre_norm = true,
                             .sdpa = false,
                             .default_positions = 128});
}
}  // namespace
}  // namespace blenderbot_impl

const Family& blenderbot_family() {
  static const Family family{"blenderbot", "models/blenderbot/modeling_blenderbot.py",
                             classes("Blenderbot", {heads::ForConditionalGeneration, heads::ForCausalLM}), blenderbot_impl::build};
  return family;
}

}  // namespace neurarch::families
