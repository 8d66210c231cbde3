// Transformer-XL (models/deprecated/transfo_xl/modeling_transfo_xl.py + modeling_transfo_xl_utilities.py +
// configuration_transfo_xl.py, transformers 4.47.1; removed from transformers 5). An adaptive input embedding
// (word_emb: one table per vocabulary cluster split at `cutoffs`, cluster i d_embed // div_val^i wide and
// projected to d_model by a bare emb_projs.i [d_model, d_emb_i]; div_val 1 is one table, projected only when
// d_embed != d_model), a sinusoidal pos_emb (persistent inv_freq buffer), then n_layer decoder layers of relative
// multi-head attention over the segment memory plus the current segment (dec_attn: qkv_net and o_net without
// bias, r_net projecting the relative positions, r_w_bias / r_r_bias [n_head, d_head] per layer under untie_r,
// else one pair on the model that every layer registers again) and a ReLU feed-forward (pos_ff.CoreNet.0 / .3),
// each with its LayerNorm post-residual, or before the sublayer under pre_lnorm (then no norm closes the stack).
// The LM head is ProjectedAdaptiveLogSoftmax (crit): cluster_weight / cluster_bias for the tail clusters, an
// out_layers.i Linear per cluster (one for div_val 1) tied to emb_layers.i under tie_word_embeddings, and
// out_projs.i tied to the embedding's projections where tie_projs says so. same_length and clamp_len change the
// mask and the position values, not any size; `adaptive` is stored but never read by the modeling code.
//
// What the plan approximates (no node kind models these exactly):
// - the adaptive embedding is one Embedding node; its per-cluster projections (bare parameters, not matmul
//   weights to the planner) cost no FLOPs there;
// - attention is one eager MultiHeadAttention node with kv_len = segment + mem_len (init_mems fills the memory
//   with zeros on the first call, so every forward attends over mem_len extra keys) and the position term BD as
//   DeBERTa's c2p over relative_span = kv_len projected positions; q/k/v activations and qkv_net's FLOPs are
//   counted for the segment's tokens only, though qkv_net (and pre_lnorm's norm) also reads the memory;
// - the memory itself (n_layer x mem_len x d_model per sample, detached) is held outside autograd, unplanned;
// - the adaptive softmax is one LMHead node whose output is the [seq, vocab] log-probabilities it returns without
//   labels; with labels the reference computes the head logits [seq, cutoffs[0] + clusters] and each tail's
//   logits only for that cluster's tokens, so the planned logits and loss memory are an upper bound. Each
//   out_layers weight is counted over every token (as the no-label path runs it); out_projs cost no FLOPs.
#include <algorithm>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "families/config_lists.hpp"
#include "families/family.hpp"

namespace neurarch::families {
namespace transfo_xl_impl {
namespace {

using namespace blocks;
using graph::NodeType;

struct TransfoXL {
  std::int64_t vocab = 0;
  std::vector<std::int64_t> cutoffs;  ///< the config's, without the vocabulary size the reference appends
  std::int64_t div_val = 1;
  std::int64_t d_model = 0, d_embed = 0, heads = 0, d_head = 0, inner = 0, layers = 0;
  std::int64_t mem_len = 0;
  bool pre_lnorm = false;
  bool untie_r = true;
  double dropout = 0.0, dropatt = 0.0;

