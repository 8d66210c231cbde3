#include "families/bert_common.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "blocks/seq2seq.hpp"
#include "families/decoder_feed.hpp"

namespace neurarch::families::bert {
namespace bert_common_impl {
namespace {

using namespace blocks;

struct Dims {
  std::int64_t hidden = 0;
  std::int64_t heads = 0;
  std::int64_t intermediate = 0;
  std::int64_t max_positions = 0;
  std::string activation;
  bool causal = false;
  bool qkv_bias = true;
  bool relative = false;  ///< position_embedding_type relative_key / relative_key_query
  bool rotary = false;    ///< position_embedding_type rotary, where the layout knows it
  double hidden_dropout = 0.1;     ///< after embeddings, attention output and FFN output
  double attention_dropout = 0.1;  ///< on the attention probabilities
  bool sdpa = true;
  std::int64_t encoder_width = 0;  ///< what cross-attention's keys and values read
};

class LayerBuilder {
 public:
  LayerBuilder(const BuildInput& in, GraphBuilder& b, const Layout& layout, const Dims& d, std::int64_t i)
      : in_(in), b_(b), layout_(layout), d_(d), names_{i} {}

  /// Self- or cross-attention under `module` (BertAttention: self.* + output.*), with the
  /// residual and the norm where the family keeps it; `memory`: the states cross-attention reads.
  Value attention_sublayer(const Value& x, const Scope& module, const std::string& name, bool relative,
                           const std::optional<Value>& memory = std::nullopt) {
    ++k_;
    Value h = x;
    if (layout_.pre_norm) h = norm(b_, h, names_.norm(k_, NormKind::LayerNorm), {module / layout_.pre_norm->attention});
    Scope self = module / "self";
    AttentionSpec spec{.hidden = d_.hidden, .heads = d_.heads, .causal = d_.causal, .module = module,
                       .q = self / "query", .k = self / "key", .v = self / "value", .o = module / "output" / "dense",
                       .qkv_bias = d_.qkv_bias, .dropout = d_.attention_dropout,
                       .output_dropout = d_.hidden_dropout, .rotary = d_.rotary};
    auto a = memory ? cross_attention(b_, h, *memory, name, spec, d_.encoder_width) : attention(b_, h, name, spec);
    b_.at(a).attention->sdpa = d_.sdpa;
    // Relative scores read a table of every distance -(max-1)..(max-1), one row per head dim.
    if (relative) b_.parameter(a, self("distance_embedding.weight"), {2 * d_.max_positions - 1, d_.hidden / d_.heads}, graph::TensorRole::Embedding);
    if (layout_.attention_extras) layout_.attention_extras(in_, b_, a, self, d_.heads);
    auto sum = add(b_, a, x, names_.add(k_));
    if (layout_.pre_norm) return sum;
    return norm(b_, sum, names_.norm(k_, NormKind::LayerNorm), {module / "output" / "LayerNorm"});
  }

  /// Cross-attention weights a layer stores but does not run without encoder states. They go on the
  /// node that ends the self-attention sublayer, which claims no compute for them; idle, they get no gradient.
  void stored_cross_attention(const Value& owner, const Scope& module) {
    Scope self = module / "self";
    const auto idle = graph::Operand::Idle;
    linear_tensors(b_, owner, self / "query", d_.hidden, d_.hidden, d_.qkv_bias, idle);
    linear_tensors(b_, owner, self / "key", d_.encoder_width, d_.hidden, d_.qkv_bias, idle);
    linear_tensors(b_, owner, self / "value", d_.encoder_width, d_.hidden, d_.qkv_bias, idle);
    linear_tensors(b_, owner, module / "output" / "dense", d_.hidden, d_.hidden, true, idle);
    b_.parameter(owner, (module / "output" / "LayerNorm")("weight"), {d_.hidden}, graph::TensorRole::Norm, idle);
    b_.parameter(owner, (module / "output" / "LayerNorm")("bias"), {d_.hidden}, graph::TensorRole::Bias, idle);
  }

