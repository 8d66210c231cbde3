// LongT5 (models/longt5/modeling_longt5.py + configuration_longt5.py, transformers 4.47.1): T5
// whose encoder attends in blocks of local_radius + 1 tokens (encoder_attention_type "local":
// LocalSelfAttention) or, with "transient-global", also to one RMS-normed summary token per
// global_block_size tokens (TransientGlobalSelfAttention, which adds global_relative_attention_bias
// in block 0 and global_input_layer_norm in every block). The decoder is T5's. Relative-position
// bias only in block 0 of each stack; no SDPA path; tied heads rescale by d_model^-0.5.
#include "families/t5_common.hpp"

namespace neurarch::families {
namespace longt5_impl {
namespace {
graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  // LongT5 was pre-trained on 4096-token inputs.
  return t5::build(in, b, {.bias_in_every_layer = false,
                           .defaults = {.pretraining_length = 4096},
                           .long_encoder = true});
}
}  // namespace
}  // namespace longt5_impl

const Family& longt5_family() {
  static const Family family{"longt5", "models/longt5/modeling_longt5.py",
                             classes("LongT5", {heads::ForConditionalGeneration, heads::EncoderModel}), longt5_impl::build};
  return family;
}

}  // namespace neurarch::families
