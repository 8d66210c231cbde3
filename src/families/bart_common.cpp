#include "families/bart_common.hpp"

#include <fmt/format.h>

#include "blocks/seq2seq.hpp"

namespace neurarch::families::bart {
namespace {

using namespace blocks;

struct StackDims {
  std::int64_t layers = 0, heads = 0, ffn = 0;
};

struct Dims {
  std::int64_t vocab = 0, d_model = 0, max_positions = 0, pad = 0;
  std::int64_t decoder_vocab = 0;  ///< rows of a decoder built alone (Marian's decoder_vocab_size)
  std::int64_t lm_vocab = 0;       ///< the LM head's outputs
  StackDims encoder, decoder;
  std::string activation;
  double dropout = 0, attention_dropout = 0, activation_dropout = 0;
  bool shared_embeddings = true;  ///< one `shared` table for both stacks
};

Dims read_dims(const Config& c, const Layout& layout) {
  const ConfigDefaults& def = layout.defaults;
  Dims d;
  d.vocab = c.dim({"vocab_size"}, def.vocab);
  d.d_model = c.dim({"d_model", "hidden_size"}, 1024);
  d.max_positions = c.dim({"max_position_embeddings"}, 1024);
  d.pad = c.integer({"pad_token_id"}, def.pad);
  d.encoder = {c.dim({"encoder_layers", "num_hidden_layers"}, 12), c.dim({"encoder_attention_heads", "num_attention_heads"}, 16),
               c.dim({"encoder_ffn_dim"}, 4096)};
  d.decoder = {c.dim({"decoder_layers"}, 12), c.dim({"decoder_attention_heads"}, 16), c.dim({"decoder_ffn_dim"}, 4096)};
  d.activation = c.text({"activation_function"}, std::string(def.activation));
  d.dropout = c.number({"dropout"}, 0.1);
  d.attention_dropout = c.number({"attention_dropout"}, 0.0);
  d.activation_dropout = c.number({"activation_dropout"}, 0.0);
  d.decoder_vocab = d.lm_vocab = d.vocab;
  if (layout.marian_vocab) {
    d.shared_embeddings = c.flag({"share_encoder_decoder_embeddings"}, true);
    d.decoder_vocab = c.has("decoder_vocab_size") ? c.dim({"decoder_vocab_size"}) : d.vocab;
    if (!d.shared_embeddings) d.lm_vocab = d.decoder_vocab;
  }
  return d;
}

class StackBuilder {
 public:
  StackBuilder(const BuildInput& in, GraphBuilder& b, const Dims& d, const Layout& layout)
      : in_(in), b_(b), d_(d), layout_(layout) {}

  /// Token embedding (owning or aliasing the table), positions, layernorm_embedding.
  Value embed(const Value& ids, const std::string& prefix, const Scope& stack, const std::string& table,
              bool owns_table, std::int64_t rows) {
    Shape shape = ids.shape;
    shape.push_back(d_.d_model);
    auto x = b_.node(graph::NodeType::Embedding, prefix + "Token_Embedding", shape, {ids},
                     Scope(table.substr(0, table.rfind('.'))));
    const std::string own = (stack / "embed_tokens")("weight");
    if (owns_table) b_.parameter(x, table, {rows, d_.d_model});
    if (own != table) b_.tied(x, own, {rows, d_.d_model}, table);
    if (d_.pad >= rows) b_.fail(x, fmt::format("pad_token_id {} is not a row of the {}-token vocabulary", d_.pad, rows));

    const Scope positions = stack / "embed_positions";
    switch (layout_.positions) {
      case Positions::Learned:
        x = learned_positions(b_, x, prefix + "Position_Embedding", positions,
                              d_.max_positions + layout_.position_offset, d_.d_model, layout_.position_offset);
        break;
      case Positions::SinusoidStored:
        // A fixed table looked up by position: requires_grad is off, but a longer sequence has no row.
        if (in_.head == Head::Seq2SeqLM && layout_.lm_drops_positions) {
          x = b_.node(graph::NodeType::LearnedPosEmbed, prefix + "Sinusoidal_Position_Embedding", x.shape, {x},
                      positions);
          if (x.shape.size() >= 2 && x.shape[x.shape.size() - 2] > d_.max_positions)
            b_.fail(x, fmt::format("requested sequence {} exceeds the {} rows of the sinusoidal position table",
                                   x.shape[x.shape.size() - 2], d_.max_positions));
        } else {
          x = learned_positions(b_, x, prefix + "Sinusoidal_Position_Embedding", positions, d_.max_positions,
                                d_.d_model);
        }
        break;
      case Positions::SinusoidBuffer:
        // Regenerated for any length and never saved: a node without tensors.
        x = b_.node(graph::NodeType::LearnedPosEmbed, prefix + "Sinusoidal_Position_Embedding", x.shape, {x},
                    positions);
        break;
    }
    if (layout_.layernorm_embedding) x = norm(b_, x, prefix + "Embedding_LayerNorm", {stack / "layernorm_embedding"});
    b_.at(x).dropout = d_.dropout;
    return x;
  }

