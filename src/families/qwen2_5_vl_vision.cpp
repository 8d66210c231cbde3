// Qwen2.5-VL's vision tower on its own (Qwen2_5_VisionTransformerPretrainedModel in
// models/qwen2_5_vl/modeling_qwen2_5_vl.py, transformers 5.24.0): qwen2_vl_common's vision transformer in its
// Qwen2.5 form (RMSNorm, gated MLP, windowed attention) at the top level, ending in the merged image features;
// Qwen2_5_VLVisionConfig's defaults.
#include <fmt/format.h>

#include "families/qwen2_vl_common.hpp"

namespace neurarch::families {
namespace qwen2_5_vl_vision_impl {
namespace {

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  qwen2_vl::ImageGrid grid;
  auto out = qwen2_vl::vision(in, b, in.config, qwen2_vl::Version::V2_5, grid);
  b.note(fmt::format("a {0}x{0} photo is resized to {1}x{2}: {3} patches through the vision tower, {4} merged image "
                     "features; --image-size sets the photo's side",
                     grid.photo, grid.height, grid.width, grid.patches, grid.tokens));
  return out;
}

}  // namespace
}  // namespace qwen2_5_vl_vision_impl

const Family& qwen2_5_vl_vision_family() {
  static const Family family{"qwen2_5_vl_vision", "models/qwen2_5_vl/modeling_qwen2_5_vl.py",
                             {{"Qwen2_5_VisionTransformerPretrainedModel", Head::Base}}, qwen2_5_vl_vision_impl::build};
  return family;
}

}  // namespace neurarch::families
