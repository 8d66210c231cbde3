#include "families/t5_common.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "blocks/moe.hpp"
#include "blocks/seq2seq.hpp"
#include "families/moe_common.hpp"

namespace neurarch::families::t5 {
namespace t5_common_impl {
namespace {

using namespace blocks;

enum class EncoderAttention { Full, Local, TransientGlobal };

struct Dims {
  std::int64_t vocab = 0, d_model = 0, d_kv = 0, d_ff = 0, heads = 0;
  std::int64_t encoder_layers = 0, decoder_layers = 0, buckets = 0;
  std::string activation;
  bool gated = false;
  double dropout = 0.0;
  // LongT5
  EncoderAttention encoder_attention = EncoderAttention::Full;
  std::string encoder_attention_type;
  std::int64_t local_radius = 0, global_block_size = 0;
  // SwitchTransformers: the step that picks sparse layers (0: none), experts per sparse layer.
  std::int64_t encoder_sparse_step = 0, decoder_sparse_step = 0, experts = 0;
  bool router_bias = false;
};

// SwitchTransformersConfig derives the step from num_layers // num_sparse_*_layers (0 sparse
// layers: step 0), but a step saved in config.json is set after and wins.
std::int64_t sparse_step(const Config& c, const std::string& stack, std::int64_t layers) {
  const std::string key = stack + "_sparse_step";
  if (c.has(key)) return c.integer({key}, 0);
  const std::int64_t sparse = c.integer({"num_sparse_" + stack + "_layers"}, 3);
  return sparse > 0 ? layers / sparse : 0;
}

// Layer i is sparse when i % step == 1, or every layer when the step is 1.
bool sparse_layer(std::int64_t step, std::int64_t i) { return step > 0 && (step == 1 || i % step == 1); }

Dims read_dims(const Config& c, const Layout& layout) {
  const ConfigDefaults& def = layout.defaults;
  Dims d;
  d.vocab = c.dim({"vocab_size"}, def.vocab);
  d.d_model = c.dim({"d_model", "hidden_size"}, def.d_model);
  d.d_kv = c.dim({"d_kv"}, 64);
  d.d_ff = c.dim({"d_ff"}, def.d_ff);
  d.heads = c.dim({"num_heads", "num_attention_heads"}, def.heads);
  d.encoder_layers = c.dim({"num_layers", "num_hidden_layers"}, def.layers);
  d.decoder_layers = c.has("num_decoder_layers") ? c.dim({"num_decoder_layers"}) : d.encoder_layers;
  d.buckets = c.dim({"relative_attention_num_buckets"}, 32);
  d.dropout = c.number({"dropout_rate"}, 0.1);
  if (layout.switch_mlp) {
    // SwitchTransformersDenseActDense is the only feed-forward: feed_forward_proj and
    // is_gated_act are not read.
    d.activation = c.text({"dense_act_fn"}, "relu");
    d.gated = false;
    d.experts = c.dim({"num_experts"}, 8);
    d.router_bias = c.flag({"router_bias"}, false);
    d.encoder_sparse_step = sparse_step(c, "encoder", d.encoder_layers);
    d.decoder_sparse_step = sparse_step(c, "decoder", d.decoder_layers);
  } else {
    // The config derives the activation and gating from feed_forward_proj ("gated-gelu" means
    // gelu_new for backward compatibility), then PretrainedConfig applies any dense_act_fn or
    // is_gated_act saved in config.json on top.
    const std::string proj = c.text({"feed_forward_proj"}, std::string(def.feed_forward_proj));
    const auto dash = proj.find('-');
    const bool proj_gated = dash != std::string::npos && proj.substr(0, dash) == "gated";
    std::string proj_act = dash == std::string::npos ? proj : proj.substr(proj.rfind('-') + 1);
    if (proj == "gated-gelu") proj_act = "gelu_new";
    d.activation = c.text({"dense_act_fn"}, def.dense_act_fn.empty() ? proj_act : std::string(def.dense_act_fn));
    if (proj == "gated-gelu" && layout.gated_gelu_is_gelu_new) proj_act = "gelu_new";
    d.activation = c.text({"dense_act_fn"}, proj_act);
    d.gated = c.flag({"is_gated_act"}, proj_gated);
  }
  if (layout.long_encoder) {
    d.encoder_attention_type = c.text({"encoder_attention_type"}, "local");
    d.encoder_attention = d.encoder_attention_type == "local"              ? EncoderAttention::Local
                          : d.encoder_attention_type == "transient-global" ? EncoderAttention::TransientGlobal
                                                                           : EncoderAttention::Full;
    d.local_radius = c.integer({"local_radius"}, 127);
    d.global_block_size = c.integer({"global_block_size"}, 16);
  }
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
  /// `ids` are token ids, or the inputs_embeds themselves when `embedded` (then `shared` is the
  /// decoder's to own).
  Value encoder(const Value& ids, const std::string& shared, bool embedded) {
    const Scope stack = root_ / "encoder";
    Value x = ids;
    if (embedded) {
      b_.tied(x, (stack / "embed_tokens")("weight"), {d_.vocab, d_.d_model}, shared, graph::TensorRole::Embedding);
      b_.at(x).dropout = d_.dropout;
    } else {
      x = embed(ids, "Token_Embedding", stack, shared, true);
    }
    if (layout_.encoder_input) x = layout_.encoder_input(b_, x);
    std::optional<Value> bias, global_bias;
    if (layout_.long_encoder && d_.encoder_attention == EncoderAttention::Full)
      b_.fail(x, fmt::format("encoder_attention_type \"{}\" is neither \"local\" nor \"transient-global\": LongT5Block "
                             "raises ValueError",
                             d_.encoder_attention_type));
    for (std::int64_t i = 0; i < d_.encoder_layers; ++i) {
      b_.set_block(static_cast<int>(i));
      const Scope block = stack / "block" / i;
      const BlockNames n{i};
      if (d_.encoder_attention == EncoderAttention::Full)
        x = self_attention_layer(x, stack, n, "", i, bias);
      else
        x = blocked_self_attention_layer(x, block / "layer" / 0, n, i, bias, global_bias);
      x = ffn_layer(x, block / "layer" / 1, n, "", 2, sparse_layer(d_.encoder_sparse_step, i));
    }
    b_.set_block(-1);
    x = norm(b_, x, "Encoder_Final_RMSNorm", {stack / "final_layer_norm", NormKind::RMSNorm, false});
    b_.at(x).dropout = d_.dropout;
    return x;
  }

  Value decoder(const Value& ids, const Value& memory, const std::string& shared, bool owns_shared) {
    const Scope stack = root_ / "decoder";
    auto x = embed(ids, "Decoder_Token_Embedding", stack, shared, owns_shared);
    std::optional<Value> bias;
    for (std::int64_t i = 0; i < d_.decoder_layers; ++i) {
      b_.set_block(static_cast<int>(d_.encoder_layers + i));
      const Scope block = stack / "block" / i;
      const BlockNames n{i};
      x = self_attention_layer(x, stack, n, "Decoder_", i, bias, true);
      const Scope cross = block / "layer" / 1;
      const Scope attn = cross / "EncDecAttention";
      auto h = norm(b_, x, fmt::format("Decoder_RMSNorm_{}_2", i), {cross / "layer_norm", NormKind::RMSNorm, false});
      h = cross_attention(b_, h, memory, fmt::format("Decoder_Cross_Attention_{}", i), spec(attn, false));
      b_.at(h).attention->sdpa = false;
      x = add(b_, h, x, fmt::format("Decoder_Add_{}_2", i));
      x = ffn_layer(x, block / "layer" / 2, n, "Decoder_", 3, sparse_layer(d_.decoder_sparse_step, i));
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
    if (owns_shared) b_.parameter(x, shared, {d_.vocab, d_.d_model}, graph::TensorRole::Embedding);
    b_.tied(x, (stack / "embed_tokens")("weight"), {d_.vocab, d_.d_model}, shared, graph::TensorRole::Embedding);
    b_.at(x).dropout = d_.dropout;
    return x;
  }

  AttentionSpec spec(const Scope& attn, bool causal) const {
    return AttentionSpec{.hidden = d_.d_model, .heads = d_.heads, .head_dim = d_.d_kv, .causal = causal,
                         .module = attn, .q = attn / "q", .k = attn / "k", .v = attn / "v", .o = attn / "o",
                         .qkv_bias = false, .o_bias = false, .require_divisible = false, .dropout = d_.dropout,
                         .output_dropout = d_.dropout};
  }

  Value self_attention_layer(const Value& x, const Scope& stack, const BlockNames& n, const std::string& prefix,
                             std::int64_t i, std::optional<Value>& bias, bool causal = false) {
    const Scope layer = stack / "block" / i / "layer" / 0;
    const Scope attn = layer / "SelfAttention";
    auto h = norm(b_, x, prefix + n.norm(1, NormKind::RMSNorm), {layer / "layer_norm", NormKind::RMSNorm, false});
    if (i == 0 || layout_.bias_in_every_layer)
      bias = relative_position_bias(b_, h, prefix + fmt::format("Relative_Position_Bias_{}", i),
                                    {attn / "relative_attention_bias", d_.buckets, d_.heads});
    if (i == 0 && layout_.stack_bias) bias = layout_.stack_bias(b_, *bias, stack, causal);
    h = attention(b_, h, prefix + n.attention(), spec(attn, causal));
    b_.at(h).attention->sdpa = false;
    add_score_bias(b_, h, *bias);
    return add(b_, h, x, prefix + n.add(1));
  }

  // LongT5's encoder attention. The sequence is cut into blocks of local_radius + 1 queries; each
  // block scores its own and both neighbouring blocks (3 x block keys, masked to the radius), and
  // transient-global adds one key per global_block_size tokens: the sum of that span, RMS-normed
  // by global_input_layer_norm. The node says so with query_len = one block and kv_len = the keys
  // a block scores, so the planners count (tokens / block) x heads x block x keys scores. The rows
  // that pad the last block are not counted, and the k/v projections of the summary tokens
  // (seq / global_block_size of them) are not charged.
  Value blocked_self_attention_layer(const Value& x, const Scope& layer, const BlockNames& n, std::int64_t i,
                                     std::optional<Value>& bias, std::optional<Value>& global_bias) {
    const bool global = d_.encoder_attention == EncoderAttention::TransientGlobal;
    const Scope attn = layer / (global ? "TransientGlobalSelfAttention" : "LocalSelfAttention");
    auto h = norm(b_, x, n.norm(1, NormKind::RMSNorm), {layer / "layer_norm", NormKind::RMSNorm, false});
    const std::int64_t seq = h.shape.size() >= 2 ? h.shape[h.shape.size() - 2] : 1;
    const std::int64_t block = std::max<std::int64_t>(d_.local_radius + 1, 1);
    const std::int64_t blocks = (seq + block - 1) / block;
    const std::int64_t summaries = global && d_.global_block_size > 0 ? seq / d_.global_block_size : 0;
    if (i == 0) {
      bias = relative_position_bias(b_, h, fmt::format("Relative_Position_Bias_{}", i),
                                    {attn / "relative_attention_bias", d_.buckets, d_.heads, block, 3 * block});
      if (global)
        global_bias = relative_position_bias(b_, h, fmt::format("Global_Relative_Position_Bias_{}", i),
                                             {attn / "global_relative_attention_bias", d_.buckets, d_.heads, seq,
                                              std::max<std::int64_t>(summaries, 1)});
    }
    h = attention(b_, h, n.attention(), spec(attn, false));
    // Set after the block so the one note below explains every layer's window.
    auto& at = *b_.at(h).attention;
    at.window = 2 * d_.local_radius + 1;
    at.sdpa = false;
    at.query_len = std::max<std::int64_t>(seq / std::max<std::int64_t>(blocks, 1), 1);
    at.kv_len = 3 * block + summaries;
    if (global) b_.parameter(h, (attn / "global_input_layer_norm")("weight"), {d_.d_model}, graph::TensorRole::Norm);
    if (bias) add_score_bias(b_, h, *bias);
    if (global_bias) add_score_bias(b_, h, *global_bias);
    if (i == 0) {
      if (d_.local_radius < 0)
        b_.fail(h, fmt::format("local_radius {} leaves no block to attend within", d_.local_radius));
      if (global && d_.global_block_size <= 0)
        b_.fail(h, fmt::format("global_block_size {} cannot cut the sequence into summary blocks",
                               d_.global_block_size));
      b_.note(fmt::format("LongT5 {} attention: {} block(s) of {} queries each score {} keys{}; the score matrices "
                          "are counted per block, not as {} x {}",
                          d_.encoder_attention_type, blocks, block, 3 * block + summaries,
                          global ? fmt::format(" ({} of them summaries of {}-token spans)", summaries,
                                               d_.global_block_size)
                                 : std::string(),
                          seq, seq));
    }
    return add(b_, h, x, n.add(1));
  }

  Value ffn_layer(const Value& x, const Scope& layer, const BlockNames& n, const std::string& prefix, int k,
                  bool sparse) {
    const Scope ff = layer / (layout_.switch_mlp ? "mlp" : "DenseReluDense");
    auto h = norm(b_, x, prefix + n.norm(k, NormKind::RMSNorm), {layer / "layer_norm", NormKind::RMSNorm, false});
    if (sparse) {
      // Top-1 routing with a capacity per expert (expert_capacity): overflow tokens skip the
      // layer, which the planner's top_k / experts share of the work does not model.
      MoESpec m{.hidden = d_.d_model, .intermediate = d_.d_ff, .experts = d_.experts, .top_k = 1,
                .activation = d_.activation, .gated = false, .module = ff, .router = ff / "router" / "classifier",
                .router_bias = d_.router_bias, .experts_module = ff / "experts", .expert_prefix = "expert_",
                .up = "wi", .down = "wo"};
      h = mixture_of_experts(b_, h, prefix + moe::node_name(n.i), m);
      b_.at(h).dropout = d_.dropout;
      return add(b_, h, x, prefix + n.add(k));
    }
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
}  // namespace t5_common_impl
using namespace t5_common_impl;

Value build(const BuildInput& in, GraphBuilder& b, const Layout& layout) {
  const Config& c = in.config;
  const t5_common_impl::Dims d = t5_common_impl::read_dims(c, layout);
  const bool tie = layout.always_tied || c.flag({"tie_word_embeddings"}, layout.defaults.tie_word_embeddings);
  // Sequence classification and token classification wrap the model as `transformer`; the
  // LM and QA classes own shared/encoder/decoder themselves.
  const bool wrapped = in.head == Head::SequenceClassification || in.head == Head::TokenClassification;
  const Scope root = wrapped ? Scope("transformer") : Scope();
  const std::string shared = root("shared.weight");
  t5_common_impl::StackBuilder stacks(b, d, layout, root);

  // Relative positions let T5 run longer than it was pre-trained on, so a config's n_positions
  // (written by old exports) is a default, never a limit.
  const std::int64_t source = in.sequence_length(c.dim({"n_positions"}, layout.defaults.pretraining_length));
  const bool embedded = layout.encoder_embeds != nullptr;
  auto ids = embedded ? layout.encoder_embeds(in, b, source, d.d_model) : b.input({source}, "tokens");
  auto memory = stacks.encoder(ids, shared, embedded);

  if (t5_common_impl::encoder_only(in)) {
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
  auto x = stacks.decoder(target_ids, memory, shared, embedded);

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
