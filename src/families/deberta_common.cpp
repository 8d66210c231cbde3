#include "families/deberta_common.hpp"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace neurarch::families::deberta {
namespace deberta_common_impl {
namespace {

using namespace blocks;
using graph::NodeType;

/// pos_att_type: null, a list, or "c2p|p2c" (the config class lower-cases and splits the string).
std::vector<std::string> position_attention_types(const Config& c) {
  std::vector<std::string> out;
  const auto* raw = c.raw({"pos_att_type"});
  if (!raw) return out;
  auto add = [&](std::string s) {
    s.erase(0, s.find_first_not_of(" \t"));
    s.erase(s.find_last_not_of(" \t") + 1);
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char ch) { return std::tolower(ch); });
    out.push_back(std::move(s));
  };
  if (raw->is_string()) {
    const std::string text = raw->get<std::string>();
    std::size_t start = 0;
    for (std::size_t bar; (bar = text.find('|', start)) != std::string::npos; start = bar + 1)
      add(text.substr(start, bar - start));
    add(text.substr(start));
  } else if (raw->is_array()) {
    for (const auto& item : *raw)
      if (item.is_string()) out.push_back(item.get<std::string>());
  }
  return out;
}

bool contains(const std::vector<std::string>& list, std::string_view item) {
  return std::find(list.begin(), list.end(), item) != list.end();
}

struct Dims {
  Version version = Version::V2;
  std::int64_t vocab = 0;
  std::int64_t hidden = 0;
  std::int64_t embedding = 0;  ///< embedding_size (default hidden)
  std::int64_t layers = 0;
  std::int64_t heads = 0;
  std::int64_t head_dim = 0;
  std::int64_t intermediate = 0;
  std::int64_t max_positions = 0;
  std::string activation;
  bool relative = false;
  std::int64_t relative_rows = 0;  ///< rows of encoder.rel_embeddings
  std::vector<std::string> position_types;
  bool share_att_key = false;  ///< v2: positions reuse key_proj / query_proj
  bool talking_head = false;   ///< v1
  double hidden_dropout = 0.1;
  double attention_dropout = 0.1;
  bool sew_d = false;  ///< Defaults::sew_d
};

Dims read_dims(const Config& c, Version version, const Defaults& d) {
  Dims s;
  s.version = version;
  s.sew_d = d.sew_d;
  s.vocab = c.dim({"vocab_size"}, d.vocab);
  s.hidden = c.dim({"hidden_size"}, d.hidden);
  s.embedding = c.dim({"embedding_size"}, s.hidden);
  s.layers = c.dim({"num_hidden_layers"}, d.layers);
  s.heads = c.dim({"num_attention_heads"}, d.heads);
  // v2 lets attention_head_size override hidden / heads; v1 always divides.
  s.head_dim = version == Version::V2 ? c.dim({"attention_head_size"}, s.hidden / s.heads) : s.hidden / s.heads;
  s.intermediate = c.dim({"intermediate_size"}, d.intermediate);
  s.max_positions = c.dim({"max_position_embeddings"}, 512);
  s.activation = c.text({"hidden_act"}, d.sew_d ? "gelu_python" : "gelu");
  s.relative = c.flag({"relative_attention"}, d.sew_d);
  s.position_types = position_attention_types(c);
  if (d.sew_d && !c.json().contains("pos_att_type")) s.position_types = {"p2c", "c2p"};
  s.share_att_key = version == Version::V2 && c.flag({"share_att_key"}, d.sew_d);
  s.talking_head = version == Version::V1 && c.flag({"talking_head"}, false);
  // SEW-D's config names them after wav2vec2's; its output dropouts read activation_dropout.
  s.hidden_dropout = d.sew_d ? c.number({"activation_dropout"}, 0.1) : c.number({"hidden_dropout_prob"}, 0.1);
  s.attention_dropout =
      d.sew_d ? c.number({"attention_dropout"}, 0.1) : c.number({"attention_probs_dropout_prob"}, 0.1);
  if (s.relative) {
    std::int64_t max_relative = c.integer({"max_relative_positions"}, -1);
    if (max_relative < 1) max_relative = s.max_positions;
    const std::int64_t buckets = version == Version::V2 ? c.integer({"position_buckets"}, d.sew_d ? 256 : -1) : -1;
    s.relative_rows = 2 * (buckets > 0 ? buckets : max_relative);
  }
  return s;
}

