// Qwen2.5-VL (models/qwen2_5_vl/modeling_qwen2_5_vl.py, transformers 4.57.6): the vision transformer of
// qwen2_vl_common with RMSNorm, a gated MLP with biases and windowed attention (windows of window_size
// pixels, full attention in fullatt_block_indexes), and the Qwen2 decoder with M-RoPE. 4.5x names:
// `model.visual`, `model.language_model` (the base decoder), `lm_head` at the top; the base class
// Qwen2_5_VLModel holds `visual` and `language_model`. The text keys come from text_config, else from the
// top level as published configs write them. The default image is the largest square the image processor
// keeps whole (980x980: 4900 patches, 1225 image tokens); the prompt must hold one token per merged patch.
#include "families/llava_common.hpp"
#include "families/qwen2_vl_common.hpp"

namespace neurarch::families {
namespace qwen2_5_vl_impl {
namespace {

using namespace blocks;

Value build(const BuildInput& in, GraphBuilder& b) {
  const bool with_head = in.head != Head::Base;
  Value out;
  {
    std::optional<graph::Nested> model;
    if (with_head) model.emplace(b, graph::Nest{.module = "model", .label = ""});
    out = qwen2_vl::composite_model(in, b, in.config, qwen2_vl::Version::V2_5);
  }
  if (with_head) out = llava::top_lm_head(b, out, qwen2_vl::text_config_of(in.config));
  return out;
}

}  // namespace
}  // namespace qwen2_5_vl_impl

const Family& qwen2_5_vl_family() {
  static const Family family{"qwen2_5_vl", "models/qwen2_5_vl/modeling_qwen2_5_vl.py",
                             classes("Qwen2_5_VL", {heads::VisionLanguageGeneration}), qwen2_5_vl_impl::build};
  return family;
}

}  // namespace neurarch::families
