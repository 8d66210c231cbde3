// Funnel Transformer (models/funnel/modeling_funnel.py + configuration_funnel.py, transformers
// 4.47.1). Word embeddings only (positions are relative and sinusoidal, so any length runs); blocks
// of block_sizes[b] post-norm layers, each layer repeated block_repeats[b] times with the same
// weights. Every block after the first starts by pooling the sequence by 2 (mean/max over pairs,
// keeping the CLS token apart under separate_cls and dropping the last token under truncate_seq);
// with pool_q_only only the queries are pooled and the first attention reads the unpooled keys.
// FunnelModel then upsamples the last block's output back to full length, adds the first block's
// output and runs num_decoder_layers more layers; FunnelBaseModel (sequence classification) stops
// after the encoder. Attention: q_head (no bias), k_head, v_head, post_proj, and the relative
// position / token-type terms r_w_bias, r_r_bias, r_kernel [d_model, heads, d_head], r_s_bias,
// seg_embed [2, heads, d_head].
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "families/config_lists.hpp"
#include "families/family.hpp"
#include "families/shared_parameters.hpp"

namespace neurarch::families {
namespace funnel_impl {
namespace {

using namespace blocks;
using graph::NodeType;

/// The length the published checkpoints were pretrained at; the model itself has no position limit.
constexpr std::int64_t kPretrainedLength = 512;

struct FunnelDims {
  std::int64_t d_model = 0;
  std::int64_t heads = 0;
  std::int64_t d_head = 0;
  std::int64_t d_inner = 0;
  std::string activation;
  bool separate_cls = true;
  bool truncate_seq = true;
  bool pool_q_only = true;
  double hidden_dropout = 0.1;
  double attention_dropout = 0.1;
};

/// pool_tensor's output length: [cls] + tokens (minus the last when truncating), then a ceil-mode
/// window of 2.
std::int64_t pooled_length(std::int64_t len, const FunnelDims& d) {
  const std::int64_t padded = d.separate_cls && !d.truncate_seq ? len + 1 : len;
  return (padded + 1) / 2;
}

class LayerBuilder {
 public:
  LayerBuilder(GraphBuilder& b, const FunnelDims& d) : b_(b), d_(d), shared_(b) {}

  /// FunnelLayer: layer_norm(query + attention(query, kv)), then layer_norm(h + ffn(h)).
  Value layer(const Value& query, const Value& kv, const Scope& l) {
    const std::string tag = std::to_string(count_);
    b_.set_block(count_++);
    const Scope attn = l / "attention";
    const std::int64_t q_len = query.shape.front(), kv_len = kv.shape.front();
    const std::int64_t inner = d_.heads * d_.d_head;
    auto a = b_.node(NodeType::MultiHeadAttention, "Attention_" + tag, query.shape, {query, kv}, attn);
    b_.at(a).attention = graph::AttentionAttrs{.heads = d_.heads, .kv_heads = d_.heads, .head_dim = d_.d_head,
                                               .query_len = q_len, .kv_len = kv_len,
                                               .dropout = d_.attention_dropout};
    b_.at(a).dropout = d_.hidden_dropout;
    shared_.linear(a, attn / "q_head", d_.d_model, inner, false);
    shared_.linear(a, attn / "k_head", d_.d_model, inner);
    shared_.linear(a, attn / "v_head", d_.d_model, inner);
    for (const char* bias : {"r_w_bias", "r_r_bias"}) shared_(a, attn(bias), {d_.heads, d_.d_head}, graph::TensorRole::Other);
    shared_(a, attn("r_kernel"), {d_.d_model, d_.heads, d_.d_head}, graph::TensorRole::Other);
    shared_(a, attn("r_s_bias"), {d_.heads, d_.d_head}, graph::TensorRole::Other);
    shared_(a, attn("seg_embed"), {2, d_.heads, d_.d_head}, graph::TensorRole::Embedding);
    shared_.linear(a, attn / "post_proj", inner, d_.d_model, true, graph::Operand::Inner);
    auto h = shared_.layer_norm(add(b_, a, query, "Add_" + tag + "_1"), "LayerNorm_" + tag + "_1",
                                attn / "layer_norm");

    const Scope ffn = l / "ffn";
    auto f = b_.node(NodeType::FeedForward, "FFN_" + tag, h.shape, {h}, ffn);
    b_.at(f).feed_forward = graph::FeedForwardAttrs{d_.d_model, d_.d_inner, d_.activation, false};
    b_.at(f).dropout = d_.hidden_dropout;
    shared_.linear(f, ffn / "linear_1", d_.d_model, d_.d_inner);
    shared_.linear(f, ffn / "linear_2", d_.d_inner, d_.d_model, true, graph::Operand::Inner);
    return shared_.layer_norm(add(b_, f, h, "Add_" + tag + "_2"), "LayerNorm_" + tag + "_2", ffn / "layer_norm");
  }

