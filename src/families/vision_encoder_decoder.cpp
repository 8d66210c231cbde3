// VisionEncoderDecoderModel (models/vision_encoder_decoder/modeling_vision_encoder_decoder.py, transformers 4.47.1): an image
// encoder (ViT, DeiT, Swin, Donut's Swin; its base class) feeding a causal LM (TrOCR, GPT-2, BERT) through
// cross-attention; pixel_values are the main input, decoder_input_ids the decoder's.
#include "families/encoder_decoder_common.hpp"

namespace neurarch::families {
namespace vision_encoder_decoder_impl {
namespace {
graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  return encoder_decoder::build(in, b, {.owner = "VisionEncoderDecoderModel"});
}
}  // namespace
}  // namespace vision_encoder_decoder_impl

const Family& vision_encoder_decoder_family() {
  static const Family family{"vision-encoder-decoder", "models/vision_encoder_decoder/modeling_vision_encoder_decoder.py", {{"VisionEncoderDecoderModel", Head::Seq2SeqLM}}, vision_encoder_decoder_impl::build};
  return family;
}

}  // namespace neurarch::families