  AttentionSpec attention_spec(const Scope& attn, std::int64_t heads, bool causal) const {
    return AttentionSpec{.hidden = d_.d_model, .heads = heads, .causal = causal, .module = attn,
                         .q = attn / "q_proj", .k = attn / "k_proj", .v = attn / "v_proj", .o = attn / "out_proj",
                         .dropout = d_.attention_dropout, .output_dropout = d_.dropout};
  }

  FeedForwardSpec ffn_spec(const Scope& layer, std::int64_t ffn) const {
    return FeedForwardSpec{.hidden = d_.d_model, .intermediate = ffn, .activation = d_.activation, .module = layer,
                           .up = layer / "fc1", .down = layer / "fc2", .output_dropout = d_.dropout,
                           .inner_dropout = d_.activation_dropout};
  }

  /// One sublayer, pre- or post-norm: x + f(norm(x)) or norm(x + f(x)).
  template <typename F>
  Value sublayer(const Value& x, const std::string& norm_name, const Scope& norm_module, F&& f, const std::string& add_name) {
    if (layout_.pre_norm) {
      auto h = f(norm(b_, x, norm_name, {norm_module}));
      return add(b_, h, x, add_name);
    }
    auto sum = add(b_, f(x), x, add_name);
    return norm(b_, sum, norm_name, {norm_module});
  }

  Value encoder(const Value& ids, const Scope& stack, const std::string& table, bool owns_table) {
    auto x = embed(ids, "", stack, table, owns_table, d_.vocab);
    for (std::int64_t i = 0; i < d_.encoder.layers; ++i) {
      b_.set_block(static_cast<int>(i));
      const Scope l = stack / "layers" / i;
      const BlockNames n{i};
      x = sublayer(x, n.norm(1, NormKind::LayerNorm), l / "self_attn_layer_norm",
                   [&](const Value& h) { return eager_if_needed(attention(b_, h, n.attention(), attention_spec(l / "self_attn", d_.encoder.heads, false))); },
                   n.add(1));
      x = sublayer(x, n.norm(2, NormKind::LayerNorm), l / "final_layer_norm",
                   [&](const Value& h) { return feed_forward(b_, h, n.ffn(), ffn_spec(l, d_.encoder.ffn)); }, n.add(2));
    }
    b_.set_block(-1);
    if (layout_.pre_norm) x = norm(b_, x, "Encoder_Final_LayerNorm", {stack / "layer_norm"});
    return x;
  }

  /// `memory` absent: a decoder run alone (ForCausalLM), whose encoder_attn weights are stored
  /// but never used.
  Value decoder(const Value& ids, const std::optional<Value>& memory, const Scope& stack, const std::string& table,
                bool owns_table, std::int64_t rows, int first_block) {
    auto x = embed(ids, "Decoder_", stack, table, owns_table, rows);
    for (std::int64_t i = 0; i < d_.decoder.layers; ++i) {
      b_.set_block(first_block + static_cast<int>(i));
      const Scope l = stack / "layers" / i;
      const BlockNames n{i};
      const std::string p = "Decoder_";
      x = sublayer(x, p + n.norm(1, NormKind::LayerNorm), l / "self_attn_layer_norm",
                   [&](const Value& h) { return eager_if_needed(attention(b_, h, p + n.attention(), attention_spec(l / "self_attn", d_.decoder.heads, true))); },
                   p + n.add(1));
      const Scope cross = l / "encoder_attn";
      if (memory) {
        x = sublayer(x, p + n.norm(2, NormKind::LayerNorm), l / "encoder_attn_layer_norm",
                     [&](const Value& h) {
                       return eager_if_needed(cross_attention(b_, h, *memory, fmt::format("Decoder_Cross_Attention_{}", i),
                                                              attention_spec(cross, d_.decoder.heads, false)));
                     },
                     p + n.add(2));
      } else {
        unused_cross_attention(x, cross, l / "encoder_attn_layer_norm");
      }
      x = sublayer(x, p + n.norm(3, NormKind::LayerNorm), l / "final_layer_norm",
                   [&](const Value& h) { return feed_forward(b_, h, p + n.ffn(), ffn_spec(l, d_.decoder.ffn)); },
                   p + n.add(3));
    }
    b_.set_block(-1);
    if (layout_.pre_norm) x = norm(b_, x, "Decoder_Final_LayerNorm", {stack / "layer_norm"});
    return x;
  }

 private:
  Value eager_if_needed(const Value& attention_node) {
    b_.at(attention_node).attention->sdpa = layout_.sdpa;
    return attention_node;
  }

