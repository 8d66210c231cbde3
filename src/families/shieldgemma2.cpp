// ShieldGemma 2 (models/shieldgemma2/modeling_shieldgemma2.py + configuration_shieldgemma2.py, transformers
// 4.57.6): Gemma3ForConditionalGeneration (AutoModelForImageTextToText of the same config) under `model`,
// whose last-position logits at the "Yes" and "No" tokens (yes_token_index, no_token_index) are the
// two-way output. Unlike Gemma3Config, ShieldGemma2Config builds text_config by its model_type (default
// gemma3_text), and Gemma3Model builds its language model as AutoModel of it.
#include <utility>

#include <fmt/format.h>

#include "families/clip_common.hpp"
#include "families/gemma3.hpp"

namespace neurarch::families {
namespace shieldgemma2_impl {
namespace {

using namespace blocks;

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config& c = in.config;
  const std::string text_type = c.child("text_config").text({"model_type"}, "gemma3_text");
  if (in.head == Head::CausalLM) return gemma3::conditional_generation(in, b, Scope("model"), Scope(), text_type);
  BuildInput lm = in;
  lm.head = Head::CausalLM;
  auto logits = gemma3::conditional_generation(lm, b, Scope("model.model"), Scope("model"), text_type);
  // A gather of two vocabulary columns at the last position: no module, no tensors.
  auto picked = b.node(graph::NodeType::Pooler, "Yes_No_Logits", {2}, {logits});
  const std::int64_t vocab = logits.shape.back();
  for (const auto& [key, fallback] : {std::pair{"yes_token_index", 10784}, std::pair{"no_token_index", 3771}})
    if (const std::int64_t id = c.integer({key}, fallback); id < 0 || id >= vocab)
      b.fail(picked, fmt::format("{} {} is outside the vocabulary of {} logits", key, id, vocab));
  return picked;
}

}  // namespace
}  // namespace shieldgemma2_impl

const Family& shieldgemma2_family() {
  static const Family family{"shieldgemma2", "models/shieldgemma2/modeling_shieldgemma2.py",
                             {{"ShieldGemma2ForImageClassification", Head::ImageClassification},
                              {"Gemma3ForConditionalGeneration", Head::CausalLM}},
                             shieldgemma2_impl::build};
  return family;
}

}  // namespace neurarch::families
