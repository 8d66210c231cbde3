// Pixtral's vision encoder on its own (PixtralVisionModel, models/pixtral/modeling_pixtral.py,
// transformers 4.47.1): see pixtral_common.hpp. Its output is the last layer's hidden state, one vector per
// 16-px patch (4096 for the default 1024-px image).
#include "families/pixtral_common.hpp"

namespace neurarch::families {
namespace pixtral_impl {
namespace {

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  return pixtral::encoder(in, b, in.config).hidden_states.back();
}

}  // namespace
}  // namespace pixtral_impl

const Family& pixtral_family() {
  static const Family family{"pixtral", "models/pixtral/modeling_pixtral.py", classes("PixtralVision"), pixtral_impl::build};
  return family;
}

}  // namespace neurarch::families
