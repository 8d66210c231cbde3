// Speech2Text (models/speech_to_text/modeling_speech_to_text.py + configuration_speech_to_text.py,
// transformers 4.47.1): an mBART-style pre-norm encoder-decoder (relu, scale_embedding, a final
// layer_norm per stack, no layernorm_embedding) whose encoder reads filter-bank frames through a
// Conv1dSubsampler (stride-2 convolutions with GLU: a quarter of the frames with the defaults).
// Both stacks add a fixed sinusoid kept as a frozen parameter `embed_positions.weights`
// [max_{source,target}_positions + 2, d_model], regrown for longer inputs. The decoder owns its
// token table; lm_head is tied to it and there is no final_logits_bias. The attention is eager only
// (SPEECH_TO_TEXT_ATTENTION_CLASSES has no SDPA entry).
#include "families/bart_common.hpp"

namespace neurarch::families {
namespace speech_to_text_impl {
namespace {
graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  return bart::build(in, b,
                     {.defaults = {.vocab = 10000, .activation = "relu", .scale_embedding = true, .d_model = 256,
                                   .encoder_layers = 12, .decoder_layers = 6, .heads = 4, .ffn = 2048},
                      .positions = bart::Positions::SinusoidFrozenWeights,
                      .layernorm_embedding = false,
                      .pre_norm = true,
                      .final_logits_bias = false,
                      .sdpa = false,
                      .speech_encoder = true});
}
}  // namespace
}  // namespace speech_to_text_impl

const Family& speech_to_text_family() {
  static const Family family{"speech_to_text", "models/speech_to_text/modeling_speech_to_text.py",
                             classes("Speech2Text", {heads::ForConditionalGeneration}), speech_to_text_impl::build};
  return family;
}

}  // namespace neurarch::families
