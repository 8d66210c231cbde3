// ProphetNet (models/prophetnet/modeling_prophetnet.py + configuration_prophetnet.py, transformers
// 4.47.1). The decoder adds ngram_embeddings to the positions of the next token to make `ngram`
// predicting streams, concatenated after the main stream: every decoder layer runs over
// (1 + ngram) x target tokens. Its self-attention (ProphetNetNgramSelfAttention) scores the main
// stream causally and each predicting stream against the main stream and itself, adding a bucketed
// relative-position bias that relative_pos_embeddings (a Linear to num_buckets x heads) computes
// from the hidden states. The LM head reads the predicting streams only. The attention is eager
// only. add_cross_attention (default true) decides whether decoder layers hold cross_attn.
#include "families/prophetnet_common.hpp"

#include <algorithm>
#include <optional>
#include <string>

#include <fmt/format.h>

#include "blocks/seq2seq.hpp"

namespace neurarch::families::prophetnet {
namespace prophetnet_common_impl {
namespace {

using namespace blocks;

struct StackDims {
  std::int64_t layers = 0, heads = 0, ffn = 0;
};

struct Dims {
  std::int64_t vocab = 0, hidden = 0, pad = 0, positions = 0, ngram = 0, buckets = 0;
  StackDims encoder, decoder;
  std::string activation;
  double dropout = 0, attention_dropout = 0, activation_dropout = 0;
  bool cross = true;
};

Dims read_dims(const Config& c) {
  Dims d;
  d.vocab = c.dim({"vocab_size"}, 30522);
  d.hidden = c.dim({"hidden_size"}, 1024);
  d.pad = c.integer({"pad_token_id"}, 0);
  d.positions = c.dim({"max_position_embeddings"}, 512);
  d.ngram = c.dim({"ngram"}, 2);
  d.buckets = c.dim({"num_buckets"}, 32);
  d.encoder = {c.dim({"num_encoder_layers"}, 12), c.dim({"num_encoder_attention_heads", "num_attention_heads"}, 16),
               c.dim({"encoder_ffn_dim"}, 4096)};
  d.decoder = {c.dim({"num_decoder_layers"}, 12), c.dim({"num_decoder_attention_heads"}, 16),
               c.dim({"decoder_ffn_dim"}, 4096)};
  d.activation = c.text({"activation_function"}, "gelu");
  d.dropout = c.number({"dropout"}, 0.1);
  d.attention_dropout = c.number({"attention_dropout"}, 0.1);
  d.activation_dropout = c.number({"activation_dropout"}, 0.1);
  d.cross = c.flag({"add_cross_attention"}, true);
  return d;
}

class Builder {
 public:
  Builder(GraphBuilder& b, const Dims& d, std::string class_name) : b_(b), d_(d), class_name_(std::move(class_name)) {}

  Value encoder(const Value& ids, const Scope& stack, const std::string& table) {
    auto x = embed(ids, "", stack, table);
    x = norm(b_, x, "Embedding_LayerNorm", {stack / "embeddings_layer_norm"});
    b_.at(x).dropout = d_.dropout;
    for (std::int64_t i = 0; i < d_.encoder.layers; ++i) {
      b_.set_block(static_cast<int>(i));
      const Scope l = stack / "layers" / i;
      const BlockNames n{i};
      auto h = attention(b_, x, n.attention(), attention_spec(l / "self_attn", d_.encoder.heads, false));
      b_.at(h).attention->sdpa = false;
      x = norm(b_, add(b_, h, x, n.add(1)), n.norm(1, NormKind::LayerNorm), {l / "self_attn_layer_norm"});
      x = feed_forward_sublayer(x, l, d_.encoder.ffn, "", n, 2);
    }
    b_.set_block(-1);
    return x;
  }

