// LLaVA (models/llava/modeling_llava.py, transformers 4.47.1): a vision tower (AutoModel of vision_config:
// CLIPVisionModel by default, SigLIP's for the variants that use it), a two-layer projector
// (linear_1 -> projector_hidden_act -> linear_2) from the hidden state(s) of vision_feature_layer, and the
// causal LM of text_config (AutoModelForCausalLM: any decoder family of the registry, built by its own code
// under `language_model`). The projected image features replace the prompt's image-token embeddings, so the
// prompt must hold one token per feature (576 for a 336-px, 14-px-patch tower with the "default" strategy,
// which drops the class token). The whole vision tower runs, its last layers and post_layernorm included,
// though only the selected layer feeds the projector.
#include "families/llava_common.hpp"

namespace neurarch::families {
namespace llava_impl {
namespace {

using namespace blocks;

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config& c = in.config;
  const llava::Parts p = llava::read_parts(c, llava::clip_vit_l14_336(), "llama");
  const bool drop_first = llava::drops_first_token(c, "default");
  const auto f = llava::vision_features(in, b, c, p, llava::feature_layers(c, "vision_feature_layer", {-2}),
                                        drop_first, 1);
  const std::int64_t text_hidden = llava::text_width(in, p);
  auto x = llava::two_layer_projector(b, f.features, f, Scope("multi_modal_projector"), text_hidden,
                                      c.flag({"multimodal_projector_bias"}, true),
                                      c.text({"projector_hidden_act"}, "gelu"));
  const std::int64_t image_tokens = x.shape.front();
  const std::int64_t seq = llava::prompt_length(in, b, p.text, image_tokens);
  auto logits = llava::language_model(in, b, p, llava::Layout::Legacy, seq);
  llava::scatter_into_prompt(b, x, image_tokens);
  return logits;
}

}  // namespace
}  // namespace llava_impl

const Family& llava_family() {
  static const Family family{"llava", "models/llava/modeling_llava.py",
                             {{"LlavaForConditionalGeneration", Head::CausalLM}}, llava_impl::build};
  return family;
}

}  // namespace neurarch::families
