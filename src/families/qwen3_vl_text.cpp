// Qwen3-VL's text decoder on its own (Qwen3VLTextModel in models/qwen3_vl/modeling_qwen3_vl.py, transformers
// 5.24.0): Qwen3's decoder with Qwen3VLTextConfig's defaults (qwen3_vl::text_spec); its interleaved M-RoPE changes
// the positions q and k rotate by, not the tensors or the shapes.
#include "families/qwen3_vl_common.hpp"

namespace neurarch::families {
namespace qwen3_vl_text_impl {
namespace {

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  return decoder::build_decoder(in, b, qwen3_vl::text_spec(in.config));
}

}  // namespace
}  // namespace qwen3_vl_text_impl

const Family& qwen3_vl_text_family() {
  static const Family family{"qwen3_vl_text", "models/qwen3_vl/modeling_qwen3_vl.py",
                             {{"Qwen3VLTextModel", Head::Base}}, qwen3_vl_text_impl::build};
  return family;
}

}  // namespace neurarch::families
