#pragma once
// GPT-2's model (gpt2.cpp), which ImageGPT repeats with another norm and other defaults.
#include <optional>
#include <string>

#include "families/family.hpp"

namespace neurarch::families::gpt2 {

/// What a copy of GPT-2 changes without changing the layer's structure (GPT-2's own values by default).
struct Variant {
  /// The config class's defaults for the keys GPT-2 reads.
  std::int64_t vocab = 50257, positions = 1024, hidden = 768, layers = 12, heads = 12;
  blocks::NormKind norm = blocks::NormKind::LayerNorm;  ///< ln_1, ln_2, ln_cross_attn, ln_f
  bool norm_bias = true;
  /// The norm reads its weight through `.data`, so autograd never gives it a gradient (ImageGPT).
  bool norm_weight_frozen = false;
  std::string activation = "gelu_new";  ///< activation_function's default
  bool tie_word_embeddings = true;      ///< the config class's default
  std::int64_t vocab_not_predicted = 0;  ///< lm_head predicts vocab_size minus this many tokens
};

/// What a model that wraps GPT2Model feeds it instead of token ids (Decision Transformer's inputs_embeds).
struct Embedded {
  blocks::Value states;         ///< [seq, hidden]; wte is stored but not read
  bool zero_positions = false;  ///< position_ids all zero: every token adds wpe's first row, whatever its place
};

/// GPT2Model under `root` (wte, wpe, h, ln_f) up to the final norm's output: from token ids, or from states the
/// caller embedded itself.
blocks::Value model(const BuildInput& in, blocks::GraphBuilder& b, const Variant& v, const blocks::Scope& root,
                    const std::optional<Embedded>& embedded = std::nullopt);

/// GPT2Model and its heads (CausalLM: lm_head; SequenceClassification: score of the last token;
/// TokenClassification, QuestionAnswering; ImageClassification: score of the mean state, no bias).
blocks::Value build(const BuildInput& in, blocks::GraphBuilder& b, const Variant& v);

}  // namespace neurarch::families::gpt2
