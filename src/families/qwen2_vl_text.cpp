// Qwen2-VL's text decoder on its own (Qwen2VLTextModel in models/qwen2_vl/modeling_qwen2_vl.py,
// transformers 4.57.6): the Qwen2 decoder
// (bias on q/k/v only, head_dim = hidden / heads) whose rotary positions are M-RoPE's three sections,
// which change the positions q and k rotate by, not the tensors or the shapes.
#include "families/qwen2_vl_common.hpp"

namespace neurarch::families {
namespace qwen2_vl_text_impl {
namespace {

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  return decoder::build_decoder(in, b, qwen2_vl::text_spec(in.config));
}

}  // namespace
}  // namespace qwen2_vl_text_impl

const Family& qwen2_vl_text_family() {
  static const Family family{"qwen2_vl_text", "models/qwen2_vl/modeling_qwen2_vl.py", classes("Qwen2VLText"), qwen2_vl_text_impl::build};
  return family;
}

}  // namespace neurarch::families