  /// intermediate.dense -> act -> output.dense, residual, norm.
  Value ffn_sublayer(const Value& x, const Scope& layer) {
    ++k_;
    Value h = x;
    if (layout_.pre_norm) h = norm(b_, h, names_.norm(k_, NormKind::LayerNorm), {layer / layout_.pre_norm->ffn});
    FeedForwardSpec spec{.hidden = d_.hidden, .intermediate = d_.intermediate, .activation = d_.activation,
                         .module = layer, .up = layer / "intermediate" / "dense", .down = layer / "output" / "dense",
                         .output_dropout = d_.hidden_dropout};
    auto f = feed_forward(b_, h, names_.ffn(), spec);
    auto sum = add(b_, f, x, names_.add(k_));
    if (layout_.ffn_extras) sum = layout_.ffn_extras(in_, b_, sum, layer, names_.i);
    if (layout_.pre_norm) return sum;
    return norm(b_, sum, names_.norm(k_, NormKind::LayerNorm), {layer / "output" / "LayerNorm"});
  }

 private:
  const BuildInput& in_;
  GraphBuilder& b_;
  const Layout& layout_;
  const Dims& d_;
  BlockNames names_;
  int k_ = 0;
};

/// cls.predictions (BERT) or lm_head (RoBERTa): dense + act + LayerNorm, then the decoder whose
/// bias is the head's own `bias` parameter under a second name.
Value mlm_head(const BuildInput& in, GraphBuilder& b, const Layout& layout, const Trunk& t) {
  const bool roberta = layout.heads == HeadStyle::Roberta;
  Scope head = roberta ? Scope("lm_head") : Scope("cls") / "predictions";
  // RobertaLMHead hard-codes gelu; BERT's transform follows hidden_act.
  Scope transform = roberta ? head / "dense" : head / "transform" / "dense";
  // The transform maps back to the embedding width the tied decoder reads (RoFormer's embedding_size).
  auto h = dense(b, t.x, "MLM_Transform", transform, t.hidden, t.embedding, true, roberta ? "gelu" : t.activation);
  h = norm(b, h, "MLM_LayerNorm", {roberta ? head / "layer_norm" : head / "transform" / "LayerNorm"});
  const bool tie = layout.tie_lm_decoder && in.config.flag({"tie_word_embeddings"}, true);
  LmHeadSpec spec{.module = head / "decoder", .hidden = t.embedding, .vocab = t.vocab, .bias = true,
                  .tied_weight = tie ? t.word_embeddings : std::string(), .tied_bias = head("bias"),
                  .extra_bias = head("bias")};
  return lm_head(b, h, "LM_Head", spec);
}

bool has_pooler(PoolerUse use, Head head) {
  switch (use) {
    case PoolerUse::PooledHeads:
      return head == Head::Base || head == Head::SequenceClassification || head == Head::PreTraining;
    case PoolerUse::BaseOnly:
      return head == Head::Base;
    case PoolerUse::Always:
      return true;
    case PoolerUse::AllButQuestionAnswering:
      return head != Head::QuestionAnswering;
    case PoolerUse::AllButLanguageModels:
      return head != Head::MaskedLM && head != Head::CausalLM;
    case PoolerUse::Never:
      return false;
  }
  return false;
}

}  // namespace
}  // namespace bert_common_impl
using namespace bert_common_impl;

Trunk trunk(const BuildInput& in, GraphBuilder& b, const Layout& layout, const Feed& feed) {
  const Config& c = in.config;
  const ConfigDefaults& def = layout.defaults;
  // NEZHA (no position table) and YOSO (always adds it) never read the key.
  const std::string position_type = layout.absolute_positions && layout.position_type_key
                                        ? c.text({"position_embedding_type"}, "absolute")
                                        : std::string("absolute");
  const bool relative_type = position_type == "relative_key" || position_type == "relative_key_query";
  const bool is_decoder = c.flag({"is_decoder"}, def.is_decoder);
  const bool cross = layout.cross_attention_when_decoder
                         ? is_decoder
                         : layout.cross_attention && c.flag({"add_cross_attention"}, false);
  bert_common_impl::Dims d{.hidden = c.dim({"hidden_size"}, def.hidden),
         .heads = c.dim({"num_attention_heads"}, def.heads),
         .intermediate = c.dim({"intermediate_size"}, def.intermediate),
         .max_positions = c.dim({"max_position_embeddings"}, def.max_positions),
         .activation = c.text({"hidden_act"}, std::string(def.activation)),
         .causal = feed.causal.value_or(is_decoder),
         .qkv_bias = !layout.qkv_bias_from_use_bias || c.flag({"use_bias"}, true),
         .relative = layout.relative_attention && relative_type,
         .rotary = layout.rotary_positions && position_type == "rotary",
         .hidden_dropout = c.number({"hidden_dropout_prob"}, def.hidden_dropout),
         .attention_dropout = c.number({"attention_probs_dropout_prob"}, def.attention_dropout),
         .sdpa = layout.sdpa};
  d.encoder_width = layout.cross_attention_when_decoder ? c.dim({"encoder_hidden_size"}, d.hidden) : d.hidden;
  Trunk t{.hidden = d.hidden,
          .intermediate = d.intermediate,
          .vocab = c.dim({"vocab_size"}, def.vocab),
          .activation = d.activation};
  t.embedding = !def.embedding_size      ? d.hidden
                : *def.embedding_size > 0 ? c.dim({layout.embedding_size_key}, *def.embedding_size)
                                          : c.dim({layout.embedding_size_key}, d.hidden);
  const std::int64_t layers = c.dim({"num_hidden_layers"}, def.layers);
  const std::int64_t pad = c.integer({"pad_token_id"}, def.pad);

  // RoBERTa numbers positions from pad_token_id + 1 and the YOSO family from 2, so that many rows
  // never hold a token; without absolute positions the table is not read at all.
  const std::int64_t rows = d.max_positions + layout.position_start;
  const std::int64_t offset = position_type != "absolute" ? 0
                              : layout.roberta_positions  ? std::max<std::int64_t>(pad + 1, 0)
                                                          : layout.position_start;
  t.seq = in.sequence_length(std::max<std::int64_t>(rows - offset, 1));

  t.root = in.head == Head::Base && !layout.always_prefixed ? Scope() : Scope(std::string(layout.prefix));
  Scope emb = t.root / "embeddings";
  const DecoderFeed* composite = decoder_feed(b);
  auto x = b.input({t.seq}, "tokens", feed.input_name.empty() && composite ? composite->input_name : feed.input_name);
  x = token_embedding(b, x, "Token_Embedding", emb / "word_embeddings", t.vocab, t.embedding);
  if (pad >= t.vocab) b.fail(x, fmt::format("pad_token_id {} is not a row of the {}-token vocabulary", pad, t.vocab));
  t.word_embeddings = (emb / "word_embeddings")("weight");
  if (layout.word_extras) x = layout.word_extras(in, b, x, emb);
  if (layout.token_types) {
    x = added_embedding(b, x, "Token_Type_Embedding", emb / "token_type_embeddings",
                        c.dim({"type_vocab_size"}, def.type_vocab), t.embedding);
  }
  const bool position_table = layout.absolute_positions && (layout.position_table_always || position_type == "absolute");
  if (position_table) {
    x = learned_positions(b, x, "Position_Embedding", emb / "position_embeddings", rows, t.embedding, offset);
    if (layout.position_ids_buffer) b.buffer(x, emb("position_ids"), {1, d.max_positions}, DType::I64);
    if (layout.roberta_positions && pad >= d.max_positions)
      b.fail(x, fmt::format("pad_token_id {} is the padding row of the position table, which has {} rows", pad,
                            d.max_positions));
    if (position_type != "absolute")
      b.note(fmt::format("position_embedding_type={}: the absolute position table is stored but not added",
                         position_type));
  } else if (!layout.absolute_positions && t.seq > d.max_positions) {
    b.fail(x, fmt::format("requested sequence {} exceeds the {} positions of the relative position encodings", t.seq,
                          d.max_positions));
  }
  if (layout.extra_embeddings) x = layout.extra_embeddings(in, b, x, emb);
  if (layout.embedding_norm) {
    x = norm(b, x, "Embedding_LayerNorm", {emb / "LayerNorm"});
    b.at(x).dropout = d.hidden_dropout;
  }
  // ELECTRA's generator embeds in fewer dimensions than it attends in.
  if (t.embedding != d.hidden || layout.always_project)
    x = dense(b, x, "Embedding_Projection", t.root / layout.embedding_projection, t.embedding,
              d.hidden, true);
  // Rotary positions: one rotary_embeddings module beside the embeddings (transformers 5; 4.x kept one per
  // attention) holds a persistent frequency per rotated channel pair (arange(0, head_dim, 2)).
  if (d.rotary) b.buffer(x, (t.root / "rotary_embeddings")("inv_freq"), {(d.hidden / d.heads + 1) / 2}, DType::F32);
  if (layout.before_layers) x = layout.before_layers(in, b, x, t.root);

  if (feed.prefix) {
    // torch.cat keeps nothing for backward: a parameter-free join, modelled as a sum node of both inputs.
    const std::int64_t prefix_len = feed.prefix->shape.size() >= 2 ? feed.prefix->shape[feed.prefix->shape.size() - 2] : 1;
    auto joined = b.node(graph::NodeType::Add, "Concat_Prefix_Tokens", {prefix_len + t.seq, d.hidden}, {x, *feed.prefix});
    if (feed.prefix->shape.back() != d.hidden)
      b.fail(joined, fmt::format("{}-wide states cannot join {}-wide token embeddings", feed.prefix->shape.back(),
                                 d.hidden));
    x = joined;
  }
  // A decoder nested in a composite (EncoderDecoderModel) reads the composite's encoder states.
  std::optional<Value> memory = feed.encoder_states;
  if (!memory && composite) memory = composite->encoder_states;
  for (std::int64_t i = 0; i < layers; ++i) {
    b.set_block(static_cast<int>(i));
    Scope l = t.root / "encoder" / "layer" / i;
    bert_common_impl::LayerBuilder layer(in, b, layout, d, i);
    x = layer.attention_sublayer(x, l / "attention", fmt::format("Attention_{}", i), d.relative);
    if (cross && memory) {
      x = layer.attention_sublayer(x, l / "crossattention", fmt::format("Cross_Attention_{}", i),
                                   d.relative && layout.cross_attention_follows_config, memory);
    } else if (cross && layout.cross_attention_when_decoder) {
      layer.stored_cross_attention(x, l / "crossattention");
    } else if (cross) {
      x = layer.attention_sublayer(x, l / "crossattention", fmt::format("Cross_Attention_{}", i),
                                   d.relative && layout.cross_attention_follows_config);
      if (!is_decoder) b.fail(x, "add_cross_attention needs is_decoder: the reference refuses to build the layer");
    }
    x = layer.ffn_sublayer(x, l);
  }
  b.set_block(-1);
  if (layout.pre_norm) x = norm(b, x, "Final_LayerNorm", {t.root / layout.pre_norm->final});
  t.x = x;
  return t;
}

Value qa_head(GraphBuilder& b, const Value& x, std::int64_t hidden, std::int64_t labels) {
  auto out = classifier(b, x, "QA_Outputs", Scope("qa_outputs"), hidden, labels, true);
  if (labels != 2)
    b.fail(out, fmt::format("the QA head splits its {} outputs into start and end logits; it needs num_labels = 2",
                            labels));
  return out;
}

std::optional<Value> pooler(const BuildInput& in, GraphBuilder& b, const Layout& layout, const Trunk& t) {
  if (!bert_common_impl::has_pooler(layout.pooler, in.head)) return std::nullopt;
  return blocks::pooler(b, t.x, "Pooler", t.root / layout.pooler_module, t.hidden);
}

Value heads(const BuildInput& in, GraphBuilder& b, const Layout& layout, const Trunk& t) {
  std::optional<Value> pool = pooler(in, b, layout, t);

  switch (in.head) {
    case Head::PreTraining:
      classifier(b, *pool, "NSP_Head", Scope("cls") / "seq_relationship", t.hidden, 2, true);
      return bert_common_impl::mlm_head(in, b, layout, t);
    case Head::CausalLM:
    case Head::MaskedLM:
      return bert_common_impl::mlm_head(in, b, layout, t);
    case Head::SequenceClassification: {
      if (layout.heads == HeadStyle::Bert)
        return classifier(b, *pool, "Classifier", Scope("classifier"), t.hidden, in.num_labels(), true);
      // The classification head pools the first token itself, through its own dense + activation.
      const std::string act = layout.heads == HeadStyle::Roberta ? "tanh" : t.activation;
      auto first = blocks::pooler(b, t.x, "Classifier_Dense", Scope("classifier") / "dense", t.hidden, act);
      return classifier(b, first, "Classifier", Scope("classifier") / "out_proj", t.hidden, in.num_labels(), true);
    }
    case Head::TokenClassification:
      return classifier(b, t.x, "Classifier", Scope("classifier"), t.hidden, in.num_labels(), true);
    case Head::QuestionAnswering:
      return qa_head(b, t.x, t.hidden, layout.qa_forces_two_labels ? 2 : in.num_labels());
    default:
      return t.x;
  }
}

graph::Value roberta_copy(const BuildInput& in, graph::GraphBuilder& b) {
  static const Layout layout = roberta_layout("roberta");
  return build(in, b, layout);
}

Layout roberta_layout(std::string_view prefix, ConfigDefaults defaults) {
  defaults.pad = 1;
  return {.prefix = prefix,
          .defaults = defaults,
          .heads = HeadStyle::Roberta,
          .pooler = PoolerUse::BaseOnly,
          .roberta_positions = true};
}

}  // namespace neurarch::families::bert
