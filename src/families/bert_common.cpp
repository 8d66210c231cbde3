#include "families/bert_common.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace neurarch::families::bert {
namespace {

using namespace blocks;

struct Dims {
  std::int64_t hidden = 0;
  std::int64_t heads = 0;
  std::int64_t intermediate = 0;
  std::int64_t max_positions = 0;
  std::string activation;
  bool causal = false;
  bool relative = false;  ///< position_embedding_type relative_key / relative_key_query
};

class LayerBuilder {
 public:
  LayerBuilder(GraphBuilder& b, const Layout& layout, const Dims& d, std::int64_t i)
      : b_(b), layout_(layout), d_(d), names_{i} {}

  /// Self- or cross-attention under `module` (BertAttention: self.* + output.*), with the
  /// residual and the norm where the family keeps it.
  Value attention_sublayer(const Value& x, const Scope& module, const std::string& name, bool relative) {
    ++k_;
    Value h = x;
    if (layout_.pre_norm) h = norm(b_, h, names_.norm(k_, NormKind::LayerNorm), {module / layout_.pre_norm->attention});
    Scope self = module / "self";
    AttentionSpec spec{.hidden = d_.hidden, .heads = d_.heads, .causal = d_.causal, .module = module,
                       .q = self / "query", .k = self / "key", .v = self / "value", .o = module / "output" / "dense"};
    auto a = attention(b_, h, name, spec);
    // Relative scores read a table of every distance -(max-1)..(max-1), one row per head dim.
    if (relative) b_.parameter(a, self("distance_embedding.weight"), {2 * d_.max_positions - 1, d_.hidden / d_.heads});
    auto sum = add(b_, a, x, names_.add(k_));
    if (layout_.pre_norm) return sum;
    return norm(b_, sum, names_.norm(k_, NormKind::LayerNorm), {module / "output" / "LayerNorm"});
  }

  /// intermediate.dense -> act -> output.dense, residual, norm.
  Value ffn_sublayer(const Value& x, const Scope& layer) {
    ++k_;
    Value h = x;
    if (layout_.pre_norm) h = norm(b_, h, names_.norm(k_, NormKind::LayerNorm), {layer / layout_.pre_norm->ffn});
    FeedForwardSpec spec{.hidden = d_.hidden, .intermediate = d_.intermediate, .activation = d_.activation,
                         .module = layer, .up = layer / "intermediate" / "dense", .down = layer / "output" / "dense"};
    auto f = feed_forward(b_, h, names_.ffn(), spec);
    auto sum = add(b_, f, x, names_.add(k_));
    if (layout_.pre_norm) return sum;
    return norm(b_, sum, names_.norm(k_, NormKind::LayerNorm), {layer / "output" / "LayerNorm"});
  }

 private:
  GraphBuilder& b_;
  const Layout& layout_;
  const Dims& d_;
  BlockNames names_;
  int k_ = 0;
};

/// cls.predictions (BERT) or lm_head (RoBERTa): dense + act + LayerNorm, then the decoder whose
/// bias is the head's own `bias` parameter under a second name.
Value mlm_head(const BuildInput& in, GraphBuilder& b, const Value& x, const Layout& layout, const Dims& d,
               std::int64_t vocab, const std::string& word_embeddings) {
  const bool roberta = layout.heads == HeadStyle::Roberta;
  Scope head = roberta ? Scope("lm_head") : Scope("cls") / "predictions";
  // RobertaLMHead hard-codes gelu; BERT's transform follows hidden_act.
  auto h = roberta ? dense(b, x, "MLM_Transform", head / "dense", d.hidden, d.hidden, true, "gelu")
                   : dense(b, x, "MLM_Transform", head / "transform" / "dense", d.hidden, d.hidden, true, d.activation);
  h = norm(b, h, "MLM_LayerNorm", {roberta ? head / "layer_norm" : head / "transform" / "LayerNorm"});
  const bool tie = in.config.flag({"tie_word_embeddings"}, true);
  LmHeadSpec spec{.module = head / "decoder", .hidden = d.hidden, .vocab = vocab, .bias = true,
                  .tied_weight = tie ? word_embeddings : std::string(), .tied_bias = head("bias"),
                  .extra_bias = head("bias")};
  return lm_head(b, h, "LM_Head", spec);
}

Value qa_head(GraphBuilder& b, const Value& x, std::int64_t hidden, std::int64_t labels) {
  auto out = classifier(b, x, "QA_Outputs", Scope("qa_outputs"), hidden, labels, true);
  if (labels != 2)
    b.fail(out, fmt::format("the QA head splits its {} outputs into start and end logits; it needs num_labels = 2",
                            labels));
  return out;
}

}  // namespace