/// word (+ positions) (+ token types) -> embed_proj when embedding_size differs -> LayerNorm.
Value embeddings(const BuildInput& in, GraphBuilder& b, const Dims& d, const Scope& emb, std::int64_t seq) {
  const Config& c = in.config;
  auto x = b.input({seq}, "tokens");
  x = token_embedding(b, x, "Token_Embedding", emb / "word_embeddings", d.vocab, d.embedding);
  const std::int64_t pad = c.integer({"pad_token_id"}, 0);
  if (pad >= d.vocab) b.fail(x, fmt::format("pad_token_id {} is not a row of the {}-token vocabulary", pad, d.vocab));
  if (c.flag({"position_biased_input"}, true))
    x = learned_positions(b, x, "Position_Embedding", emb / "position_embeddings", d.max_positions, d.embedding);
  else if (!d.relative)
    b.note("position_biased_input=false without relative_attention: the model sees no positions at all");
  if (const std::int64_t types = c.integer({"type_vocab_size"}, 0); types > 0)
    x = added_embedding(b, x, "Token_Type_Embedding", emb / "token_type_embeddings", types, d.embedding);
  if (d.embedding != d.hidden) x = dense(b, x, "Embedding_Projection", emb / "embed_proj", d.embedding, d.hidden, false);
  x = norm(b, x, "Embedding_LayerNorm", {emb / "LayerNorm"});
  b.at(x).dropout = d.hidden_dropout;
  return x;
}

/// The disentangled self-attention with its output dense; the relative table is a second input.
Value attention_sublayer(GraphBuilder& b, const Value& x, const std::optional<Value>& rel, std::int64_t i,
                         const Scope& module, const Dims& d) {
  const Scope self = module / "self";
  AttentionSpec spec{.hidden = d.hidden, .heads = d.heads, .head_dim = d.head_dim, .module = module,
                     .o = module / "output" / "dense", .dropout = d.attention_dropout,
                     .output_dropout = d.hidden_dropout};
  if (d.version == Version::V1) {
    spec.qkv = self / "in_proj";
    spec.qkv_bias = false;
  } else {
    spec.q = self / "query_proj";
    spec.k = self / "key_proj";
    spec.v = self / "value_proj";
  }
  auto a = attention(b, x, BlockNames{i}.attention(), spec);
  // DisentangledSelfAttention computes its scores with bmm and softmax itself: no SDPA path.
  b.at(a).attention->sdpa = false;
  const std::int64_t all_heads = d.heads * d.head_dim;
  if (d.version == Version::V1) {
    b.parameter(a, self("q_bias"), {all_heads}, graph::TensorRole::Bias);
    b.parameter(a, self("v_bias"), {all_heads}, graph::TensorRole::Bias);
    if (d.talking_head) {
      // Talking heads mix the scores and the probabilities across heads, inside the op.
      linear_tensors(b, a, self / "head_logits_proj", d.heads, d.heads, false, graph::Operand::Internal);
      linear_tensors(b, a, self / "head_weights_proj", d.heads, d.heads, false, graph::Operand::Internal);
    }
  }
  if (rel) {
    b.at(a).inputs.push_back(rel->node);
    const bool c2p = contains(d.position_types, "c2p");
    const bool p2c = contains(d.position_types, "p2c");
    auto& attrs = *b.at(a).attention;
    attrs.relative_span = d.relative_rows;
    attrs.c2p = c2p;
    attrs.p2c = p2c;
    if (d.version == Version::V1) {
      if (c2p) linear_tensors(b, a, self / "pos_proj", d.hidden, all_heads, false, graph::Operand::Positions);
      if (p2c) linear_tensors(b, a, self / "pos_q_proj", d.hidden, all_heads, true, graph::Operand::Positions);
    } else if (!d.share_att_key) {
      if (c2p) linear_tensors(b, a, self / "pos_key_proj", d.hidden, all_heads, true, graph::Operand::Positions);
      if (p2c) linear_tensors(b, a, self / "pos_query_proj", d.hidden, all_heads, true, graph::Operand::Positions);
    }
  }
  // The output dense reads hidden_size features whatever the heads produce.
  if (all_heads != d.hidden)
    b.fail(a, fmt::format("{} heads of {} give {} features; the output dense expects hidden_size {}", d.heads,
                          d.head_dim, all_heads, d.hidden));
  if (d.version == Version::V1 && d.hidden % d.heads != 0)
    b.fail(a, fmt::format("hidden size {} not divisible by {} heads", d.hidden, d.heads));
  auto sum = add(b, a, x, BlockNames{i}.add(1));
  return norm(b, sum, BlockNames{i}.norm(1, NormKind::LayerNorm), {module / "output" / "LayerNorm"});
}

