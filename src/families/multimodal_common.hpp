#pragma once
// What the vision-language families (LLaVA, Gemma 3, PaliGemma, ShieldGemma 2) share: a language model
// built by its own family's code from text_config (the registry decides which), nested under the
// composite's attribute, and the scatter of the projected image features into the embedded prompt.
#include <string_view>

#include "families/family.hpp"

namespace neurarch::families::multimodal {

using blocks::GraphBuilder;
using blocks::Value;

/// The language model's family and the class of it that carries `head`.
struct LanguageModel {
  const Family* family = nullptr;
  const ClassDef* cls = nullptr;
};

/// `text_type`'s family and its class with `head`; Unsupported naming `c`'s text_config and `owner`
/// (e.g. "LLaVA") when the registry has no such family or class.
LanguageModel find_language_model(const Config& c, std::string_view text_type, Head head, std::string_view owner);

/// Builds `lm` from `text_config` inside `nest` (module prefix, node label, first block), with the
/// user's --seq and --image-size; returns the family's output.
Value build_language_model(const BuildInput& in, GraphBuilder& b, const Config& text_config,
                           const LanguageModel& lm, const graph::Nest& nest);

/// The width of `lm`'s token embedding as `text_config` builds it (the family's own default when the config
/// leaves hidden_size out, as configs saved as a diff from the defaults do): what a projector must write.
std::int64_t token_width(const BuildInput& in, const Config& text_config, const LanguageModel& lm);

/// The language model's lookup of input_ids (the node image features are scattered into); null when the
/// graph has no token input.
const graph::Node* prompt_embedding(const graph::Graph& g);

/// The projected image `features` ([tokens, hidden]) replace the prompt's image-token embeddings: the
/// embedding of input_ids reads them too, the prompt becomes the graph's main input, and features of
/// another width than the embedding's, or more of them than the prompt has tokens, cannot run.
void scatter_image_features(GraphBuilder& b, const Value& features);

}  // namespace neurarch::families::multimodal
