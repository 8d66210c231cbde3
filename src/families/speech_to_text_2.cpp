// Speech2Text2 (models/deprecated/speech_to_text_2/modeling_speech_to_text_2.py + configuration_speech_to_text_2.py,
// transformers 4.47.1; removed in 5.x): the text decoder of the Speech2Text2 checkpoints, run alone
// (Speech2Text2ForCausalLM; the speech encoder comes from SpeechEncoderDecoderModel). A BART-style post-norm decoder
// without layernorm_embedding, relu, scale_embedding on, whose positions are a fixed sinusoid held as the frozen
// parameter `embed_positions.weights` [max_target_positions + 2, d_model] (regrown for longer inputs). The class sets
// is_decoder, so every layer stores encoder_attn; lm_head is tied to embed_tokens. The attention is eager only.
#include "families/bart_common.hpp"

namespace neurarch::families {
namespace speech_to_text_2_impl {
namespace {
graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  static const bart::Layout layout{
      .defaults = {.vocab = 10000, .activation = "relu", .scale_embedding = true, .d_model = 256,
                   .decoder_layers = 6, .heads = 4, .ffn = 2048},
      .positions = bart::Positions::SinusoidFrozenWeights,
      .layernorm_embedding = false,
      .final_logits_bias = false,
      .sdpa = false,
      .positions_key = "max_target_positions"};
  return bart::build(in, b, layout);
}
}  // namespace
}  // namespace speech_to_text_2_impl

const Family& speech_to_text_2_family() {
  static const Family family{"speech_to_text_2", "models/deprecated/speech_to_text_2/modeling_speech_to_text_2.py",
                             {{"Speech2Text2ForCausalLM", Head::CausalLM}}, speech_to_text_2_impl::build};
  return family;
}

}  // namespace neurarch::families
