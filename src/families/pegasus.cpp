// Pegasus (models/pegasus/modeling_pegasus.py + configuration_pegasus.py, transformers 4.47.1):
// pre-norm, no layernorm_embedding, a fixed sinusoid stored as embed_positions.weight
// [max_position_embeddings, d_model] (frozen, but saved), pad 0. Attention is eager only.
#include "families/bart_common.hpp"

namespace neurarch::families {
namespace pegasus_impl {
namespace {
graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  return bart::build(in, b, {.defaults = {.pad = 0},
                                .positions = bart::Positions::SinusoidStored,
                                .layernorm_embedding = false,
                                .pre_norm = true,
                                .sdpa = false});
}
}  // namespace
}  // namespace pegasus_impl

const Family& pegasus_family() {
  static const Family family{"pegasus", "models/pegasus/modeling_pegasus.py",
                             classes("Pegasus", {heads::ForConditionalGeneration, heads::ForCausalLM}), pegasus_impl::build};
  return family;
}

}  // namespace neurarch::families
