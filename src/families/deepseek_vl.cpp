// DeepSeek-VL (DeepseekVLModel, DeepseekVLForConditionalGeneration in models/deepseek_vl/modeling_deepseek_vl.py +
// configuration_deepseek_vl.py; the shared ground truth is transformers 4.57.6's): a SigLIP vision tower (AutoModel
// of vision_config, SiglipVisionModel: `vision_model.vision_model.*`, its attention-probe head built though only
// last_hidden_state is read), the aligner (linear1 -> GELU -> linear2, with biases, from the tower's width to the
// text width) and the base model of text_config (a Llama by default) under `language_model`, whose prompt receives
// the aligned patches in place of its image tokens; lm_head beside `model`. A LLaVA without feature-layer picking
// or class-token dropping, so it is built from LLaVA's parts (llava_common).
#include "families/deepseek_vl.hpp"

#include <optional>

#include "core/error.hpp"

namespace neurarch::families {
namespace deepseek_vl {

using namespace blocks;

llava::Parts read_parts(const Config& c) {
  static const nlohmann::json default_vision{{"model_type", "siglip_vision_model"}};
  llava::Parts p = llava::read_parts(c, default_vision, "llama");
  if (p.variant != clip::Variant::Siglip)
    throw Error(ErrorKind::Unsupported, c.origin() + ": vision_config: key 'model_type'",
                "DeepSeek-VL's vision tower is SigLIP's (siglip_vision_model)");
  return p;
}

clip::Tower low_res_tower(const BuildInput& in, GraphBuilder& b, const llava::Parts& p) {
  graph::Nested nest(b, {.module = "vision_model", .label = "Vision_", .first_block = 0});
  return clip::vision_tower(in, b, p.vision, p.variant, Scope("vision_model"));
}

Value build_model(const BuildInput& in, GraphBuilder& b, const llava::Parts& p,
                  const std::function<Value(GraphBuilder&, std::int64_t)>& image_features) {
  const bool with_head = in.head != Head::Base;
  const std::int64_t text_hidden = llava::text_width(in, p);
  Value out;
  {
    std::optional<graph::Nested> model;
    if (with_head) model.emplace(b, graph::Nest{.module = "model", .label = ""});
    const Value features = image_features(b, text_hidden);
    const std::int64_t tokens = features.shape.front();
    const std::int64_t seq = llava::prompt_length(in, b, p.text, tokens);
    out = llava::language_model(in, b, p, llava::Layout::Model, seq);
    llava::scatter_into_prompt(b, features, tokens);
  }
  if (with_head) out = llava::top_lm_head(b, out, p.text);
  return out;
}

}  // namespace deepseek_vl

namespace deepseek_vl_impl {
namespace {

using namespace blocks;

Value build(const BuildInput& in, GraphBuilder& b) {
  const llava::Parts p = deepseek_vl::read_parts(in.config);
  return deepseek_vl::build_model(in, b, p, [&](GraphBuilder& g, std::int64_t text_hidden) {
    const clip::Tower tower = deepseek_vl::low_res_tower(in, g, p);
    const Scope aligner("aligner");
    auto x = dense(g, tower.sequence, "Aligner_Linear1", aligner / "linear1", tower.hidden, text_hidden, true, "gelu");
    return dense(g, x, "Aligner_Linear2", aligner / "linear2", text_hidden, text_hidden, true);
  });
}

}  // namespace
}  // namespace deepseek_vl_impl

const Family& deepseek_vl_family() {
  static const Family family{"deepseek_vl", "models/deepseek_vl/modeling_deepseek_vl.py",
                             classes("DeepseekVL", {heads::VisionLanguageGeneration}), deepseek_vl_impl::build};
  return family;
}

}  // namespace neurarch::families
