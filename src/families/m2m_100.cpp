// M2M100 (models/m2m_100/modeling_m2m_100.py + configuration_m2m_100.py, transformers 4.47.1):
// pre-norm, relu, scale_embedding on by default, sinusoidal positions in a non-persistent buffer
// that grows with the input (nothing saved, no length limit), no final_logits_bias.
#include "families/bart_common.hpp"

namespace neurarch::families {
namespace m2m_100_impl {
namespace {
graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  return bart::build(in, b, {.defaults = {.vocab = 128112, .activation = "relu", .scale_embedding = true},
                                .positions = bart::Positions::SinusoidBuffer,
                                .layernorm_embedding = false,
                                .pre_norm = true,
                                .final_logits_bias = false});
}
}  // namespace
}  // namespace m2m_100_impl

const Family& m2m_100_family() {
  static const Family family{"m2m_100", "models/m2m_100/modeling_m2m_100.py",
                             classes("M2M100", {heads::ForConditionalGeneration}), m2m_100_impl::build};
  return family;
}

}  // namespace neurarch::families
