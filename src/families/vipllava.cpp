// VipLLaVA (models/vipllava/modeling_vipllava.py, transformers 4.47.1): LLaVA whose projector reads the
// class-token-free hidden states of several tower layers (vision_feature_layers, [-2, -5, -8, -11, 6] by
// default) concatenated along the width, layer-normed (projector_layernorm) before linear_1 -> act ->
// linear_2. There is no select strategy: the first token is always dropped, so a 336-px, 14-px-patch tower
// writes 576 image tokens, and the prompt must hold them.
#include "families/llava_common.hpp"

namespace neurarch::families {
namespace vipllava_impl {
namespace {

using namespace blocks;

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config& c = in.config;
  const llava::Parts p = llava::read_parts(c, llava::clip_vit_l14_336(), "llama");
  const auto layers = llava::feature_layers(c, "vision_feature_layers", {-2, -5, -8, -11, 6});
  const auto f = llava::vision_features(in, b, c, p, layers, true, 1);
  const std::int64_t text_hidden = llava::text_width(in, p);
  const Scope projector("multi_modal_projector");
  auto x = norm(b, f.features, "Projector_LayerNorm", {projector / "projector_layernorm"});
  // The picked layers are concatenated before the norm, which reads them all.
  for (std::size_t i = 1; i < f.picked.size(); ++i) b.at(x).inputs.push_back(f.picked[i].node);
  x = dense(b, x, "Projector_Linear_1", projector / "linear_1", f.width, text_hidden, true,
            c.text({"projector_hidden_act"}, "gelu"));
  x = dense(b, x, "Projector_Linear_2", projector / "linear_2", text_hidden, text_hidden, true);
  const std::int64_t image_tokens = x.shape.front();
  const std::int64_t seq = llava::prompt_length(in, b, p.text, image_tokens);
  auto logits = llava::language_model(in, b, p, llava::Layout::Legacy, seq);
  llava::scatter_into_prompt(b, x, image_tokens);
  return logits;
}

}  // namespace
}  // namespace vipllava_impl

const Family& vipllava_family() {
  static const Family family{"vipllava", "models/vipllava/modeling_vipllava.py",
                             {{"VipLlavaForConditionalGeneration", Head::CausalLM}}, vipllava_impl::build};
  return family;
}

}  // namespace neurarch::families
