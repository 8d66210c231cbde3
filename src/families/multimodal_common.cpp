#include "families/multimodal_common.hpp"

#include <fmt/format.h>

#include "core/error.hpp"

namespace neurarch::families::multimodal {

LanguageModel find_language_model(const Config& c, std::string_view text_type, Head head, std::string_view owner) {
  LanguageModel lm{find_family(text_type), nullptr};
  if (lm.family)
    for (const auto& cls : lm.family->classes)
      if (cls.head == head) lm.cls = &cls;
  if (!lm.cls)
    throw Error(ErrorKind::Unsupported, c.origin() + ": text_config: key 'model_type'",
                fmt::format("{}'s language model '{}' is not a supported {}", owner, text_type,
                            head == Head::CausalLM ? "causal LM" : "base model"));
  return lm;
}

Value build_language_model(const BuildInput& in, GraphBuilder& b, const Config& text_config,
                           const LanguageModel& lm, const graph::Nest& nest) {
  graph::Nested nested(b, nest);
  const BuildInput sub{text_config, std::string(lm.cls->name), lm.cls->head, in.requested_seq,
                       in.requested_image_size};
  return lm.family->build(sub, b);
}

std::int64_t token_width(const BuildInput& in, const Config& text_config, const LanguageModel& lm) {
  GraphBuilder scratch;
  lm.family->build(BuildInput{text_config, std::string(lm.cls->name), lm.cls->head, in.requested_seq,
                              in.requested_image_size},
                   scratch);
  const graph::Node* embedding = prompt_embedding(scratch.graph());
  if (!embedding || embedding->out.empty())
    throw Error(ErrorKind::Unsupported, text_config.origin() + ": key 'model_type'",
                "the language model embeds no input_ids a projector could write into");
  return embedding->out.back();
}

const graph::Node* prompt_embedding(const graph::Graph& g) {
  const graph::GraphInput* ids = nullptr;
  for (const auto& input : g.inputs)
    if (input.kind == "tokens") ids = &input;
  if (!ids) return nullptr;
  for (const auto& n : g.nodes)
    if (n.type == graph::NodeType::Embedding && !n.inputs.empty() && n.inputs.front() == ids->node) return &n;
  return nullptr;
}

void scatter_image_features(GraphBuilder& b, const Value& features) {
  const graph::Node* embed = prompt_embedding(b.graph());
  if (!embed) return;
  const Value embedded{embed->index, embed->out};
  const int ids = embed->inputs.front();
  const Value prompt{ids, b.graph().nodes[static_cast<std::size_t>(ids)].out};
  b.at(embedded).inputs.push_back(features.node);
  if (features.shape.back() != embedded.shape.back())
    b.fail(embedded, fmt::format("the projector writes {}-wide image features into {}-wide token embeddings",
                                 features.shape.back(), embedded.shape.back()));
  else if (prompt.shape.front() < features.shape.front())
    b.fail(embedded, fmt::format("a prompt of {} tokens cannot hold the {} image tokens the projector writes into it",
                                 prompt.shape.front(), features.shape.front()));
  b.set_main_input(prompt);
}

}  // namespace neurarch::families::multimodal
