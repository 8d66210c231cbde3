// Mistral3 (models/mistral3/modeling_mistral3.py, transformers 4.57.6): Pixtral's encoder under
// `model.vision_tower`, a projector (`model.multi_modal_projector`: RMSNorm, a PatchMerger that concatenates
// spatial_merge_size^2 neighbouring patches into merging_layer, then linear_1 -> act -> linear_2) and the
// language model of text_config (Mistral by default) as its base model under `model.language_model`, with
// `lm_head` at the top. A 1540-px photo (image_size, our default input) runs 110 x 110 patches and writes
// 55 x 55 = 3025 image features; the processor adds an [IMG_BREAK] after every row ([IMG_END] after the
// last), so the prompt holds 55 x 56 = 3080 image-related tokens. --image-size sets the photo's side.
#include <fmt/format.h>

#include "core/error.hpp"
#include "families/llava_common.hpp"
#include "families/multimodal_common.hpp"
#include "families/pixtral_common.hpp"

namespace neurarch::families {
namespace mistral3_impl {
namespace {

using namespace blocks;

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config& c = in.config;
  // Mistral3Config's sub-configs when absent: Mistral-Small-3.1's Pixtral encoder and Mistral decoder.
  static const nlohmann::json default_vision{
      {"model_type", "pixtral"}, {"hidden_size", 1024}, {"intermediate_size", 4096}, {"num_hidden_layers", 24},
      {"num_attention_heads", 16}, {"patch_size", 14}, {"image_size", 1540}, {"head_dim", 64}};
  static const nlohmann::json default_text{
      {"model_type", "mistral"}, {"hidden_size", 5120}, {"intermediate_size", 32768}, {"num_hidden_layers", 40},
      {"num_attention_heads", 32}, {"num_key_value_heads", 8}, {"head_dim", 128}, {"max_position_embeddings", 131072},
      {"vocab_size", 131072}, {"rope_theta", 1e9}, {"sliding_window", nullptr}};
  llava::Parts p{c.child("vision_config", default_vision), c.child("text_config", default_text)};
  const auto lm = multimodal::find_language_model(c, p.text.text({"model_type"}, "mistral"), Head::CausalLM,
                                                 "Mistral 3");
  p.text_family = lm.family;
  p.causal_lm = lm.cls;
  const bool with_head = in.head != Head::Base;
  const std::int64_t merge = c.dim({"spatial_merge_size"}, 2);
  const std::int64_t text_hidden = llava::text_width(in, p);
  const bool bias = c.flag({"multimodal_projector_bias"}, false);

  Value out;
  {
    std::optional<graph::Nested> model;
    if (with_head) model.emplace(b, graph::Nest{.module = "model", .label = ""});
    pixtral::Encoder e;
    std::vector<Value> picked;
    {
      graph::Nested nest(b, {.module = "vision_tower", .label = "Vision_", .first_block = 0});
      e = pixtral::encoder(in, b, p.vision);
      const auto states = static_cast<std::int64_t>(e.hidden_states.size());
      for (auto layer : llava::feature_layers(c, "vision_feature_layer", {-1})) {
        const std::int64_t index = layer < 0 ? states + layer : layer;
        if (index < 0 || index >= states)
          throw Error(ErrorKind::InvalidInput, c.origin() + ": key 'vision_feature_layer'",
                      fmt::format("layer {} is outside the tower's {} hidden states", layer, states));
        picked.push_back(e.hidden_states[static_cast<std::size_t>(index)]);
      }
    }
    const auto layers = static_cast<std::int64_t>(picked.size());
    const Scope projector("multi_modal_projector");
    auto x = norm(b, Value{picked.front().node, {e.side * e.side, e.hidden * layers}}, "Projector_RMSNorm",
                  {projector / "norm", NormKind::RMSNorm});
    for (std::size_t i = 1; i < picked.size(); ++i) b.at(x).inputs.push_back(picked[i].node);
    const std::int64_t rows = e.side / merge;
    const std::int64_t features = rows * rows;
    // The merger unfolds merge x merge blocks of the patch grid into rows of merge^2 x hidden.
    x = dense(b, Value{x.node, {features, e.hidden * merge * merge}}, "Projector_Patch_Merger",
              projector / "patch_merger" / "merging_layer", e.hidden * merge * merge, e.hidden, false);
    if (e.side % merge != 0)
      b.fail(x, fmt::format("a {}-patch side cannot be merged {} by {}", e.side, merge, merge));
    x = dense(b, x, "Projector_Linear_1", projector / "linear_1", e.hidden * layers, text_hidden, bias,
              c.text({"projector_hidden_act"}, "gelu"));
    x = dense(b, x, "Projector_Linear_2", projector / "linear_2", text_hidden, text_hidden, bias);
    b.note(fmt::format("a {}x{}-patch image writes {} image features ({} x {} merged) and the processor adds {} "
                       "row-break tokens; --image-size sets the photo's side",
                       e.side, e.side, features, rows, rows, rows));
    const std::int64_t seq = llava::prompt_length(in, b, p.text, features + rows);
    out = llava::language_model(in, b, p, llava::Layout::Model, seq);
    llava::scatter_into_prompt(b, x, features);
  }
  if (with_head) out = llava::top_lm_head(b, out, p.text);
  return out;
}

}  // namespace
}  // namespace mistral3_impl

const Family& mistral3_family() {
  static const Family family{"mistral3", "models/mistral3/modeling_mistral3.py",
                             classes("Mistral3", {heads::VisionLanguageGeneration}), mistral3_impl::build};
  return family;
}

}  // namespace neurarch::families
