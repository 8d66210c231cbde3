// DistilBERT (models/distilbert/modeling_distilbert.py, transformers 4.47.1): a 6-layer
// post-norm BERT without token types or pooler, under its own names (transformer.layer.N,
// q_lin/k_lin/v_lin/out_lin, ffn.lin1/lin2, sa_layer_norm/output_layer_norm) and config keys
// (dim, n_heads, n_layers, hidden_dim, activation). sinusoidal_pos_embds only fills the same
// position table. Sequence classification pools the first token through pre_classifier + ReLU;
// the QA head refuses num_labels != 2 at construction.
#include <fmt/format.h>

#include "families/family.hpp"

namespace neurarch::families {
namespace distilbert_impl {
namespace {

using namespace blocks;

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config& c = in.config;
  // DistilBertConfig's attribute_map: hidden_size -> dim, num_attention_heads -> n_heads,
  // num_hidden_layers -> n_layers.
  const std::int64_t vocab = c.dim({"vocab_size"}, 30522);
  const std::int64_t max_positions = c.dim({"max_position_embeddings"}, 512);
  const std::int64_t dim = c.dim({"dim", "hidden_size"}, 768);
  const std::int64_t heads = c.dim({"n_heads", "num_attention_heads"}, 12);
  const std::int64_t layers = c.dim({"n_layers", "num_hidden_layers"}, 6);
  const std::int64_t hidden_dim = c.dim({"hidden_dim"}, 3072);
  const std::string act = c.text({"activation"}, "gelu");
  const std::int64_t pad = c.integer({"pad_token_id"}, 0);
  const std::int64_t seq = in.sequence_length(max_positions);

  Scope root = in.head == Head::Base ? Scope() : Scope("distilbert");
  Scope emb = root / "embeddings";
  auto x = b.input({seq}, "tokens");
  x = token_embedding(b, x, "Token_Embedding", emb / "word_embeddings", vocab, dim);
  if (pad >= vocab) b.fail(x, fmt::format("pad_token_id {} is not a row of the {}-token vocabulary", pad, vocab));
  const std::string word_embeddings = (emb / "word_embeddings")("weight");
  x = learned_positions(b, x, "Position_Embedding", emb / "position_embeddings", max_positions, dim);
  x = norm(b, x, "Embedding_LayerNorm", {emb / "LayerNorm"});
  const double dropout = c.number({"dropout"}, 0.1);
  const double attention_dropout = c.number({"attention_dropout"}, 0.1);
  b.at(x).dropout = dropout;

  for (std::int64_t i = 0; i < layers; ++i) {
    b.set_block(static_cast<int>(i));
    Scope l = root / "transformer" / "layer" / i;
    Scope attn = l / "attention";
    PostNormLayer layer;
    layer.attention = {.hidden = dim, .heads = heads, .module = attn, .q = attn / "q_lin", .k = attn / "k_lin",
                       .v = attn / "v_lin", .o = attn / "out_lin", .dropout = attention_dropout};
    layer.norm1 = {l / "sa_layer_norm"};
    layer.ffn = {.hidden = dim, .intermediate = hidden_dim, .activation = act, .module = l / "ffn",
                 .up = l / "ffn" / "lin1", .down = l / "ffn" / "lin2", .output_dropout = dropout};
    layer.norm2 = {l / "output_layer_norm"};
    x = post_norm_layer(b, x, i, layer);
  }
  b.set_block(-1);

  switch (in.head) {
    case Head::MaskedLM: {
      x = dense(b, x, "MLM_Transform", Scope("vocab_transform"), dim, dim, true, act);
      x = norm(b, x, "MLM_LayerNorm", {Scope("vocab_layer_norm")});
      const bool tie = c.flag({"tie_word_embeddings"}, true);
      return lm_head(b, x, "LM_Head",
                     {.module = Scope("vocab_projector"), .hidden = dim, .vocab = vocab, .bias = true,
                      .tied_weight = tie ? word_embeddings : std::string()});
    }
    case Head::SequenceClassification:
      x = pooler(b, x, "Pre_Classifier", Scope("pre_classifier"), dim, "relu");
      return classifier(b, x, "Classifier", Scope("classifier"), dim, in.num_labels(), true);
    case Head::TokenClassification:
      return classifier(b, x, "Classifier", Scope("classifier"), dim, in.num_labels(), true);
    case Head::QuestionAnswering: {
      const std::int64_t labels = in.num_labels();
      x = classifier(b, x, "QA_Outputs", Scope("qa_outputs"), dim, labels, true);
      if (labels != 2) b.fail(x, fmt::format("DistilBertForQuestionAnswering needs num_labels = 2, not {}", labels));
      return x;
    }
    default:
      return x;
  }
}

}  // namespace
}  // namespace distilbert_impl

const Family& distilbert_family() {
  static const Family family{"distilbert", "models/distilbert/modeling_distilbert.py",
                             classes("DistilBert", heads::kEncoder), distilbert_impl::build};
  return family;
}

}  // namespace neurarch::families
