#include "families/t5_common.hpp"

#include <fmt/format.h>

#include "blocks/seq2seq.hpp"

namespace neurarch::families::t5 {
namespace {

using namespace blocks;

// T5 was pre-trained on 512-token inputs; relative positions let it run longer, so a config's
// n_positions (written by old exports) is a default, never a limit.
constexpr std::int64_t kPretrainingLength = 512;

struct Dims {
  std::int64_t vocab = 0, d_model = 0, d_kv = 0, d_ff = 0, heads = 0;
  std::int64_t encoder_layers = 0, decoder_layers = 0, buckets = 0;
  std::string activation;
  bool gated = false;
  double dropout = 0.0;
};

Dims read_dims(const Config& c, const ConfigDefaults& def) {
  Dims d;
  d.vocab = c.dim({"vocab_size"}, def.vocab);
  d.d_model = c.dim({"d_model", "hidden_size"}, 512);
  d.d_kv = c.dim({"d_kv"}, 64);
  d.d_ff = c.dim({"d_ff"}, def.d_ff);
  d.heads = c.dim({"num_heads", "num_attention_heads"}, def.heads);
  d.encoder_layers = c.dim({"num_layers", "num_hidden_layers"}, def.layers);
  d.decoder_layers = c.has("num_decoder_layers") ? c.dim({"num_decoder_layers"}) : d.encoder_layers;
  d.buckets = c.dim({"relative_attention_num_buckets"}, 32);
  d.dropout = c.number({"dropout_rate"}, 0.1);
  // The config derives the activation and gating from feed_forward_proj ("gated-gelu" means
  // gelu_new for backward compatibility), then PretrainedConfig applies any dense_act_fn or
  // is_gated_act saved in config.json on top.
  const std::string proj = c.text({"feed_forward_proj"}, std::string(def.feed_forward_proj));
  const auto dash = proj.find('-');
  const bool proj_gated = dash != std::string::npos && proj.substr(0, dash) == "gated";
  std::string proj_act = dash == std::string::npos ? proj : proj.substr(proj.rfind('-') + 1);
  if (proj == "gated-gelu") proj_act = "gelu_new";
  d.activation = c.text({"dense_act_fn"}, proj_act);
  d.gated = c.flag({"is_gated_act"}, proj_gated);
  return d;
}

struct Stack {
  Value out;
  std::string shared;  ///< the token table every embedding aliases
};

class StackBuilder {
 public:
  StackBuilder(GraphBuilder& b, const Dims& d, const Layout& layout, Scope root)
      : b_(b), d_(d), layout_(layout), root_(std::move(root)) {}

  /// Block indices continue across stacks so that checkpointing and splits see every block.
  Value encoder(const Value& ids, const std::string& shared, bool owns_shared) {
    const Scope stack = root_ / "encoder";
    auto x = embed(ids, "Token_Embedding", stack, shared, owns_shared);
    std::optional<Value> bias;
    for (std::int64_t i = 0; i < d_.encoder_layers; ++i) {
      b_.set_block(static_cast<int>(i));
      const Scope block = stack / "block" / i;
      const BlockNames n{i};
      x = self_attention_layer(x, block / "layer" / 0, n, "", i, bias);
      x = ffn_layer(x, block / "layer" / 1, n, "", 2);
    }
    b_.set_block(-1);
    x = norm(b_, x, "Encoder_Final_RMSNorm", {stack / "final_layer_norm", NormKind::RMSNorm, false});
    b_.at(x).dropout = d_.dropout;
    return x;
  }

  Value decoder(const Value& ids, const Value& memory, const std::string& shared) {
    const Scope stack = root_ / "decoder";
    auto x = embed(ids, "Decoder_Token_Embedding", stack, shared, false);
    std::optional<Value> bias;
    for (std::int64_t i = 0; i < d_.decoder_layers; ++i) {
      b_.set_block(static_cast<int>(d_.encoder_layers + i));
      const Scope block = stack / "block" / i;
      const BlockNames n{i};
      x = self_attention_layer(x, block / "layer" / 0, n, "Decoder_", i, bias, true);
      const Scope cross = block / "layer" / 1;
      const Scope attn = cross / "EncDecAttention";
      auto h = norm(b_, x, fmt::format("Decoder_RMSNorm_{}_2", i), {cross / "layer_norm", NormKind::RMSNorm, false});
      h = cross_attention(b_, h, memory, fmt::format("Decoder_Cross_Attention_{}", i), spec(attn, false));
      b_.at(h).attention->sdpa = false;
      x = add(b_, h, x, fmt::format("Decoder_Add_{}_2", i));
      x = ffn_layer(x, block / "layer" / 2, n, "Decoder_", 3);
    }
    b_.set_block(-1);
    x = norm(b_, x, "Decoder_Final_RMSNorm", {stack / "final_layer_norm", NormKind::RMSNorm, false});
    b_.at(x).dropout = d_.dropout;
    return x;
  }

 private:
  Value embed(const Value& ids, const std::string& name, const Scope& stack, const std::string& shared,
              bool owns_shared) {
    Shape shape = ids.shape;
    shape.push_back(d_.d_model);
    auto x = b_.node(graph::NodeType::Embedding, name, shape, {ids}, Scope(shared.substr(0, shared.rfind('.'))));
    if (owns_shared) b_.parameter(x, shared, {d_.vocab, d_.d_model});
    b_.tied(x, (stack / "embed_tokens")("weight"), {d_.vocab, d_.d_model}, shared);
    b_.at(x).dropout = d_.dropout;
    return x;
  }

