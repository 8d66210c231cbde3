// Donut's Swin encoder (models/donut/modeling_donut_swin.py, transformers 4.47.1): SwinModel's embeddings and
// stages under the same names, without the final layernorm (its average pooler has no parameters). The encoder
// of Donut's VisionEncoderDecoderModel.
#include "families/swin_common.hpp"

namespace neurarch::families {
namespace donut_swin_impl {
namespace {
graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  return swin::model(in, b, {.final_norm = false});
}
}  // namespace
}  // namespace donut_swin_impl

const Family& donut_swin_family() {
  static const Family family{"donut-swin", "models/donut/modeling_donut_swin.py", {{"DonutSwinModel", Head::Base}},
                             donut_swin_impl::build};
  return family;
}

}  // namespace neurarch::families
