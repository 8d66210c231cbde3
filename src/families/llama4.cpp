// Llama 4 with its vision tower (models/llama4/modeling_llama4.py + configuration_llama4.py, transformers 4.57.6:
// Llama4ForConditionalGeneration). vision_model: the image unfolded into patch_size patches and projected by a
// bias-free nn.Linear (patch_embedding.linear), a class embedding appended after the patches, one learned
// position table for (image_size / patch_size)^2 + 1 tokens (positional_embedding_vlm, so a resized image cannot
// run), layernorm_pre, pre-norm layers (input_layernorm, self_attn.{q,k,v,o}_proj with biases and 2-D RoPE from a
// non-persistent buffer, post_attention_layernorm, mlp.fc1/fc2 with biases), layernorm_post, the class token
// dropped, then vision_adapter: a pixel shuffle (pixel_shuffle_ratio^2 fewer tokens, 1 / ratio^2 wider) and
// mlp.fc1 (intermediate_size -> projector_input_dim) / fc2 (projector_output_dim, square), bias-free.
// multi_modal_projector.linear_1 (vision_output_dim -> the text hidden size, bias-free) writes the image tokens
// into the prompt of language_model, a Llama4ForCausalLM built by the llama4_text family from text_config.
// The default vision config is not self-consistent (hidden 768 shuffles to 3072, fc1 reads 5632; fc2 writes
// 4096, the projector reads 7680): its tensors are exact, its forward pass is refused where the reference's
// would fail.
#include "families/clip_common.hpp"
#include "families/llama4_common.hpp"
#include "families/multimodal_common.hpp"

namespace neurarch::families {
namespace llama4_impl {
namespace {

using namespace blocks;

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config& c = in.config;
  const Config vision_config = c.child("vision_config");
  const Config text_config = c.child("text_config");
  const auto language_model = multimodal::find_language_model(c, text_config.text({"model_type"}, "llama4_text"),
                                                              Head::CausalLM, "Llama 4");
  Value image_tokens;
  {
    graph::Nested nest(b, {.module = "vision_model", .label = "Vision_", .first_block = 0});
    image_tokens = llama4::vision_model(in, b, vision_config);
  }
  const std::int64_t vision_output = vision_config.dim({"vision_output_dim"}, 7680);
  const std::int64_t text_hidden = multimodal::token_width(in, text_config, language_model);
  const auto features = dense(b, image_tokens, "Projector_Linear", Scope("multi_modal_projector") / "linear_1",
                              vision_output, text_hidden, false);
  const Value logits = multimodal::build_language_model(
      in, b, text_config, language_model, {.module = "language_model", .label = "LM_", .first_block = b.next_block()});
  multimodal::scatter_image_features(b, features);
  return logits;
}

}  // namespace
}  // namespace llama4_impl

const Family& llama4_family() {
  static const Family family{"llama4", "models/llama4/modeling_llama4.py",
                             {{"Llama4ForConditionalGeneration", Head::CausalLM}}, llama4_impl::build};
  return family;
}

}  // namespace neurarch::families