  /// Vocabulary clusters: len(cutoffs) + 1, or one table when div_val is 1.
  std::size_t clusters() const { return cutoffs.size() + 1; }
  std::int64_t cluster_begin(std::size_t i) const { return i == 0 ? 0 : cutoffs[i - 1]; }
  std::int64_t cluster_end(std::size_t i) const { return i < cutoffs.size() ? cutoffs[i] : vocab; }
  /// d_embed // div_val**i: cluster i's embedding width.
  std::int64_t cluster_width(std::size_t i) const {
    std::int64_t width = d_embed;
    for (std::size_t k = 0; k < i && width > 0; ++k) width /= div_val;
    return width;
  }
};

/// `cutoffs`: a list of integers, each cluster [cutoffs[i-1], cutoffs[i]) of non-negative size up to vocab_size
/// (torch refuses a negative nn.Embedding). Absent: the config class's [20000, 40000, 200000].
std::vector<std::int64_t> read_cutoffs(const Config& c, std::int64_t vocab) {
  const std::vector<std::int64_t> fallback{20000, 40000, 200000};
  const auto* v = c.raw({"cutoffs"});
  std::vector<std::int64_t> out;
  if (!v) {
    c.record_default("cutoffs", fallback);
    out = fallback;
  } else {
    const std::string where = fmt::format("{}: key 'cutoffs'", c.origin());
    if (!v->is_array() || v->size() > 64)
      throw Error(ErrorKind::InvalidInput, where, fmt::format("expected a list of token ids, found {}", v->dump()));
    for (const auto& e : *v) {
      if (!e.is_number_integer())
        throw Error(ErrorKind::InvalidInput, where, fmt::format("expected integer token ids, found {}", e.dump()));
      out.push_back(e.get<std::int64_t>());
    }
  }
  std::int64_t previous = 0;
  for (auto cut : out) {
    if (cut < previous || cut > vocab)
      throw Error(ErrorKind::InvalidInput, fmt::format("{}: key 'cutoffs'", c.origin()),
                  fmt::format("cutoff {} makes a cluster of negative size (after {}, vocab_size {})", cut, previous,
                              vocab));
    previous = cut;
  }
  return out;
}

TransfoXL read(const Config& c) {
  // attribute_map's names (n_token, hidden_size, num_attention_heads, num_hidden_layers) are set after the
  // class's own keys, so where a file has both spellings the mapped one wins: they are read first.
  TransfoXL s;
  s.vocab = c.dim({"n_token", "vocab_size"}, 267735);
  s.cutoffs = read_cutoffs(c, s.vocab);
  s.d_model = c.dim({"hidden_size", "d_model"}, 1024);
  s.d_embed = c.dim({"d_embed"}, 1024);
  s.heads = c.dim({"num_attention_heads", "n_head"}, 16);
  s.d_head = c.dim({"d_head"}, 64);
  s.inner = c.dim({"d_inner"}, 4096);
  s.div_val = c.dim({"div_val"}, 4);
  s.pre_lnorm = c.flag({"pre_lnorm"}, false);
  s.layers = c.dim({"num_hidden_layers", "n_layer"}, 18);
  // init_mems keeps mem_len past states per layer when mem_len > 0; otherwise there is no memory.
  s.mem_len = std::max<std::int64_t>(c.integer({"mem_len"}, 1600), 0);
  s.untie_r = c.flag({"untie_r"}, true);
  s.dropout = c.number({"dropout"}, 0.1);
  s.dropatt = c.number({"dropatt"}, 0.0);
  const std::int64_t attn_type = c.integer({"attn_type"}, 0);
  if (attn_type != 0)
    throw Error(ErrorKind::InvalidInput, c.origin() + ": key 'attn_type'",
                fmt::format("{}: only 0 (relative partial attention) is built; the reference raises "
                            "NotImplementedError for the others",
                            attn_type));
  return s;
}

/// AdaptiveEmbedding: [seq] token ids -> [seq, d_model], scaled by sqrt(d_model).
Value adaptive_embedding(GraphBuilder& b, const Value& ids, const Scope& module, const TransfoXL& s) {
  Shape shape = ids.shape;
  shape.push_back(s.d_model);
  auto out = b.node(NodeType::Embedding, "Adaptive_Embedding", shape, {ids}, module);
  if (s.div_val == 1) {
    b.parameter(out, (module / "emb_layers" / 0)("weight"), {s.vocab, s.d_embed}, graph::TensorRole::Embedding);
    if (s.d_model != s.d_embed) b.parameter(out, (module / "emb_projs")("0"), {s.d_model, s.d_embed}, graph::TensorRole::Matrix);
    return out;
  }
  for (std::size_t i = 0; i < s.clusters(); ++i)
    b.parameter(out, (module / "emb_layers" / static_cast<std::int64_t>(i))("weight"),
                {s.cluster_end(i) - s.cluster_begin(i), s.cluster_width(i)}, graph::TensorRole::Embedding);
  for (std::size_t i = 0; i < s.clusters(); ++i)
    b.parameter(out, (module / "emb_projs")(std::to_string(i)), {s.d_model, s.cluster_width(i)}, graph::TensorRole::Matrix);
  return out;
}

/// RelPartialLearnableMultiHeadAttn's projections and biases; its layer_norm is a node of the layer.
Value relative_attention(GraphBuilder& b, const Value& x, std::int64_t i, const Scope& root, const Scope& module,
                         const TransfoXL& s) {
  const BlockNames n{i};
  auto out = b.node(NodeType::MultiHeadAttention, n.attention(), x.shape, {x}, module);
  const std::int64_t seq = x.shape.size() >= 2 ? x.shape[x.shape.size() - 2] : 1;
  const std::int64_t keys = seq + s.mem_len;
  graph::AttentionAttrs attrs{s.heads, s.heads, s.d_head, seq, keys, true, 0, s.dropatt};
  attrs.fused_qkv = true;  // qkv_net reads the (memory and) segment once
  attrs.sdpa = false;      // einsum scores, softmax and dropatt: eager only
  attrs.relative_span = keys;  // r_net projects one sinusoid per key distance, klen - 1 .. 0
  attrs.c2p = true;
  b.at(out).attention = attrs;
  b.at(out).dropout = s.dropout;  // drop(o_net(...))
  const Shape bias{s.heads, s.d_head};
  if (!s.untie_r && i == 0) {
    // One pair on the model, declared before the layers; every layer registers it again as its own attribute.
    b.parameter(out, root("r_w_bias"), bias, graph::TensorRole::Bias);
    b.parameter(out, root("r_r_bias"), bias, graph::TensorRole::Bias);
  }
  for (const char* name : {"r_r_bias", "r_w_bias"}) {
    if (s.untie_r)
      b.parameter(out, module(name), bias, graph::TensorRole::Other);
    else
      b.tied(out, module(name), bias, root(name), graph::TensorRole::Other);
  }
  const std::int64_t width = s.heads * s.d_head;
  linear_tensors(b, out, module / "qkv_net", s.d_model, 3 * width, false);
  linear_tensors(b, out, module / "r_net", s.d_model, width, false, graph::Operand::Positions);
  linear_tensors(b, out, module / "o_net", width, s.d_model, false, graph::Operand::Inner);
  if (x.shape.back() != s.d_model)
    b.fail(out, fmt::format("expects hidden size {}, receives {}", s.d_model, x.shape.back()));
  return out;
}

/// RelPartialLearnableDecoderLayer: post-norm (norm(x + sublayer(x))) or pre-norm (x + sublayer(norm(x))).
Value decoder_layer(GraphBuilder& b, const Value& x, std::int64_t i, const Scope& root, const TransfoXL& s) {
  b.set_block(static_cast<int>(i));
  const Scope l = root / "layers" / i;
  const Scope attn = l / "dec_attn", ff = l / "pos_ff";
  const BlockNames n{i};
  const FeedForwardSpec ffn{.hidden = s.d_model, .intermediate = s.inner, .activation = "relu", .module = ff,
                            .up = ff / "CoreNet" / 0, .down = ff / "CoreNet" / 3, .output_dropout = s.dropout,
                            .inner_dropout = s.dropout};
  if (s.pre_lnorm) {
    auto h = norm(b, x, n.norm(1, NormKind::LayerNorm), {attn / "layer_norm"});
    h = add(b, relative_attention(b, h, i, root, attn, s), x, n.add(1));
    auto f = norm(b, h, n.norm(2, NormKind::LayerNorm), {ff / "layer_norm"});
    return add(b, feed_forward(b, f, n.ffn(), ffn), h, n.add(2));
  }
  auto h = add(b, relative_attention(b, x, i, root, attn, s), x, n.add(1));
  h = norm(b, h, n.norm(1, NormKind::LayerNorm), {attn / "layer_norm"});
  auto f = add(b, feed_forward(b, h, n.ffn(), ffn), h, n.add(2));
  return norm(b, f, n.norm(2, NormKind::LayerNorm), {ff / "layer_norm"});
}

/// tie_projs, else what proj_share_all_but_first derives: [False] + [share] * len(cutoffs).
std::vector<bool> read_tie_projs(const Config& c, const TransfoXL& s) {
  std::vector<bool> fallback{false};
  fallback.resize(s.cutoffs.size() + 1, c.flag({"proj_share_all_but_first"}, true));
  return bool_list(c, "tie_projs", fallback);
}

/// ProjectedAdaptiveLogSoftmax under `crit`, with TransfoXLLMHeadModel.tie_weights applied.
Value adaptive_softmax(GraphBuilder& b, const Value& x, const Config& c, const Scope& embedding, const TransfoXL& s) {
  if (const std::int64_t sample = c.integer({"sample_softmax"}, -1); sample > 0)
    throw Error(ErrorKind::InvalidInput, c.origin() + ": key 'sample_softmax'",
                fmt::format("{}: TransfoXLLMHeadModel asserts sample_softmax <= 0 (sampled softmax is not "
                            "implemented)",
                            sample));
  // torchscript clones the tied tensors (_tie_or_clone_weights) rather than sharing them.
  const bool clone = c.flag({"torchscript"}, false);
  const bool tie_layers = c.flag({"tie_word_embeddings"}, true) && !clone;
  const std::vector<bool> tie_projs = read_tie_projs(c, s);

  const Scope crit("crit");
  Shape shape = x.shape;
  shape.back() = s.vocab;
  auto out = b.node(NodeType::LMHead, "Adaptive_Softmax", shape, {x}, crit);
  // The head scores the shortlist and one logit per tail cluster against d_embed-wide cluster rows.
  if (!s.cutoffs.empty()) {
    const auto tails = static_cast<std::int64_t>(s.cutoffs.size());
    b.parameter(out, crit("cluster_weight"), {tails, s.d_embed}, graph::TensorRole::Matrix);
    b.parameter(out, crit("cluster_bias"), {tails}, graph::TensorRole::Bias);
  }
  const std::size_t layers = s.div_val == 1 ? 1 : s.clusters();
  for (std::size_t i = 0; i < layers; ++i) {
    const Scope layer = crit / "out_layers" / static_cast<std::int64_t>(i);
    const std::int64_t rows = s.div_val == 1 ? s.vocab : s.cluster_end(i) - s.cluster_begin(i);
    const std::int64_t width = s.div_val == 1 ? s.d_embed : s.cluster_width(i);
    const std::string table = (embedding / "emb_layers" / static_cast<std::int64_t>(i))("weight");
    if (tie_layers)
      b.tied(out, layer("weight"), {rows, width}, table, graph::TensorRole::Linear);
    else
      b.parameter(out, layer("weight"), {rows, width}, graph::TensorRole::Linear);
    b.parameter(out, layer("bias"), {rows}, graph::TensorRole::Bias);
  }
  // One projection per cluster (div_val 1: [d_model, d_embed] each, none when d_embed == d_model); a tied one
  // aliases the embedding's projection of that cluster (div_val 1: its only one).
  const bool projected = s.div_val != 1 || s.d_model != s.d_embed;
  if (!projected) return out;
  if (tie_projs.size() > s.clusters() &&
      std::find(tie_projs.begin() + static_cast<std::ptrdiff_t>(s.clusters()), tie_projs.end(), true) !=
          tie_projs.end())
    throw Error(ErrorKind::InvalidInput, c.origin() + ": key 'tie_projs'",
                fmt::format("ties {} projections, but the adaptive softmax has {} (out_projs index out of range)",
                            tie_projs.size(), s.clusters()));
  for (std::size_t i = 0; i < s.clusters(); ++i) {
    const std::int64_t width = s.div_val == 1 ? s.d_embed : s.cluster_width(i);
    const std::string name = (crit / "out_projs")(std::to_string(i));
    const bool tie = i < tie_projs.size() && tie_projs[i] && !clone;
    if (tie)
      b.tied(out, name, {s.d_model, width}, (embedding / "emb_projs")(s.div_val == 1 ? "0" : std::to_string(i)), graph::TensorRole::Matrix);
    else
      b.parameter(out, name, {s.d_model, width}, graph::TensorRole::Matrix);
  }
  if (x.shape.back() != s.d_model)
    b.fail(out, fmt::format("expects {} features, receives {}", s.d_model, x.shape.back()));
  return out;
}

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config& c = in.config;
  const TransfoXL s = read(c);
  const Scope root = in.head == Head::Base ? Scope() : Scope("transformer");
  const std::int64_t seq = in.sequence_length(kDefaultSequenceCap);  // no position table: any length runs