  /// `memory` absent: the decoder run alone (ForCausalLM), whose cross_attn weights are stored but unused.
  /// Returns the (1 + ngram) streams, main stream first.
  Value decoder(const Value& ids, const std::optional<Value>& memory, const Scope& stack, const std::string& table,
                int first_block) {
    const std::string p = "Decoder_";
    auto x = embed(ids, p, stack, table);
    const std::int64_t target = ids.shape.front();
    // The predicting streams are ngram_embeddings[k] plus the next position's embedding.
    const Scope ngram = stack / "ngram_embeddings";
    x = b_.node(graph::NodeType::Embedding, "Decoder_Ngram_Streams", {(1 + d_.ngram) * target, d_.hidden}, {x}, ngram);
    b_.parameter(x, ngram("weight"), {d_.ngram, d_.hidden}, graph::TensorRole::Embedding);
    x = norm(b_, x, "Decoder_Embedding_LayerNorm", {stack / "embeddings_layer_norm"});
    b_.at(x).dropout = d_.dropout;
    for (std::int64_t i = 0; i < d_.decoder.layers; ++i) {
      b_.set_block(first_block + static_cast<int>(i));
      const Scope l = stack / "layers" / i;
      const BlockNames n{i};
      x = ngram_self_attention(x, l / "self_attn", target, i);
      x = norm(b_, x, p + n.norm(1, NormKind::LayerNorm), {l / "self_attn_layer_norm"});
      if (d_.cross && memory) {
        auto h = cross_attention(b_, x, *memory, fmt::format("Decoder_Cross_Attention_{}", i),
                                 attention_spec(l / "cross_attn", d_.decoder.heads, false));
        b_.at(h).attention->sdpa = false;
        x = norm(b_, add(b_, h, x, p + n.add(2)), p + n.norm(2, NormKind::LayerNorm), {l / "cross_attn_layer_norm"});
      } else if (d_.cross) {
        unused_cross_attention(x, l);
      }
      x = feed_forward_sublayer(x, l, d_.decoder.ffn, p, n, 3);
    }
    b_.set_block(-1);
    return x;
  }

 private:
  Value embed(const Value& ids, const std::string& prefix, const Scope& stack, const std::string& table) {
    Shape shape = ids.shape;
    shape.push_back(d_.hidden);
    auto x = b_.node(graph::NodeType::Embedding, prefix + "Token_Embedding", shape, {ids},
                     Scope(table.substr(0, table.rfind('.'))));
    // The first stack built owns the shared table; each stack's word_embeddings aliases it.
    if (!table_declared_) b_.parameter(x, table, {d_.vocab, d_.hidden}, graph::TensorRole::Embedding);
    table_declared_ = true;
    b_.tied(x, (stack / "word_embeddings")("weight"), {d_.vocab, d_.hidden}, table, graph::TensorRole::Embedding);
    if (d_.pad >= d_.vocab)
      b_.fail(x, fmt::format("pad_token_id {} is not a row of the {}-token vocabulary", d_.pad, d_.vocab));
    // Position ids run from pad_token_id + 1 and are clamped to the table's last row.
    const Scope positions = stack / "position_embeddings";
    x = b_.node(graph::NodeType::LearnedPosEmbed, prefix + "Position_Embedding", x.shape, {x}, positions);
    b_.parameter(x, positions("weight"), {d_.positions, d_.hidden}, graph::TensorRole::Embedding);
    const std::int64_t seq = ids.shape.front();
    if (seq + d_.pad + 1 > d_.positions)
      b_.note(fmt::format("{}positions past {} reuse the last row of the {}-row position table (the reference clamps "
                          "the ids)",
                          prefix.empty() ? "source " : "target ", std::max<std::int64_t>(d_.positions - d_.pad - 1, 0),
                          d_.positions));
    return x;
  }

  AttentionSpec attention_spec(const Scope& attn, std::int64_t heads, bool causal) const {
    return AttentionSpec{.hidden = d_.hidden, .heads = heads, .causal = causal, .module = attn,
                         .q = attn / "query_proj", .k = attn / "key_proj", .v = attn / "value_proj",
                         .o = attn / "out_proj", .dropout = d_.attention_dropout, .output_dropout = d_.dropout};
  }

  // Over the (1 + ngram) x target rows: the main stream scores `target` keys and each predicting
  // stream 2 x target (the main stream's and its own), so the node keeps one query row per stream
  // row against 2 x target keys, which slightly overcounts the main stream's scores. The relative
  // bias logits are a Linear over the same rows.
  Value ngram_self_attention(const Value& x, const Scope& attn, std::int64_t target, std::int64_t i) {
    const BlockNames n{i};
    auto bias = dense(b_, x, fmt::format("Decoder_Relative_Position_Logits_{}", i), attn / "relative_pos_embeddings",
                      d_.hidden, d_.buckets * d_.decoder.heads, true);
    auto h = attention(b_, x, "Decoder_" + n.attention(), attention_spec(attn, d_.decoder.heads, true));
    b_.at(h).inputs.push_back(bias.node);
    auto& at = *b_.at(h).attention;
    at.sdpa = false;
    at.kv_len = 2 * target;
    if (i == 0)
      b_.note(fmt::format("ProphetNet's decoder runs {} streams of {} tokens (main + {} predicting) through every "
                          "layer; each predicting stream scores the main stream and itself ({} keys)",
                          1 + d_.ngram, target, d_.ngram, 2 * target));
    return add(b_, h, x, "Decoder_" + n.add(1));
  }