  // The tensors go on the node that ends the self-attention sublayer, so they count within their
  // block without a node that would claim compute or saved activations.
  void unused_cross_attention(const Value& owner, const Scope& attn, const Scope& norm_module) {
    for (const char* proj : {"k_proj", "v_proj", "q_proj", "out_proj"})
      linear_tensors(b_, owner, attn / proj, d_.d_model, d_.d_model, true);
    b_.parameter(owner, norm_module("weight"), {d_.d_model});
    b_.parameter(owner, norm_module("bias"), {d_.d_model});
    if (!noted_) {
      b_.note(fmt::format("{} runs the decoder without encoder states: every layer stores encoder_attn weights it "
                          "never uses",
                          in_.class_name));
      noted_ = true;
    }
  }

  const BuildInput& in_;
  GraphBuilder& b_;
  const Dims& d_;
  const Layout& layout_;
  bool noted_ = false;
};

}  // namespace

Value build(const BuildInput& in, GraphBuilder& b, const Layout& layout) {
  const Config& c = in.config;
  const Dims d = read_dims(c, layout);
  const bool tie = c.flag({"tie_word_embeddings"}, true);
  // scale_embedding multiplies the embeddings by sqrt(d_model): read for the report, no tensor.
  static_cast<void>(c.flag({"scale_embedding"}, layout.defaults.scale_embedding));
  StackBuilder stacks(in, b, d, layout);
  // Learned tables leave offset rows unused; the sinusoid stored as a weight has exactly max_positions.
  const std::int64_t usable = d.max_positions;

  if (in.head == Head::CausalLM) {
    // *DecoderWrapper: model.decoder owns its own token table.
    const Scope stack = Scope("model") / "decoder";
    const std::string table = (stack / "embed_tokens")("weight");
    auto ids = b.input({in.sequence_length(usable)}, "tokens");
    auto x = stacks.decoder(ids, std::nullopt, stack, table, true, d.decoder_vocab, 0);
    LmHeadSpec head{.module = Scope("lm_head"), .hidden = d.d_model, .vocab = d.vocab};
    if (tie) head.tied_weight = table;
    return lm_head(b, x, "LM_Head", head);
  }

  const Scope root = in.head == Head::Base ? Scope() : Scope("model");
  const std::string shared = root("shared.weight");
  const std::string encoder_table = d.shared_embeddings ? shared : (root / "encoder" / "embed_tokens")("weight");
  const std::string decoder_table = d.shared_embeddings ? shared : (root / "decoder" / "embed_tokens")("weight");

  const std::int64_t source = in.sequence_length(usable);
  auto ids = b.input({source}, "tokens");
  auto memory = stacks.encoder(ids, root / "encoder", encoder_table, true);

  // Classification and QA decode the source shifted right: the target length is the source's.
  const bool shifted_source = in.head == Head::SequenceClassification || in.head == Head::QuestionAnswering;
  std::int64_t target = in.target_length(std::min(source, usable));
  if (shifted_source) {
    if (in.requested_target_seq && *in.requested_target_seq != source)
      b.note(fmt::format("{} decodes the source shifted right: the target length is the source's {}, not {}",
                         in.class_name, source, *in.requested_target_seq));
    target = source;
  }
  auto target_ids = b.input({target}, "tokens", "decoder_input_ids");
  // Unshared Marian tables are copies of the source table, so they have its rows.
  auto x = stacks.decoder(target_ids, memory, root / "decoder", decoder_table, !d.shared_embeddings, d.vocab,
                          static_cast<int>(d.encoder.layers));

  switch (in.head) {
    case Head::Seq2SeqLM: {
      LmHeadSpec spec{.module = Scope("lm_head"), .hidden = d.d_model, .vocab = d.lm_vocab};
      if (tie) spec.tied_weight = decoder_table;
      auto head = lm_head(b, x, "LM_Head", spec);
      if (layout.final_logits_bias) b.buffer(head, "final_logits_bias", {1, d.lm_vocab}, b.param_dtype());
      return head;
    }
    case Head::SequenceClassification: {
      // The head reads the decoder state at the last <eos>: dense -> tanh -> out_proj.
      auto pooled = pooler(b, x, "Classifier_Dense", Scope("classification_head") / "dense", d.d_model, "tanh");
      b.at(pooled).dropout = c.number({"classifier_dropout"}, 0.0);
      return classifier(b, pooled, "Classifier", Scope("classification_head") / "out_proj", d.d_model,
                        in.num_labels(), true);
    }
    case Head::QuestionAnswering:
      // The QA class sets config.num_labels = 2 itself.
      return classifier(b, x, "QA_Outputs", Scope("qa_outputs"), d.d_model, 2, true);
    default:
      return x;
  }
}

}  // namespace neurarch::families::bart
