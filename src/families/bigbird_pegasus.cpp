// BigBirdPegasus (models/bigbird_pegasus/modeling_bigbird_pegasus.py + configuration_bigbird_pegasus.py,
// transformers 4.47.1): PEGASUS's pre-norm encoder-decoder (gelu_new, scale_embedding, a `shared`
// table, final_logits_bias) with learned positions without offset, and BigBird's block-sparse
// self-attention in the encoder (attention_type, block_size, num_random_blocks; no extra tensors).
// use_bias (default false) switches every attention bias. Each stack's final norm is named
// layernorm_embedding although it runs after the last layer. The attention has no SDPA path.
#include "families/bart_common.hpp"

namespace neurarch::families {
namespace bigbird_pegasus_impl {
namespace {
graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  return bart::build(in, b,
                     {.defaults = {.vocab = 96103, .pad = 0, .activation = "gelu_new", .scale_embedding = true,
                                   .encoder_layers = 16, .decoder_layers = 16},
                      .positions = bart::Positions::Learned,
                      .position_offset = 0,
                      .layernorm_embedding = false,
                      .pre_norm = true,
                      .sdpa = false,
                      .default_positions = 4096,
                      .block_sparse_encoder = true,
                      .final_norm = "layernorm_embedding"});
}
}  // namespace
}  // namespace bigbird_pegasus_impl

const Family& bigbird_pegasus_family() {
  static const Family family{"bigbird_pegasus", "models/bigbird_pegasus/modeling_bigbird_pegasus.py",
                             classes("BigBirdPegasus", {heads::ForConditionalGeneration, heads::ForSequenceClassification, heads::ForQuestionAnswering, heads::ForCausalLM}),
                             bigbird_pegasus_impl::build};
  return family;
}

}  // namespace neurarch::families
