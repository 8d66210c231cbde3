// SwitchTransformers (models/switch_transformers/modeling_switch_transformers.py +
// configuration_switch_transformers.py, transformers 4.47.1): T5 (relative bias in block 0, no
// SDPA path, tied head rescaled by d_model^-0.5) whose feed-forward module is `mlp`: a dense
// wi -> dense_act_fn -> wo, or in sparse layers a top-1 router (mlp.router.classifier) over
// num_experts such experts (mlp.experts.expert_<e>). Layer i is sparse when i % step == 1 (every
// layer when step is 1), step = encoder_sparse_step / decoder_sparse_step, else
// num_layers // num_sparse_*_layers. Defaults: d_model 768, 12 + 12 layers, 12 heads, 8 experts.
#include "families/t5_common.hpp"

namespace neurarch::families {
namespace switch_transformers_impl {
namespace {
graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  return t5::build(in, b, {.bias_in_every_layer = false,
                           .defaults = {.vocab = 32128, .d_model = 768, .d_ff = 2048, .layers = 12, .heads = 12},
                           .switch_mlp = true});
}
}  // namespace
}  // namespace switch_transformers_impl

const Family& switch_transformers_family() {
  static const Family family{"switch_transformers", "models/switch_transformers/modeling_switch_transformers.py",
                             classes("SwitchTransformers", {heads::ForConditionalGeneration, heads::EncoderModel}),
                             switch_transformers_impl::build};
  return family;
}

}  // namespace neurarch::families
