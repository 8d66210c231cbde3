// Llama 3.2 Vision's text model on its own (MllamaTextModel and MllamaForCausalLM in models/mllama/modeling_mllama.py,
// transformers 5.24.0): mllama_common's decoder, whose cross_attention_layers read cross_attention_states, here an
// input as wide as the text model; `lm_head` (vocab_size rows, 8 fewer than the embedding, never tied) under the
// causal LM, with the decoder as `model`. MllamaTextConfig's defaults.
#include <fmt/format.h>

#include "families/mllama_common.hpp"

namespace neurarch::families {
namespace mllama_text_model_impl {
namespace {

using namespace blocks;

// The cross-attention states of one image as MllamaVisionConfig's defaults encode it: max_num_tiles 4 tiles of
// (448 / 14)^2 patches plus the class token.
constexpr std::int64_t kImageTokens = 4 * (32 * 32 + 1);

Value build(const BuildInput& in, GraphBuilder& b) {
  mllama::Text t = mllama::text(in.config);
  const bool with_head = in.head != Head::Base;
  Value out;
  {
    std::optional<graph::Nested> model;
    if (with_head) model.emplace(b, graph::Nest{.module = "model", .label = ""});
    mllama::cross_attend(
        t, b.input({kImageTokens, t.spec.hidden}, "encoder_hidden_states", "cross_attention_states"));
    b.note(fmt::format("cross-attention states of one image ({} tokens) read by {} cross-attention layers",
                       kImageTokens, t.cross_layers.size()));
    const BuildInput base{in.config, "MllamaTextModel", Head::Base, in.requested_seq, std::nullopt};
    out = decoder::build_decoder(base, b, t.spec);
    mllama::finish_text(b, out, t);
  }
  if (with_head)
    out = lm_head(b, out, "LM_Head", {.module = Scope("lm_head"), .hidden = t.spec.hidden, .vocab = t.vocab});
  return out;
}

}  // namespace
}  // namespace mllama_text_model_impl

const Family& mllama_text_model_family() {
  static const Family family{"mllama_text_model", "models/mllama/modeling_mllama.py",
                             {{"MllamaTextModel", Head::Base}, {"MllamaForCausalLM", Head::CausalLM}}, mllama_text_model_impl::build};
  return family;
}

}  // namespace neurarch::families
