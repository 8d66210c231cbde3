// AIMv2's text encoder alone (models/aimv2/modeling_aimv2.py, transformers 5.24): Aimv2TextModel keeps its modules
// at the root (embeddings, encoder, rms_norm); pooler_output is the EOS token's normed state. See aimv2_common.hpp.
#include "families/aimv2_common.hpp"

namespace neurarch::families {
namespace aimv2_text_model_impl {
namespace {

using namespace blocks;

Value build(const BuildInput& in, GraphBuilder& b) { return aimv2::text_tower(in, b, in.config, Scope()).pooled; }

}  // namespace
}  // namespace aimv2_text_model_impl

const Family& aimv2_text_model_family() {
  static const Family family{"aimv2_text_model", "models/aimv2/modeling_aimv2.py", classes("Aimv2Text"), aimv2_text_model_impl::build};
  return family;
}

}  // namespace neurarch::families
