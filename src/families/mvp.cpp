// MVP (models/mvp/modeling_mvp.py + configuration_mvp.py, transformers 4.47.1): BART's
// architecture (post-norm, layernorm_embedding, learned positions with 2 offset rows,
// final_logits_bias) plus, with use_prompt, MvpPrompt modules (prompt_embedding and a two-layer
// prompt_trans) whose prompt_length rows become a key/value prefix of every encoder self-attention
// and every decoder self- and cross-attention. MvpForCausalLM's decoder never has prompts.
// Defaults: d_model 1024, 12 + 12 layers, 16 heads, ffn 4096, vocab 50267. Eager attention only.
#include "families/bart_common.hpp"

namespace neurarch::families {
namespace mvp_impl {
namespace {
graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  return bart::build(in, b, {.defaults = {.vocab = 50267}, .sdpa = false, .prompts = true});
}
}  // namespace
}  // namespace mvp_impl

const Family& mvp_family() {
  static const Family family{"mvp", "models/mvp/modeling_mvp.py",
                             classes("Mvp",
                                     {heads::ForConditionalGeneration, heads::ForSequenceClassification, heads::ForQuestionAnswering, heads::ForCausalLM}),
                             mvp_impl::build};
  return family;
}

}  // namespace neurarch::families