  Value feed_forward_sublayer(const Value& x, const Scope& layer, std::int64_t width, const std::string& prefix,
                              const BlockNames& n, int k) {
    const Scope ff = layer / "feed_forward";
    auto h = feed_forward(b_, x, prefix + n.ffn(),
                          {.hidden = d_.hidden, .intermediate = width, .activation = d_.activation, .module = ff,
                           .up = ff / "intermediate", .down = ff / "output", .output_dropout = d_.dropout,
                           .inner_dropout = d_.activation_dropout});
    return norm(b_, add(b_, h, x, prefix + n.add(k)), prefix + n.norm(k, NormKind::LayerNorm),
                {layer / "feed_forward_layer_norm"});
  }

  // The tensors go on the node that ends the self-attention sublayer, so they count within their
  // block without a node that would claim compute or saved activations; idle, they get no gradient or optimizer state.
  void unused_cross_attention(const Value& owner, const Scope& layer) {
    for (const char* proj : {"key_proj", "value_proj", "query_proj", "out_proj"})
      linear_tensors(b_, owner, layer / "cross_attn" / proj, d_.hidden, d_.hidden, true, graph::Operand::Idle);
    const Scope layer_norm = layer / "cross_attn_layer_norm";
    b_.parameter(owner, layer_norm("weight"), {d_.hidden}, graph::TensorRole::Norm, graph::Operand::Idle);
    b_.parameter(owner, layer_norm("bias"), {d_.hidden}, graph::TensorRole::Bias, graph::Operand::Idle);
    if (!cross_noted_) {
      b_.note(fmt::format("{} runs the decoder without encoder states: every layer stores cross_attn weights it never "
                          "uses",
                          class_name_));
      cross_noted_ = true;
    }
  }

  GraphBuilder& b_;
  const Dims& d_;
  std::string class_name_;
  bool cross_noted_ = false;
  bool table_declared_ = false;
};

// The stream rows a head reads out of the decoder's (1 + ngram) x target rows: a selection, no compute.
Value streams(GraphBuilder& b, const Value& x, const std::string& name, std::int64_t rows) {
  return b.node(graph::NodeType::Pooler, name, {rows, x.shape.back()}, {x});
}

}  // namespace
}  // namespace prophetnet_common_impl
using namespace prophetnet_common_impl;

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config& c = in.config;
  const prophetnet_common_impl::Dims d = prophetnet_common_impl::read_dims(c);
  const bool tie = c.flag({"tie_word_embeddings"}, true);
  prophetnet_common_impl::Builder stacks(b, d, in.class_name);
  const Scope root = in.head == Head::Base ? Scope() : Scope("prophetnet");
  const std::string table = root("word_embeddings.weight");

  // Position ids start at pad_token_id + 1, so this many tokens get rows of their own.
  const std::int64_t distinct_positions = std::max<std::int64_t>(d.positions - d.pad - 1, 1);
  std::int64_t target = 0;
  Value x;
  if (in.head == Head::CausalLM) {
    // ProphetNetDecoderWrapper: prophetnet.word_embeddings and the decoder alone.
    target = in.sequence_length(distinct_positions);
    auto ids = b.input({target}, "tokens");
    x = stacks.decoder(ids, std::nullopt, root / "decoder", table, 0);
  } else {
    const std::int64_t source = in.sequence_length(distinct_positions);
    auto ids = b.input({source}, "tokens");
    auto memory = stacks.encoder(ids, root / "encoder", table);
    target = in.target_length(std::min(source, distinct_positions));
    auto target_ids = b.input({target}, "tokens", "decoder_input_ids");
    x = stacks.decoder(target_ids, memory, root / "decoder", table, static_cast<int>(d.encoder.layers));
  }

  if (in.head == Head::Base) return prophetnet_common_impl::streams(b, x, "Decoder_Main_Stream", target);
  auto predicting = prophetnet_common_impl::streams(b, x, "Decoder_Predicting_Streams", d.ngram * target);
  LmHeadSpec head{.module = Scope("lm_head"), .hidden = d.hidden, .vocab = d.vocab};
  if (tie) head.tied_weight = table;
  return lm_head(b, predicting, "LM_Head", head);
}

}  // namespace neurarch::families::prophetnet