  AttentionSpec spec(const Scope& attn, bool causal) const {
    return AttentionSpec{.hidden = d_.d_model, .heads = d_.heads, .head_dim = d_.d_kv, .causal = causal,
                         .module = attn, .q = attn / "q", .k = attn / "k", .v = attn / "v", .o = attn / "o",
                         .qkv_bias = false, .o_bias = false, .require_divisible = false, .dropout = d_.dropout,
                         .output_dropout = d_.dropout};
  }

  Value self_attention_layer(const Value& x, const Scope& layer, const BlockNames& n, const std::string& prefix,
                             std::int64_t i, std::optional<Value>& bias, bool causal = false) {
    const Scope attn = layer / "SelfAttention";
    auto h = norm(b_, x, prefix + n.norm(1, NormKind::RMSNorm), {layer / "layer_norm", NormKind::RMSNorm, false});
    if (i == 0 || layout_.bias_in_every_layer)
      bias = relative_position_bias(b_, h, prefix + fmt::format("Relative_Position_Bias_{}", i),
                                    {attn / "relative_attention_bias", d_.buckets, d_.heads});
    h = attention(b_, h, prefix + n.attention(), spec(attn, causal));
    b_.at(h).attention->sdpa = false;
    add_score_bias(b_, h, *bias);
    return add(b_, h, x, prefix + n.add(1));
  }

  Value ffn_layer(const Value& x, const Scope& layer, const BlockNames& n, const std::string& prefix, int k) {
    const Scope ff = layer / "DenseReluDense";
    auto h = norm(b_, x, prefix + n.norm(k, NormKind::RMSNorm), {layer / "layer_norm", NormKind::RMSNorm, false});
    FeedForwardSpec f{.hidden = d_.d_model, .intermediate = d_.d_ff, .activation = d_.activation, .gated = d_.gated,
                      .module = ff, .up = ff / (d_.gated ? "wi_1" : "wi"), .down = ff / "wo", .gate = ff / "wi_0",
                      .bias = false, .down_bias = false, .output_dropout = d_.dropout, .inner_dropout = d_.dropout};
    h = feed_forward(b_, h, prefix + n.ffn(), f);
    return add(b_, h, x, prefix + n.add(k));
  }

  GraphBuilder& b_;
  const Dims& d_;
  const Layout& layout_;
  Scope root_;
};

bool encoder_only(const BuildInput& in) {
  return in.class_name.ends_with("EncoderModel") || in.head == Head::TokenClassification;
}

}  // namespace

Value build(const BuildInput& in, GraphBuilder& b, const Layout& layout) {
  const Config& c = in.config;
  const Dims d = read_dims(c, layout.defaults);
  const bool tie = c.flag({"tie_word_embeddings"}, layout.defaults.tie_word_embeddings);
  // Sequence classification and token classification wrap the model as `transformer`; the
  // LM and QA classes own shared/encoder/decoder themselves.
  const bool wrapped = in.head == Head::SequenceClassification || in.head == Head::TokenClassification;
  const Scope root = wrapped ? Scope("transformer") : Scope();
  const std::string shared = root("shared.weight");
  StackBuilder stacks(b, d, layout, root);

  const std::int64_t source = in.sequence_length(c.dim({"n_positions"}, kPretrainingLength));
  auto ids = b.input({source}, "tokens");
  auto memory = stacks.encoder(ids, shared, true);

  if (encoder_only(in)) {
    if (in.head == Head::TokenClassification) {
      b.at(memory).dropout = c.number({"classifier_dropout"}, 0.0);
      return classifier(b, memory, "Classifier", Scope("classifier"), d.d_model, in.num_labels(), true);
    }
    return memory;
  }

  // Sequence classification and QA feed the source shifted right to the decoder, so the target
  // length is the source's whatever --target-seq says.
  std::int64_t target = in.target_length(source);
  if (in.head == Head::SequenceClassification || in.head == Head::QuestionAnswering) {
    if (in.requested_target_seq && *in.requested_target_seq != source)
      b.note(fmt::format("{} decodes the source shifted right: the target length is the source's {}, not {}",
                         in.class_name, source, *in.requested_target_seq));
    target = source;
  }
  auto target_ids = b.input({target}, "tokens", "decoder_input_ids");
  auto x = stacks.decoder(target_ids, memory, shared);

  switch (in.head) {
    case Head::Seq2SeqLM: {
      // A tied head rescales the decoder output by d_model^-0.5 first (no tensor of its own).
      LmHeadSpec head{.module = Scope("lm_head"), .hidden = d.d_model, .vocab = d.vocab};
      if (tie) head.tied_weight = shared;
      return lm_head(b, x, "LM_Head", head);
    }
    case Head::SequenceClassification: {
      // The head reads the decoder state at the last <eos> and runs dense -> tanh -> out_proj.
      auto pooled = pooler(b, x, "Classifier_Dense", Scope("classification_head") / "dense", d.d_model, "tanh");
      return classifier(b, pooled, "Classifier", Scope("classification_head") / "out_proj", d.d_model,
                        in.num_labels(), true);
    }
    case Head::QuestionAnswering: {
      const std::int64_t labels = in.num_labels();
      auto out = classifier(b, x, "QA_Outputs", Scope("qa_outputs"), d.d_model, labels, true);
      if (labels != 2)
        b.fail(out, fmt::format("the QA head splits its {} outputs into start and end logits; it needs num_labels = 2",
                                labels));
      return out;
    }
    default:
      return x;
  }
}

}  // namespace neurarch::families::t5
