// Qwen3-VL-MoE's text decoder on its own (Qwen3VLMoeTextModel in models/qwen3_vl_moe/modeling_qwen3_vl_moe.py,
// transformers 5.24.0): qwen3_vl::moe_text_spec, Qwen3's decoder with Qwen3-MoE's sparse MLP and
// Qwen3VLMoeTextConfig's defaults.
#include "families/qwen3_vl_common.hpp"

namespace neurarch::families {
namespace qwen3_vl_moe_text_impl {
namespace {

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  return decoder::build_decoder(in, b, qwen3_vl::moe_text_spec(in.config));
}

}  // namespace
}  // namespace qwen3_vl_moe_text_impl

const Family& qwen3_vl_moe_text_family() {
  static const Family family{"qwen3_vl_moe_text", "models/qwen3_vl_moe/modeling_qwen3_vl_moe.py",
                             {{"Qwen3VLMoeTextModel", Head::Base}}, qwen3_vl_moe_text_impl::build};
  return family;
}

}  // namespace neurarch::families
