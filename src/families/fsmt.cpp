// FSMT (models/fsmt/modeling_fsmt.py + configuration_fsmt.py, transformers 4.47.1): fairseq's WMT19
// transformer. Post-norm BART-like layers without layernorm_embedding or final norms, relu,
// scale_embedding; separate source (src_vocab_size) and target (tgt_vocab_size) tables; fixed
// sinusoids kept as frozen `embed_positions.weight` [max_position_embeddings + pad + 1, d_model]
// (regrown for longer inputs). The decoder ends in output_projection, whose weight is the target
// table (embed_tokens aliases it), so FSMTModel already returns logits and
// FSMTForConditionalGeneration adds no head. Its hand-written attention has no SDPA path.
#include "families/bart_common.hpp"

namespace neurarch::families {
namespace fsmt_impl {
namespace {
graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  return bart::build(in, b,
                     {.defaults = {.vocab = 42024, .activation = "relu", .scale_embedding = true},
                      .positions = bart::Positions::SinusoidFrozenWeights,
                      .layernorm_embedding = false,
                      .pre_norm = false,
                      .final_logits_bias = false,
                      .sdpa = false,
                      .fsmt_vocab = true,
                      .sinusoid_name = "weight",
                      .sinusoid_offset_after_pad = true});
}
}  // namespace
}  // namespace fsmt_impl

const Family& fsmt_family() {
  static const Family family{"fsmt", "models/fsmt/modeling_fsmt.py",
                             classes("FSMT", {heads::ForConditionalGeneration}), fsmt_impl::build};
  return family;
}

}  // namespace neurarch::families