Value layer(GraphBuilder& b, const Value& x, const std::optional<Value>& rel, std::int64_t i, const Scope& l,
            const Dims& d) {
  auto h = attention_sublayer(b, x, rel, i, l / "attention", d);
  auto f = feed_forward(b, h, BlockNames{i}.ffn(),
                        {.hidden = d.hidden, .intermediate = d.intermediate, .activation = d.activation, .module = l,
                         .up = l / "intermediate" / "dense", .down = l / "output" / "dense",
                         .output_dropout = d.hidden_dropout});
  auto sum = add(b, f, h, BlockNames{i}.add(2));
  return norm(b, sum, BlockNames{i}.norm(2, NormKind::LayerNorm), {l / "output" / "LayerNorm"});
}

/// v2's ConvLayer after the first layer: LayerNorm(layer_0 + act(conv1d(embeddings))).
Value conv_layer(const Config& c, GraphBuilder& b, const Value& embedded, const Value& first, const Scope& module,
                 const Dims& d, std::int64_t kernel) {
  const std::int64_t groups = c.dim({"conv_groups"}, 1);
  auto conv = b.node(NodeType::Linear, "Conv_1", embedded.shape, {embedded}, module / "conv");
  b.at(conv).activation = c.text({"conv_act"}, "tanh");
  b.at(conv).dropout = d.hidden_dropout;
  b.parameter(conv, (module / "conv")("weight"), {d.hidden, d.hidden / groups, kernel}, graph::TensorRole::Conv);
  b.parameter(conv, (module / "conv")("bias"), {d.hidden}, graph::TensorRole::Bias);
  if (d.hidden % groups != 0)
    b.fail(conv, fmt::format("conv_groups {} does not divide hidden size {}", groups, d.hidden));
  if (kernel % 2 == 0)
    b.note(fmt::format("conv_kernel_size {} is even: the reference's padding shortens the sequence by one, and the "
                       "sum with the first layer's output fails",
                       kernel));
  auto sum = add(b, conv, first, "Conv_Add");
  return norm(b, sum, "Conv_LayerNorm", {module / "LayerNorm"});
}

Value masked_lm(const BuildInput& in, GraphBuilder& b, const Value& x, const Dims& d, const std::string& words) {
  const Config& c = in.config;
  const bool tie = c.flag({"tie_word_embeddings"}, true);
  if (c.flag({"legacy"}, true)) {
    const Scope head = Scope("cls") / "predictions";
    auto h = dense(b, x, "MLM_Transform", head / "transform" / "dense", d.hidden, d.embedding, true, d.activation);
    h = norm(b, h, "MLM_LayerNorm", {head / "transform" / "LayerNorm"});
    return lm_head(b, h, "LM_Head",
                   {.module = head / "decoder", .hidden = d.embedding, .vocab = d.vocab, .bias = true,
                    .tied_weight = tie ? words : std::string(), .tied_bias = head("bias"),
                    .extra_bias = head("bias")});
  }
  // The newer head multiplies by the word embeddings it is handed and owns only a bias.
  const Scope head = Scope("lm_predictions") / "lm_head";
  auto h = dense(b, x, "MLM_Transform", head / "dense", d.hidden, d.hidden, true, d.activation);
  h = norm(b, h, "MLM_LayerNorm", {head / "LayerNorm"});
  Shape shape = h.shape;
  shape.back() = d.vocab;
  auto logits = b.node(NodeType::LMHead, "LM_Head", shape, {h}, head);
  b.tied(logits, words, {d.vocab, d.embedding}, words, graph::TensorRole::Linear);
  b.parameter(logits, head("bias"), {d.vocab}, graph::TensorRole::Bias);
  if (d.embedding != d.hidden)
    b.fail(logits, fmt::format("the head multiplies {} features by {}-wide word embeddings", d.hidden, d.embedding));
  return logits;
}

