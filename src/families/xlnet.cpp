// XLNet (models/xlnet/modeling_xlnet.py + configuration_xlnet.py, transformers 4.47.1): a word embedding and a
// mask_emb [1, 1, d_model] (used only with target_mapping), then n_layer post-norm layers of relative attention
// and a feed-forward. Each rel_attn holds its projections as bare [d_model, n_head, d_head] parameters (q, k, v, o,
// and r, which projects the sinusoidal relative positions: klen + qlen of them for attn_type "bi"), the biases
// r_w_bias / r_r_bias / r_s_bias [n_head, d_head], seg_embed [2, n_head, d_head] and layer_norm; ff.layer_1 /
// layer_2 with biases and ff.layer_norm. The position scores are computed against 2 x seq projected positions
// and shifted (rel_shift): DeBERTa's c2p term. Any sequence length runs (positions are computed). Heads:
// lm_loss (tied to word_embedding, own bias), sequence_summary (summary Linear, to hidden_size unless
// summary_proj_to_labels, which XLNetConfig does not define) + logits_proj, classifier, qa_outputs.
#include <fmt/format.h>

#include "core/error.hpp"
#include "families/family.hpp"

namespace neurarch::families {
namespace xlnet_impl {
namespace {

using namespace blocks;
using graph::NodeType;

Value relative_attention(GraphBuilder& b, const Value& x, std::int64_t i, const Scope& module, std::int64_t d_model,
                         std::int64_t heads, std::int64_t head_dim, std::int64_t positions, double dropout) {
  auto out = b.node(NodeType::MultiHeadAttention, fmt::format("Attention_{}", i), x.shape, {x}, module);
  const std::int64_t seq = x.shape.size() >= 2 ? x.shape[x.shape.size() - 2] : 1;
  graph::AttentionAttrs attrs{heads, heads, head_dim, seq, seq, false, 0, dropout};
  attrs.relative_span = positions;
  attrs.c2p = true;
  b.at(out).attention = attrs;
  b.at(out).dropout = dropout;
  for (const char* projection : {"q", "k", "v", "o", "r"}) b.parameter(out, module(projection), {d_model, heads, head_dim}, graph::TensorRole::Other);
  for (const char* bias : {"r_r_bias", "r_s_bias", "r_w_bias"}) b.parameter(out, module(bias), {heads, head_dim}, graph::TensorRole::Other);
  b.parameter(out, module("seg_embed"), {2, heads, head_dim}, graph::TensorRole::Embedding);
  if (x.shape.back() != d_model) b.fail(out, fmt::format("expects hidden size {}, receives {}", d_model, x.shape.back()));
  return out;
}

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config& c = in.config;
  const std::int64_t vocab = c.dim({"vocab_size"}, 32000);
  const std::int64_t d_model = c.dim({"d_model", "hidden_size"}, 1024);
  const std::int64_t layers = c.dim({"n_layer", "num_hidden_layers"}, 24);
  const std::int64_t heads = c.dim({"n_head", "num_attention_heads"}, 16);
  const std::int64_t inner = c.dim({"d_inner"}, 4096);
  const std::string activation = c.text({"ff_activation"}, "gelu");
  const std::string attn_type = c.text({"attn_type"}, "bi");
  const double dropout = c.number({"dropout"}, 0.1);
  if (attn_type != "bi" && attn_type != "uni")
    throw Error(ErrorKind::InvalidInput, c.origin() + ": key 'attn_type'",
                fmt::format("expected \"bi\" or \"uni\", got \"{}\"", attn_type));
  if (d_model % heads != 0)
    throw Error(ErrorKind::InvalidInput, c.origin() + ": key 'd_model'",
                fmt::format("'d_model % n_head' ({} % {}) should be equal to 0", d_model, heads));
  const std::int64_t head_dim = d_model / heads;

  const Scope root = in.head == Head::Base ? Scope() : Scope("transformer");
  const std::int64_t seq = in.sequence_length(kDefaultSequenceCap);
  // "bi" numbers the relative positions klen .. -qlen + 1, "uni" klen .. 0.
  const std::int64_t positions = attn_type == "bi" ? 2 * seq : seq + 1;
  auto x = b.input({seq}, "tokens");
  x = token_embedding(b, x, "Token_Embedding", root / "word_embedding", vocab, d_model);
  b.parameter(x, root("mask_emb"), {1, 1, d_model}, graph::TensorRole::Other);
  b.at(x).dropout = dropout;

  for (std::int64_t i = 0; i < layers; ++i) {
    b.set_block(static_cast<int>(i));
    const Scope l = root / "layer" / i;
    const BlockNames n{i};
    auto h = relative_attention(b, x, i, l / "rel_attn", d_model, heads, head_dim, positions, dropout);
    h = add(b, h, x, n.add(1));
    h = norm(b, h, n.norm(1, NormKind::LayerNorm), {l / "rel_attn" / "layer_norm"});
    auto f = feed_forward(b, h, n.ffn(),
                          {.hidden = d_model, .intermediate = inner, .activation = activation, .module = l / "ff",
                           .up = l / "ff" / "layer_1", .down = l / "ff" / "layer_2", .output_dropout = dropout,
                           .inner_dropout = dropout});
    f = add(b, f, h, n.add(2));
    x = norm(b, f, n.norm(2, NormKind::LayerNorm), {l / "ff" / "layer_norm"});
  }
  b.set_block(-1);
  b.at(x).dropout = dropout;

  switch (in.head) {
    case Head::CausalLM: {
      LmHeadSpec head{.module = Scope("lm_loss"), .hidden = d_model, .vocab = vocab, .bias = true};
      if (c.flag({"tie_word_embeddings"}, true)) head.tied_weight = (root / "word_embedding")("weight");
      return lm_head(b, x, "LM_Head", head);
    }
    case Head::SequenceClassification: {
      const std::string type = c.text({"summary_type"}, "last");
      if (type == "attn") b.fail(x, "summary_type \"attn\": the sequence summary raises NotImplementedError");
      Value summary = b.node(NodeType::Pooler, "Summary_Pool", {d_model}, {x});
      std::int64_t width = d_model;
      if (c.flag({"summary_use_proj"}, true)) {
        width = c.flag({"summary_proj_to_labels"}, false) && in.num_labels() > 0 ? in.num_labels() : d_model;
        summary = dense(b, summary, "Sequence_Summary", Scope("sequence_summary") / "summary", d_model, width, true,
                        c.text({"summary_activation"}, "tanh"));
      }
      return classifier(b, summary, "Classifier", Scope("logits_proj"), width, in.num_labels(), true);
    }
    case Head::TokenClassification:
      return classifier(b, x, "Classifier", Scope("classifier"), d_model, in.num_labels(), true);
    case Head::QuestionAnswering:
      return classifier(b, x, "QA_Head", Scope("qa_outputs"), d_model, in.num_labels(), true);
    default:
      return x;
  }
}

}  // namespace
}  // namespace xlnet_impl

const Family& xlnet_family() {
  static const Family family{"xlnet",
                             "models/xlnet/modeling_xlnet.py",
                             {{"XLNetModel", Head::Base},
                              {"XLNetLMHeadModel", Head::CausalLM},
                              {"XLNetForSequenceClassification", Head::SequenceClassification},
                              {"XLNetForTokenClassification", Head::TokenClassification},
                              {"XLNetForQuestionAnsweringSimple", Head::QuestionAnswering}},
                             xlnet_impl::build};
  return family;
}

}  // namespace neurarch::families
