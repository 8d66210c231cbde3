#pragma once
// The BERT / RoBERTa encoder that many model types share under other module names: token,
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
  std::string_view activation = "gelu";
  double hidden_dropout = 0.1;     ///< hidden_dropout_prob
  double attention_dropout = 0.1;  ///< attention_probs_dropout_prob
  bool is_decoder = false;         ///< BLIP's text config defaults to a decoder
  /// ELECTRA-style factorised embeddings: embedding_size's default; nullopt = no such key; 0 = hidden_size
  /// (RoFormer's None).
  std::optional<std::int64_t> embedding_size;
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
  Roberta,  ///< lm_head.*, classifier.dense + tanh + classifier.out_proj on the first token
  /// cls.predictions.*, and classifier.dense + hidden_act + out_proj on the first token
  /// (BigBird, YOSO, Nystromformer, MRA)
  BertWithFirstTokenClassifier,
};

/// Which classes build the base model with its pooler (add_pooling_layer).
enum class PoolerUse {
  PooledHeads,  ///< the base class, sequence classification and pre-training (BERT)
  BaseOnly,     ///< only the base class (RoBERTa: its classifier pools by itself)
  Always,       ///< every class (LayoutLM predates add_pooling_layer)
  AllButQuestionAnswering,  ///< BigBird: only its QA class passes add_pooling_layer=False
  AllButLanguageModels,     ///< TAPAS: every class but the MLM one
  Never,        ///< the model has no pooler
};

/// The embedding output before the norm, with the module it lives under; families add extra
/// tables here (ERNIE's task types, LayoutLM's box coordinates).
using ExtraEmbeddings = graph::Value (*)(const BuildInput& in, graph::GraphBuilder& b, const graph::Value& x,
                                         const graph::Scope& embeddings);
/// A step after each FFN's residual sum, before any post-norm (X-MOD's language adapters).
using FfnExtras = graph::Value (*)(const BuildInput& in, graph::GraphBuilder& b, const graph::Value& x,
                                   const graph::Scope& layer, std::int64_t index);
/// Tensors and checks a family adds to each self-attention node (`self` is attention.self).
using AttentionExtras = void (*)(const BuildInput& in, graph::GraphBuilder& b, const graph::Value& attention,
                                 const graph::Scope& self, std::int64_t heads);

struct Layout {
  // Names and heads.
  std::string_view prefix;       ///< the base model's attribute in head classes: "bert", "roberta"
  bool always_prefixed = false;  ///< DPR: even the class built alone keeps its encoder under the prefix
  ConfigDefaults defaults;
  HeadStyle heads = HeadStyle::Bert;
  PoolerUse pooler = PoolerUse::PooledHeads;
  std::string_view pooler_module = "pooler.dense";  ///< BigBird's pooler is a bare Linear "pooler"
  bool qa_forces_two_labels = false;  ///< YOSO-style QA classes overwrite config.num_labels with 2

  // Embeddings.
  bool token_types = true;          ///< BertGeneration has no token-type table
  bool absolute_positions = true;   ///< NEZHA has no position table, only functional relative encodings
  bool roberta_positions = false;   ///< position ids start at pad_token_id + 1
  /// YOSO, Nystromformer and MRA keep max_position_embeddings + 2 rows and number from 2.
  std::int64_t position_start = 0;
  bool position_ids_buffer = false;  ///< MRA saves embeddings.position_ids (int64)
  bool position_type_key = true;     ///< embeddings read position_embedding_type (YOSO always adds)
  bool embedding_norm = true;        ///< Megatron and XLM-R XL normalise inside the layers only
  /// false: the position table exists only when position_embedding_type is "absolute" (ESM).
  bool position_table_always = true;
  /// position_embedding_type "rotary" rotates q and k in every attention, each keeping a persistent
  /// rotary_embeddings.inv_freq (ESM).
  bool rotary_positions = false;
  std::string_view embedding_size_key = "embedding_size";  ///< RemBERT: input_embedding_size
  /// The Linear from the embedding width to hidden_size, under the model root (RemBERT's sits in the encoder).
  std::string_view embedding_projection = "embeddings_project";
  bool always_project = false;  ///< RemBERT projects even when the widths agree

