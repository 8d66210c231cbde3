// NLLB-MoE (models/nllb_moe/modeling_nllb_moe.py + configuration_nllb_moe.py, transformers
// 4.47.1): M2M100's pre-norm stacks (sinusoidal positions in a non-persistent buffer, relu,
// scale_embedding, a layer_norm after each stack, no final_logits_bias) with its own names
// (cross_attention, ff_layer_norm, the feed-forward under `ffn`). Layer i with
// (i + 1) % encoder_sparse_step (decoder_sparse_step) == 0 replaces the dense ffn by a top-2
// router over num_experts experts with biases. Defaults: d_model 1024, 12 + 12 layers, 16 heads,
// ffn 4096, 128 experts every 4th layer, vocab 128112. Eager attention only.
#include "families/bart_common.hpp"

namespace neurarch::families {
namespace nllb_moe_impl {
namespace {
graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  return bart::build(in, b, {.defaults = {.vocab = 128112, .activation = "relu", .scale_embedding = true,
                                          .attention_dropout = 0.1},
                             .positions = bart::Positions::SinusoidBuffer,
                             .layernorm_embedding = false,
                             .pre_norm = true,
                             .final_logits_bias = false,
                             .sdpa = false,
                             .cross_attention = "cross_attention",
                             .ffn_module = "ffn",
                             .ffn_norm = "ff_layer_norm",
                             .sparse_ffn = true});
}
}  // namespace
}  // namespace nllb_moe_impl

const Family& nllb_moe_family() {
  static const Family family{"nllb-moe", "models/nllb_moe/modeling_nllb_moe.py",
                             classes("NllbMoe", {heads::ForConditionalGeneration}), nllb_moe_impl::build};
  return family;
}

}  // namespace neurarch::families
