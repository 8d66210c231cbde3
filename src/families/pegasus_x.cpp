// PEGASUS-X (models/pegasus_x/modeling_pegasus_x.py + configuration_pegasus_x.py, transformers 4.47.1):
// PEGASUS's pre-norm encoder-decoder for long inputs. Projections have no bias; positions are a
// sinusoid computed on the fly (no tensor); scale_embedding; no final_logits_bias. The encoder's
// attention is block-local (block_size, staggered on odd layers) with num_global_tokens learned
// global tokens (embed_global, normalised by each layer's global_self_attn_layer_norm); its
// hand-written attention has no SDPA path.
#include "families/bart_common.hpp"

namespace neurarch::families {
namespace pegasus_x_impl {
namespace {
graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  return bart::build(in, b,
                     {.defaults = {.vocab = 96103, .pad = 0, .scale_embedding = true, .encoder_layers = 16,
                                   .decoder_layers = 16},
                      .positions = bart::Positions::SinusoidBuffer,
                      .layernorm_embedding = false,
                      .pre_norm = true,
                      .final_logits_bias = false,
                      .sdpa = false,
                      .default_positions = 16384,
                      .attention_bias = false,
                      .block_local_encoder = true});
}
}  // namespace
}  // namespace pegasus_x_impl

const Family& pegasus_x_family() {
  static const Family family{"pegasus_x", "models/pegasus_x/modeling_pegasus_x.py",
                             classes("PegasusX", {heads::ForConditionalGeneration}), pegasus_x_impl::build};
  return family;
}

}  // namespace neurarch::families
