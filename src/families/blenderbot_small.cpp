// BlenderbotSmall (models/blenderbot_small/modeling_blenderbot_small.py +
// configuration_blenderbot_small.py, transformers 4.47.1): BART-style post-norm layers with
// layernorm_embedding (the decoder normalises the token embeddings before adding positions; same
// tensors), learned positions without offset rows (max_position_embeddings 512), final_logits_bias.
// Defaults: d_model 512, 8 + 8 layers, 16 heads, ffn 2048, vocab 50265, pad 0. Eager attention only.
#include "families/bart_common.hpp"

namespace neurarch::families {
namespace blenderbot_small_impl {
namespace {
graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  return bart::build(in, b, {.defaults = {.vocab = 50265, .pad = 0, .d_model = 512, .encoder_layers = 8,
                                          .decoder_layers = 8, .heads = 16, .ffn = 2048},
                             .position_offset = 0,
                             .sdpa = false,
                             .default_positions = 512});
}
}  // namespace
}  // namespace blenderbot_small_impl

const Family& blenderbot_small_family() {
  static const Family family{"blenderbot-small", "models/blenderbot_small/modeling_blenderbot_small.py",
                             classes("BlenderbotSmall", {heads::ForConditionalGeneration, heads::ForCausalLM}), blenderbot_small_impl::build};
  return family;
}

}  // namespace neurarch::families