 private:
  GraphBuilder& b_;
  const FunnelDims& d_;
  SharedParameters shared_;
  int count_ = 0;
};

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config& c = in.config;
  FunnelDims d{.d_model = c.dim({"d_model", "hidden_size"}, 768),
               .heads = c.dim({"n_head", "num_attention_heads"}, 12),
               .d_head = c.dim({"d_head"}, 64),
               .d_inner = c.dim({"d_inner"}, 3072),
               .activation = c.text({"hidden_act"}, "gelu_new"),
               .separate_cls = c.flag({"separate_cls"}, true),
               .truncate_seq = c.flag({"truncate_seq"}, true),
               .pool_q_only = c.flag({"pool_q_only"}, true),
               .hidden_dropout = c.number({"hidden_dropout"}, 0.1),
               .attention_dropout = c.number({"attention_dropout"}, 0.1)};
  const std::int64_t vocab = c.dim({"vocab_size"}, 30522);
  const auto sizes = size_list(c, "block_sizes", {4, 4, 4});
  // FunnelConfig: block_repeats None means once per block.
  const auto* stated_repeats = c.raw({"block_repeats"});
  const auto repeats = stated_repeats && !stated_repeats->is_null() ? size_list(c, "block_repeats", {})
                                                                    : std::vector<std::int64_t>(sizes.size(), 1);
  const std::int64_t decoder_layers = c.integer({"num_decoder_layers"}, 2);
  const std::string pooling = c.text({"pooling_type"}, "mean");
  const std::string attention_type = c.text({"attention_type"}, "relative_shift");

  // Sequence classification is built on FunnelBaseModel: the encoder without the decoder.
  const bool encoder_only = in.class_name == "FunnelBaseModel" || in.head == Head::SequenceClassification;
  const Scope root = in.head == Head::Base ? Scope() : Scope("funnel");
  auto x = b.input({in.sequence_length(kPretrainedLength)}, "tokens");
  x = token_embedding(b, x, "Token_Embedding", root / "embeddings" / "word_embeddings", vocab, d.d_model);
  x = norm(b, x, "Embedding_LayerNorm", {root / "embeddings" / "layer_norm"});
  b.at(x).dropout = d.hidden_dropout;
  if (sizes.size() != repeats.size())
    b.fail(x, fmt::format("block_repeats has {} entries for {} blocks", repeats.size(), sizes.size()));
  if (pooling != "mean" && pooling != "max")
    b.fail(x, fmt::format("pooling_type '{}' is neither mean nor max", pooling));
  if (attention_type != "relative_shift" && attention_type != "factorized")
    b.fail(x, fmt::format("attention_type '{}' is neither relative_shift nor factorized", attention_type));

  LayerBuilder layers(b, d);
  Value first_block = x;
  for (std::size_t block = 0; block < sizes.size(); ++block) {
    const std::int64_t len = x.shape.front();
    const bool pool = block > 0 && len > (d.separate_cls ? 2 : 1);
    Value pooled = x;
    if (pool) {
      b.set_block(-1);
      pooled = b.node(NodeType::Pooler, fmt::format("Pool_{}", block), {pooled_length(len, d), d.d_model}, {x});
    }
    const std::int64_t repeat = block < repeats.size() ? repeats[block] : 1;
    for (std::int64_t l = 0; l < sizes[block]; ++l)
      for (std::int64_t r = 0; r < repeat; ++r) {
        const Scope scope = root / "encoder" / "blocks" / static_cast<std::int64_t>(block) / l;
        if (pool && l == 0 && r == 0)
          x = layers.layer(pooled, d.pool_q_only ? x : pooled, scope);
        else
          x = layers.layer(x, x, scope);
      }
    if (block == 0) first_block = x;
  }

  if (!encoder_only) {
    // Repeat each pooled position back to full length and add the first block's output.
    b.set_block(-1);
    x = b.node(NodeType::Add, "Upsample_Add", first_block.shape, {x, first_block});
    for (std::int64_t i = 0; i < decoder_layers; ++i) x = layers.layer(x, x, root / "decoder" / "layers" / i);
  }
  b.set_block(-1);

  switch (in.head) {
    case Head::MaskedLM: {
      const bool tie = c.flag({"tie_word_embeddings"}, true);
      LmHeadSpec spec{.module = Scope("lm_head"), .hidden = d.d_model, .vocab = vocab, .bias = true};
      if (tie) spec.tied_weight = (root / "embeddings" / "word_embeddings")("weight");
      return lm_head(b, x, "LM_Head", spec);
    }
    case Head::PreTraining: {
      const Scope disc("discriminator_predictions");
      auto h = dense(b, x, "Discriminator_Transform", disc / "dense", d.d_model, d.d_model, true, d.activation);
      auto out = b.node(NodeType::Classifier, "Discriminator_Head", {x.shape.front()}, {h}, disc / "dense_prediction");
      linear_tensors(b, out, disc / "dense_prediction", d.d_model, 1, true);
      return out;
    }
    case Head::SequenceClassification: {
      auto first = pooler(b, x, "Classifier_Dense", Scope("classifier") / "linear_hidden", d.d_model, "tanh");
      return classifier(b, first, "Classifier", Scope("classifier") / "linear_out", d.d_model, in.num_labels(), true);
    }
    case Head::TokenClassification:
      return classifier(b, x, "Classifier", Scope("classifier"), d.d_model, in.num_labels(), true);
    case Head::QuestionAnswering:
      return classifier(b, x, "QA_Outputs", Scope("qa_outputs"), d.d_model, in.num_labels(), true);
    default:
      return x;
  }
}

}  // namespace
}  // namespace funnel_impl

const Family& funnel_family() {
  static const Family family{"funnel", "models/funnel/modeling_funnel.py",
                             classes("Funnel", {{"BaseModel", Head::Base}, heads::ForPreTraining, heads::ForMaskedLM, heads::ForSequenceClassification, heads::ForTokenClassification, heads::ForQuestionAnswering}),
                             funnel_impl::build};
  return family;
}

}  // namespace neurarch::families
