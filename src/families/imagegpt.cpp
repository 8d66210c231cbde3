// ImageGPT (models/imagegpt/modeling_imagegpt.py + configuration_imagegpt.py, transformers 4.47.1): GPT-2's model
// (gpt2.cpp) with ImageGPTConfig's defaults (512 wide, 24 layers, 8 heads) over a sequence of colour-cluster tokens
// (vocab_size 513: 512 clusters and a start token; 1024 positions, a 32 x 32 image), with ImageGPTLayerNorm, a
// weight-only norm that divides by the root mean square (not mean-centred: an RMSNorm) and reads its weight through
// `.data`, so the weight never gets a gradient; quick_gelu by default and untied embeddings.
// ImageGPTForCausalImageModeling's lm_head predicts the 512 clusters (vocab_size - 1, no bias);
// ImageGPTForImageClassification scores the mean of the final states (no bias).
#include "families/gpt2.hpp"

namespace neurarch::families {
namespace imagegpt_impl {
namespace {

blocks::Value build(const BuildInput& in, blocks::GraphBuilder& b) {
  return gpt2::build(in, b,
                     {.vocab = 513, .positions = 32 * 32, .hidden = 512, .layers = 24, .heads = 8,
                      .norm = blocks::NormKind::RMSNorm, .norm_bias = false, .norm_weight_frozen = true,
                      .activation = "quick_gelu", .tie_word_embeddings = false, .vocab_not_predicted = 1});
}

}  // namespace
}  // namespace imagegpt_impl

const Family& imagegpt_family() {
  static const Family family{"imagegpt", "models/imagegpt/modeling_imagegpt.py",
                             classes("ImageGPT", {{"ForCausalImageModeling", Head::CausalLM},
                                                  heads::ForImageClassification}),
                             imagegpt_impl::build};
  return family;
}

}  // namespace neurarch::families
