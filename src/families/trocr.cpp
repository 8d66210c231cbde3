// TrOCR (models/trocr/modeling_trocr.py + configuration_trocr.py, transformers 4.47.1): the text
// decoder of TrOCR, a BART-style post-norm decoder run alone (TrOCRForCausalLM; the image encoder
// comes from VisionEncoderDecoderModel). use_learned_position_embeddings picks learned positions
// (offset 2) or a sinusoid computed on the fly (no tensor); layernorm_embedding and scale_embedding
// are config switches. TrOCRForCausalLM sets is_decoder, so every layer holds encoder_attn, whose k/v
// read cross_attention_hidden_size when set. The head is output_projection (tied to embed_tokens).
// The attention has no SDPA path.
#include "families/bart_common.hpp"

namespace neurarch::families {
namespace trocr_impl {
namespace {
graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  const Config& c = in.config;
  bart::Layout layout{.defaults = {.vocab = 50265, .scale_embedding = false, .decoder_layers = 12},
                      .positions = c.flag({"use_learned_position_embeddings"}, true) ? bart::Positions::Learned
                                                                                     : bart::Positions::SinusoidBuffer,
                      .layernorm_embedding = c.flag({"layernorm_embedding"}, true),
                      .pre_norm = false,
                      .final_logits_bias = false,
                      .sdpa = false,
                      .default_positions = 512,
                      .lm_head = "output_projection",
                      .cross_attention_width_key = true};
  return bart::build(in, b, layout);
}
}  // namespace
}  // namespace trocr_impl

const Family& trocr_family() {
  static const Family family{"trocr", "models/trocr/modeling_trocr.py", {{"TrOCRForCausalLM", Head::CausalLM}}, trocr_impl::build};
  return family;
}

}  // namespace neurarch::families
