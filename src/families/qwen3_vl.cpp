// Qwen3-VL (models/qwen3_vl/modeling_qwen3_vl.py + configuration_qwen3_vl.py, transformers 5.24.0): the
// vision transformer and DeepStack mergers of qwen3_vl_common under `model.visual`, and Qwen3's decoder
// (text_config, Qwen3VLTextConfig defaults: head_dim 128, 128000 positions) as `model.language_model`; `lm_head`
// at the top. The default image is the tower's native 48 x 48-patch grid (768 px: 576 image tokens).
#include "families/clip_common.hpp"
#include "families/qwen3_vl_common.hpp"

namespace neurarch::families {
namespace qwen3_vl_impl {
namespace {

blocks::Value build(const BuildInput& in, blocks::GraphBuilder& b) {
  const Config text = in.config.child("text_config");
  return qwen3_vl::build(in, b, qwen3_vl::text_spec(text), "Qwen3VLTextModel");
}

}  // namespace
}  // namespace qwen3_vl_impl

const Family& qwen3_vl_family() {
  static const Family family{"qwen3_vl", "models/qwen3_vl/modeling_qwen3_vl.py",
                             {{"Qwen3VLModel", Head::Base}, {"Qwen3VLForConditionalGeneration", Head::CausalLM}},
                             qwen3_vl_impl::build};
  return family;
}

}  // namespace neurarch::families
