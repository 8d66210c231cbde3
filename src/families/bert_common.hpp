#pragma once
// The BERT / RoBERTa encoder that a dozen model types share with other module names: token,
// token-type and learned position embeddings, a stack of self-attention + FFN layers (BERT's
// post-norm, or one of three pre-norm spellings), an optional tanh pooler, and BERT-style
// (cls.predictions) or RoBERTa-style (lm_head, classifier.dense/out_proj) heads.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "families/family.hpp"

namespace neurarch::families::bert {

/// The config class's defaults for keys absent from config.json.
struct ConfigDefaults {
  std::int64_t vocab = 30522;
  std::int64_t hidden = 768;
  std::int64_t layers = 12;
  std::int64_t heads = 12;
  std::int64_t intermediate = 3072;
  std::int64_t max_positions = 512;
  std::int64_t type_vocab = 2;
  std::int64_t pad = 0;
};

/// Pre-norm clones put their norms before each sublayer and one after the stack; each spells
/// the three modules differently.
struct PreNormNames {
  std::string attention;  ///< under the attention module: "LayerNorm", "ln", "self_attn_layer_norm"
  std::string ffn;        ///< under the layer: "intermediate.LayerNorm", "ln", "LayerNorm"
  std::string final;      ///< under the model root: "LayerNorm", "encoder.ln", "encoder.LayerNorm"
};

enum class HeadStyle {
  Bert,     ///< cls.predictions.*, a pooled classifier, ForPreTraining's seq_relationship
  Roberta,  ///< lm_head.*, classifier.dense + classifier.out_proj on the first token, no pooler
};

struct Layout {
  std::string_view prefix;  ///< the base model's attribute in head classes: "bert", "roberta"
  ConfigDefaults defaults;
  HeadStyle heads = HeadStyle::Bert;
  bool roberta_positions = false;  ///< position ids start at pad_token_id + 1
  bool embedding_norm = true;      ///< Megatron and XLM-R XL normalise inside the layers only
  std::optional<PreNormNames> pre_norm;
  /// BERT's clones build cross-attention with absolute positions whatever the config says;
  /// Megatron passes the config through, so relative tables appear there too.
  bool cross_attention_follows_config = false;
  bool task_type_embedding = false;  ///< ERNIE's use_task_id
};

graph::Value build(const BuildInput& in, graph::GraphBuilder& b, const Layout& layout);

}  // namespace neurarch::families::bert
