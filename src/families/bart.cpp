// BART (models/bart/modeling_bart.py + configuration_bart.py, transformers 4.47.1). Post-norm
// layers, learned positions with 2 offset rows, layernorm_embedding, final_logits_bias on the LM
// class. BartConfig's own defaults: 12 + 12 layers of d_model 1024, gelu, pad 1, num_labels 3.
#include "families/bart_common.hpp"

namespace neurarch::families {
namespace bart_impl {
namespace {
graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  return bart::build(in, b, {});
}
}  // namespace
}  // namespace bart_impl

const Family& bart_family() {
  static const Family family{"bart", "models/bart/modeling_bart.py",
                             classes("Bart", {heads::ForConditionalGeneration, heads::ForSequenceClassification, heads::ForQuestionAnswering, heads::ForCausalLM}),
                             bart_impl::build};
  return family;
}

}  // namespace neurarch::families
