// PLBart (models/plbart/modeling_plbart.py + configuration_plbart.py, transformers 4.47.1): BART's
// architecture (post-norm, layernorm_embedding, learned positions with 2 offset rows,
// final_logits_bias) with PLBartConfig's defaults: d_model 768, 6 + 6 layers, 12 heads, ffn 3072,
// vocab 50005, attention_dropout 0.1, scale_embedding true. Only the eager attention class exists in
// 4.47.1 ("TODO: Implement attention with SDPA for PLBart").
#include "families/bart_common.hpp"

namespace neurarch::families {
namespace plbart_impl {
namespace {
graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  return bart::build(in, b, {.defaults = {.vocab = 50005, .scale_embedding = true, .d_model = 768,
                                          .encoder_layers = 6, .decoder_layers = 6, .heads = 12, .ffn = 3072,
                                          .attention_dropout = 0.1},
                             .sdpa = false});
}
}  // namespace
}  // namespace plbart_impl

const Family& plbart_family() {
  static const Family family{"plbart", "models/plbart/modeling_plbart.py",
                             classes("PLBart",
                                     {heads::ForConditionalGeneration, heads::ForSequenceClassification, heads::ForCausalLM}),
                             plbart_impl::build};
  return family;
}

}  // namespace neurarch::families
