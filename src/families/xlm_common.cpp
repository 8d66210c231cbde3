#include "families/xlm_common.hpp"

#include <fmt/format.h>

#include "families/bert_common.hpp"

namespace neurarch::families::xlm {
namespace xlm_common_impl {
namespace {

using namespace blocks;

/// SequenceSummary: one vector per sequence (summary_type), projected to the labels or to the hidden width.
Value sequence_summary(const BuildInput& in, GraphBuilder& b, const Value& x, std::int64_t dim) {
  const Config& c = in.config;
  const std::string type = c.text({"summary_type"}, "first");
  const Scope module = Scope("sequence_summary") / "summary";
  if (type == "attn") {
    b.fail(x, "summary_type \"attn\": SequenceSummary raises NotImplementedError");
    return x;
  }
  if (!c.flag({"summary_use_proj"}, true)) {
    b.fail(x, "summary_use_proj false: the summary is the hidden state itself, and the classifier has no weights");
    return x;
  }
  const std::int64_t labels = in.num_labels();
  const std::int64_t out_dim = c.flag({"summary_proj_to_labels"}, true) && labels > 0 ? labels : dim;
  auto out = b.node(graph::NodeType::Classifier, "Sequence_Summary", {out_dim}, {x}, module);
  b.at(out).activation = c.text({"summary_activation"}, "");
  linear_tensors(b, out, module, dim, out_dim, true);
  if (out_dim != labels)
    b.note(fmt::format("summary_proj_to_labels false: the summary projects to {} features, which the loss reads as "
                       "logits of {} labels",
                       out_dim, labels));
  return out;
}

}  // namespace
}  // namespace xlm_common_impl
using namespace xlm_common_impl;

Value build(const BuildInput& in, GraphBuilder& b, const Options& options) {
  const Config& c = in.config;
  const std::int64_t dim = c.dim({"emb_dim", "hidden_size"}, 2048);
  const std::int64_t heads = c.dim({"n_heads", "num_attention_heads"}, 16);
  const std::int64_t layers = c.dim({"n_layers", "num_hidden_layers"}, 12);
  const std::int64_t vocab = c.dim({"vocab_size", "n_words"}, 30145);
  const std::int64_t positions = c.dim({"max_position_embeddings"}, 512);
  const std::int64_t langs = c.dim({"n_langs"}, 1);
  const double dropout = c.number({"dropout"}, 0.1);
  const double attention_dropout = c.number({"attention_dropout"}, 0.1);
  const std::string activation = c.flag({"gelu_activation"}, true) ? "gelu" : "relu";
  const bool causal = c.flag({"causal"}, false);
  const bool pre_norm = options.pre_norm_key && c.flag({"pre_norm"}, false);
  const std::int64_t seq = in.sequence_length(positions);
  const Scope root = in.head == Head::Base ? Scope() : Scope("transformer");

  auto x = b.input({seq}, "tokens");
  x = token_embedding(b, x, "Token_Embedding", root / "embeddings", vocab, dim);
  const std::string word_embeddings = (root / "embeddings")("weight");
  x = learned_positions(b, x, "Position_Embedding", root / "position_embeddings", positions, dim);
  // The sinusoid table is a parameter with requires_grad off.
  if (c.flag({"sinusoidal_embeddings"}, false)) b.freeze(x);
  if (langs > 1 && c.flag({"use_lang_emb"}, true))
    x = added_embedding(b, x, "Language_Embedding", root / "lang_embeddings", langs, dim);
  x = norm(b, x, "Embedding_LayerNorm", {root / "layer_norm_emb"});
  b.at(x).dropout = dropout;
  if (!c.flag({"is_encoder"}, true)) b.fail(x, "is_encoder false: XLM can only be used as an encoder");
  if (pre_norm) b.note("pre_norm: FlauBERT normalises before each sublayer and leaves the last output unnormalised");

  for (std::int64_t i = 0; i < layers; ++i) {
    b.set_block(static_cast<int>(i));
    BlockNames names{i};
    const Scope attn = root / "attentions" / i;
    const Scope norm1 = root / "layer_norm1" / i;
    const Scope norm2 = root / "layer_norm2" / i;
    Value h = pre_norm ? norm(b, x, names.norm(1, NormKind::LayerNorm), {norm1}) : x;
    auto a = attention(b, h, names.attention(),
                       {.hidden = dim, .heads = heads, .causal = causal, .module = attn, .q = attn / "q_lin",
                        .k = attn / "k_lin", .v = attn / "v_lin", .o = attn / "out_lin", .dropout = attention_dropout,
                        .output_dropout = dropout});
    b.at(a).attention->sdpa = false;
    x = add(b, a, x, names.add(1));
    if (!pre_norm) x = norm(b, x, names.norm(1, NormKind::LayerNorm), {norm1});
    h = pre_norm ? norm(b, x, names.norm(2, NormKind::LayerNorm), {norm2}) : x;
    const Scope ffn = root / "ffns" / i;
    auto f = feed_forward(b, h, names.ffn(),
                          {.hidden = dim, .intermediate = 4 * dim, .activation = activation, .module = ffn,
                           .up = ffn / "lin1", .down = ffn / "lin2", .output_dropout = dropout});
    x = add(b, f, x, names.add(2));
    if (!pre_norm) x = norm(b, x, names.norm(2, NormKind::LayerNorm), {norm2});
  }
  b.set_block(-1);

  switch (in.head) {
    case Head::CausalLM:
    case Head::MaskedLM: {
      if (c.flag({"asm"}, false)) {
        b.fail(x, "asm: the adaptive-softmax prediction layer (AdaptiveLogSoftmaxWithLoss) is not modelled");
        return x;
      }
      const bool tie = c.flag({"tie_word_embeddings"}, true);
      return lm_head(b, x, "LM_Head",
                     {.module = Scope("pred_layer") / "proj", .hidden = dim, .vocab = vocab, .bias = true,
                      .tied_weight = tie ? word_embeddings : std::string()});
    }
    case Head::SequenceClassification:
      return xlm_common_impl::sequence_summary(in, b, x, dim);
    case Head::TokenClassification:
      return classifier(b, x, "Classifier", Scope("classifier"), dim, in.num_labels(), true);
    case Head::QuestionAnswering:
      return bert::qa_head(b, x, dim, in.num_labels());
    default:
      return x;
  }
}

}  // namespace neurarch::families::xlm