  // Layers.
  bool relative_attention = true;       ///< attention reads position_embedding_type (BigBird's does not)
  bool qkv_bias_from_use_bias = false;  ///< BigBird: use_bias switches the q/k/v biases
  std::optional<PreNormNames> pre_norm;
  bool cross_attention = true;  ///< YOSO-style layers store add_cross_attention but build none
  /// BERT's clones build cross-attention with absolute positions whatever the config says;
  /// Megatron passes the config through, so relative tables appear there too.
  bool cross_attention_follows_config = false;
  /// BLIP's text model: `crossattention` exists whenever is_decoder (add_cross_attention is not read) and its
  /// keys and values project encoder_hidden_size-wide states; it runs only when the caller feeds them.
  bool cross_attention_when_decoder = false;
  bool sdpa = true;  ///< false: the reference has only the eager attention class (BLIP's text model)
  /// false: the LM decoder keeps its own weight whatever tie_word_embeddings says (BLIP's text decoder, nested in
  /// a composite model whose tie_weights never reaches it).
  bool tie_lm_decoder = true;

  // Family-specific steps.
  /// Runs on the word embeddings alone, before token types and positions (RoCBert's glyph and
  /// pronunciation channels).
  ExtraEmbeddings word_extras = nullptr;
  ExtraEmbeddings extra_embeddings = nullptr;
  /// Runs after the embedding norm, before the layers, with the model root as scope; may lengthen the
  /// sequence (LayoutLMv3 appends the image's CLS and patch tokens and sets up score biases).
  ExtraEmbeddings before_layers = nullptr;
  AttentionExtras attention_extras = nullptr;
  FfnExtras ffn_extras = nullptr;
};

/// The base model up to the last hidden state, before pooler and heads.
struct Trunk {
  graph::Value x;               ///< [seq, hidden]
  graph::Scope root;            ///< "" for the base class, else the prefix
  std::int64_t seq = 0;         ///< input_ids' length (x is longer when before_layers appends tokens)
  std::int64_t hidden = 0;
  std::int64_t intermediate = 0;
  std::int64_t embedding = 0;   ///< width of the embedding tables (hidden unless factorised)
  std::int64_t vocab = 0;
  std::string activation;       ///< hidden_act
  std::string word_embeddings;  ///< the word embedding tensor, which LM heads tie to
};

/// What a composite model hands a trunk it nests (BLIP's text encoder and decoder); the defaults are a
/// model built alone.
struct Feed {
  std::string input_name;                      ///< forward()'s argument for the token ids; "" = input_ids
  std::optional<graph::Value> encoder_states;  ///< what cross-attention reads; absent: nothing to attend to
  std::optional<bool> causal;                  ///< forward()'s is_decoder, when the caller passes its own
  /// States concatenated in front of the embedded tokens before the first layer (GIT's projected image tokens):
  /// the layers run over prefix + tokens, the position table numbers the tokens only.
  std::optional<graph::Value> prefix;
};

Trunk trunk(const BuildInput& in, graph::GraphBuilder& b, const Layout& layout, const Feed& feed = {});

/// The tanh pooler when `layout.pooler` gives this class one.
std::optional<graph::Value> pooler(const BuildInput& in, graph::GraphBuilder& b, const Layout& layout, const Trunk& t);

/// The pooler, then the class's head.
graph::Value heads(const BuildInput& in, graph::GraphBuilder& b, const Layout& layout, const Trunk& t);

/// The QA head (qa_outputs): the reference splits its outputs into start and end logits.
graph::Value qa_head(graph::GraphBuilder& b, const graph::Value& x, std::int64_t hidden, std::int64_t labels);

/// RobertaModel's layout (models/roberta/modeling_roberta.py): the base model under `prefix` in head classes,
/// `defaults` with RoBERTa's pad_token_id 1, positions numbered from pad + 1, lm_head / classifier heads, and
/// the pooler on the base class only. RoBERTa's copies start from it and set what they change.
Layout roberta_layout(std::string_view prefix, ConfigDefaults defaults = {});

/// RoBERTa's graph under "roberta" with BertConfig's defaults (30522 tokens): the renamed copies that change
/// nothing else, the reference's `class CamembertModel(RobertaModel)` (CamemBERT, XLM-RoBERTa).
graph::Value roberta_copy(const BuildInput& in, graph::GraphBuilder& b);

inline graph::Value build(const BuildInput& in, graph::GraphBuilder& b, const Layout& layout) {
  return heads(in, b, layout, trunk(in, b, layout));
}

}  // namespace neurarch::families::bert