  auto x = b.input({seq}, "tokens");
  x = adaptive_embedding(b, x, root / "word_emb", s);
  b.buffer(x, (root / "pos_emb")("inv_freq"), {(s.d_model + 1) / 2}, DType::F32);
  b.at(x).dropout = s.dropout;
  for (std::int64_t i = 0; i < s.layers; ++i) x = decoder_layer(b, x, i, root, s);
  b.set_block(-1);
  b.at(x).dropout = s.dropout;
  if (s.mem_len > 0)
    b.note(fmt::format("segment memory: {} past states per layer ({} x {} x {} per sample) are kept outside "
                       "autograd and not planned; every attention also reads them",
                       s.mem_len, s.layers, s.mem_len, s.d_model));

  switch (in.head) {
    case Head::CausalLM:
      return adaptive_softmax(b, x, c, root / "word_emb", s);
    case Head::SequenceClassification: {
      // score is Linear(d_embed, num_labels) over d_model-wide states: it runs only when they agree.
      auto last = b.node(NodeType::Pooler, "Last_Token_Pool", {s.d_model}, {x});
      return classifier(b, last, "Classifier", Scope("score"), s.d_embed, in.num_labels(), false);
    }
    default:
      return x;
  }
}

}  // namespace
}  // namespace transfo_xl_impl

const Family& transfo_xl_family() {
  static const Family family{"transfo_xl", "models/deprecated/transfo_xl/modeling_transfo_xl.py",
                             classes("TransfoXL", {heads::LMHeadModel, heads::ForSequenceClassification}), transfo_xl_impl::build};
  return family;
}

}  // namespace neurarch::families