// The relative table (with v2's optional LayerNorm), the layers and v2's conv after layer 0, on
// the embedded sequence x.
Value encoder_stack(const Config& c, GraphBuilder& b, Value x, const Scope& encoder, const Dims& d) {
  const Version version = d.version;
  const Value embedded = x;
  std::optional<Value> rel;
  if (d.relative) {
    // One table for every layer; positions past it share the last bucket, so any length runs.
    auto table = b.node(NodeType::Embedding, "Relative_Embedding", {d.relative_rows, d.hidden}, {}, encoder / "rel_embeddings");
    b.parameter(table, (encoder / "rel_embeddings")("weight"), {d.relative_rows, d.hidden}, graph::TensorRole::Embedding);
    rel = table;
  }
  if (version == Version::V2) {
    const std::string norm_rel = c.text({"norm_rel_ebd"}, d.sew_d ? "layer_norm" : "none");
    if (norm_rel.find("layer_norm") != std::string::npos) {
      // The encoder owns this norm even when there is no table to normalise.
      if (rel) {
        rel = norm(b, *rel, "Relative_Embedding_LayerNorm", {encoder / "LayerNorm"});
      } else {
        auto unused = b.node(NodeType::LayerNorm, "Relative_Embedding_LayerNorm", {d.hidden}, {}, encoder / "LayerNorm");
        b.parameter(unused, (encoder / "LayerNorm")("weight"), {d.hidden}, graph::TensorRole::Norm);
        b.parameter(unused, (encoder / "LayerNorm")("bias"), {d.hidden}, graph::TensorRole::Bias);
      }
    }
  }
  const std::int64_t kernel = version == Version::V2 ? c.integer({"conv_kernel_size"}, 0) : 0;

  for (std::int64_t i = 0; i < d.layers; ++i) {
    b.set_block(static_cast<int>(i));
    x = layer(b, x, rel, i, encoder / "layer" / i, d);
    if (i == 0 && kernel > 0) x = conv_layer(c, b, embedded, x, encoder / "conv", d, kernel);
  }
  b.set_block(-1);
  return x;
}

}  // namespace
}  // namespace deberta_common_impl
using namespace deberta_common_impl;

Value build(const BuildInput& in, GraphBuilder& b, Version version, const Defaults& defaults) {
  const Config& c = in.config;
  const deberta_common_impl::Dims d = deberta_common_impl::read_dims(c, version, defaults);
  const Scope root = in.head == Head::Base ? Scope() : Scope("deberta");
  const std::int64_t seq = in.sequence_length(d.max_positions);
  auto x = deberta_common_impl::embeddings(in, b, d, root / "embeddings", seq);
  const Scope encoder = root / "encoder";

  x = deberta_common_impl::encoder_stack(c, b, x, encoder, d);
  if (seq > d.max_positions && !c.flag({"position_biased_input"}, true))
    b.note(fmt::format("sequence of {} tokens is past max_position_embeddings ({}); relative positions saturate",
                       seq, d.max_positions));

  const std::string words = (root / "embeddings" / "word_embeddings")("weight");
  switch (in.head) {
    case Head::MaskedLM:
      return deberta_common_impl::masked_lm(in, b, x, d, words);
    case Head::SequenceClassification: {
      // ContextPooler: the first token through dense + pooler_hidden_act.
      const std::int64_t pooled = c.dim({"pooler_hidden_size"}, d.hidden);
      auto pool = pooler(b, x, "Pooler", Scope("pooler") / "dense", pooled, c.text({"pooler_hidden_act"}, "gelu"));
      if (pooled != d.hidden)
        b.fail(pool, fmt::format("pooler_hidden_size {} differs from hidden_size {}: the pooler cannot read the "
                                 "encoder's output", pooled, d.hidden));
      return classifier(b, pool, "Classifier", Scope("classifier"), d.hidden, in.num_labels(), true);
    }
    case Head::TokenClassification:
      return classifier(b, x, "Classifier", Scope("classifier"), d.hidden, in.num_labels(), true);
    case Head::QuestionAnswering:
      return classifier(b, x, "QA_Outputs", Scope("qa_outputs"), d.hidden, in.num_labels(), true);
    default:
      return x;
  }
}

Value v2_encoder(const Config& c, GraphBuilder& b, const Value& x, const Scope& encoder, const Defaults& defaults) {
  return deberta_common_impl::encoder_stack(c, b, x, encoder, deberta_common_impl::read_dims(c, Version::V2, defaults));
}

}  // namespace neurarch::families::deberta