Value build(const BuildInput& in, GraphBuilder& b, const Layout& layout) {
  const Config& c = in.config;
  const ConfigDefaults& def = layout.defaults;
  const std::int64_t vocab = c.dim({"vocab_size"}, def.vocab);
  const std::int64_t layers = c.dim({"num_hidden_layers"}, def.layers);
  const std::int64_t type_vocab = c.dim({"type_vocab_size"}, def.type_vocab);
  const std::int64_t pad = c.integer({"pad_token_id"}, def.pad);
  const std::string position_type = c.text({"position_embedding_type"}, "absolute");
  const bool is_decoder = c.flag({"is_decoder"}, false);
  const bool cross = c.flag({"add_cross_attention"}, false);
  Dims d{.hidden = c.dim({"hidden_size"}, def.hidden),
         .heads = c.dim({"num_attention_heads"}, def.heads),
         .intermediate = c.dim({"intermediate_size"}, def.intermediate),
         .max_positions = c.dim({"max_position_embeddings"}, def.max_positions),
         .activation = c.text({"hidden_act"}, "gelu"),
         .causal = is_decoder,
         .relative = position_type == "relative_key" || position_type == "relative_key_query"};

  // RoBERTa numbers positions from pad_token_id + 1, so that many rows never hold a token; with
  // relative scores the absolute table is not read at all.
  const std::int64_t offset = layout.roberta_positions && !d.relative ? std::max<std::int64_t>(pad + 1, 0) : 0;
  const std::int64_t seq = in.sequence_length(std::max<std::int64_t>(d.max_positions - offset, 1));

  Scope root = in.head == Head::Base ? Scope() : Scope(std::string(layout.prefix));
  Scope emb = root / "embeddings";
  auto x = b.input({seq}, "tokens");
  x = token_embedding(b, x, "Token_Embedding", emb / "word_embeddings", vocab, d.hidden);
  if (pad >= vocab) b.fail(x, fmt::format("pad_token_id {} is not a row of the {}-token vocabulary", pad, vocab));
  const std::string word_embeddings = (emb / "word_embeddings")("weight");
  x = added_embedding(b, x, "Token_Type_Embedding", emb / "token_type_embeddings", type_vocab, d.hidden);
  x = learned_positions(b, x, "Position_Embedding", emb / "position_embeddings", d.max_positions, d.hidden, offset);
  if (layout.roberta_positions && pad >= d.max_positions)
    b.fail(x, fmt::format("pad_token_id {} is the padding row of the position table, which has {} rows", pad,
                          d.max_positions));
  if (d.relative)
    b.note(fmt::format("position_embedding_type={}: the absolute position table is stored but not added",
                       position_type));
  if (layout.task_type_embedding && c.flag({"use_task_id"}, false))
    x = added_embedding(b, x, "Task_Type_Embedding", emb / "task_type_embeddings",
                        c.dim({"task_type_vocab_size"}, 3), d.hidden);
  if (layout.embedding_norm) x = norm(b, x, "Embedding_LayerNorm", {emb / "LayerNorm"});

  for (std::int64_t i = 0; i < layers; ++i) {
    b.set_block(static_cast<int>(i));
    Scope l = root / "encoder" / "layer" / i;
    LayerBuilder layer(b, layout, d, i);
    x = layer.attention_sublayer(x, l / "attention", fmt::format("Attention_{}", i), d.relative);
    if (cross) {
      x = layer.attention_sublayer(x, l / "crossattention", fmt::format("Cross_Attention_{}", i),
                                   d.relative && layout.cross_attention_follows_config);
      if (!is_decoder) b.fail(x, "add_cross_attention needs is_decoder: the reference refuses to build the layer");
    }
    x = layer.ffn_sublayer(x, l);
  }
  b.set_block(-1);
  if (layout.pre_norm) x = norm(b, x, "Final_LayerNorm", {root / layout.pre_norm->final});

  const bool bert_heads = layout.heads == HeadStyle::Bert;
  const bool pooled = in.head == Head::Base ||
                      (bert_heads && (in.head == Head::SequenceClassification || in.head == Head::PreTraining));
  std::optional<Value> pool;
  if (pooled) pool = pooler(b, x, "Pooler", root / "pooler" / "dense", d.hidden);

  switch (in.head) {
    case Head::Base:
      return x;
    case Head::PreTraining:
      classifier(b, *pool, "NSP_Head", Scope("cls") / "seq_relationship", d.hidden, 2, true);
      return mlm_head(in, b, x, layout, d, vocab, word_embeddings);
    case Head::CausalLM:
    case Head::MaskedLM:
      return mlm_head(in, b, x, layout, d, vocab, word_embeddings);
    case Head::SequenceClassification:
      if (bert_heads) return classifier(b, *pool, "Classifier", Scope("classifier"), d.hidden, in.num_labels(), true);
      // RoBERTa's classification head pools the first token itself, through its own dense + tanh.
      x = pooler(b, x, "Classifier_Dense", Scope("classifier") / "dense", d.hidden);
      return classifier(b, x, "Classifier", Scope("classifier") / "out_proj", d.hidden, in.num_labels(), true);
    case Head::TokenClassification:
      return classifier(b, x, "Classifier", Scope("classifier"), d.hidden, in.num_labels(), true);
    case Head::QuestionAnswering:
      return qa_head(b, x, d.hidden, in.num_labels());
    default:
      return x;
  }
}

}  // namespace neurarch::families::bert
