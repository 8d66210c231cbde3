// T5Gemma (models/t5gemma/modeling_t5gemma.py + configuration_t5gemma.py, transformers 4.57.6):
// two Gemma 2 stacks, each from its own sub-config (`encoder`, `decoder`; a missing decoder copies the
// encoder). Both have their own embed_tokens (scaled by sqrt(hidden)), RoPE, grouped-query attention
// with sliding windows per layer_types, and RMSNorms before and after every sublayer; the encoder
// attends both ways, the decoder causally and then across (cross_attn reads the encoder's width).
// T5GemmaConfig.__setattr__ copies vocab_size, dropout_rate and attention_dropout into both
// sub-configs, so the top-level values win. The LM head is lm_head.out_proj (tied to the decoder's
// tokens); classification heads are score.out_proj, over the decoder or, with is_encoder_decoder
// false, the encoder alone. Soft-capping of scores and logits adds no tensors.
#include <algorithm>
#include <string>
#include <vector>

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "blocks/seq2seq.hpp"
#include "families/clip_common.hpp"
#include "families/family.hpp"
#include "families/llama_common.hpp"

namespace neurarch::families {
namespace t5gemma_impl {
namespace {

using namespace blocks;

/// One T5GemmaModuleConfig, read with its class defaults (Gemma 2 2B's sizes).
struct StackDims {
  std::int64_t vocab = 0, hidden = 0, intermediate = 0, layers = 0, heads = 0, kv_heads = 0, head_dim = 0;
  std::int64_t positions = 0, pad = 0;
  std::string activation;
  bool bias = false;
  std::vector<std::int64_t> windows;
};

StackDims read_stack(const Config& c, std::int64_t vocab) {
  StackDims d;
  d.vocab = vocab;
  d.hidden = c.dim({"hidden_size"}, 2304);
  d.intermediate = c.dim({"intermediate_size"}, 9216);
  d.layers = c.dim({"num_hidden_layers"}, 26);
  d.heads = c.dim({"num_attention_heads"}, 8);
  d.kv_heads = c.dim({"num_key_value_heads"}, 4);
  d.head_dim = c.dim({"head_dim"}, 256);
  d.positions = c.dim({"max_position_embeddings"}, 8192);
  d.pad = c.integer({"pad_token_id"}, 0);
  d.activation = c.text({"hidden_activation"}, "gelu_pytorch_tanh");
  d.bias = c.flag({"attention_bias"}, false);
  const std::int64_t window = decoder::window_or_none(c, "sliding_window", 4096);
  d.windows = decoder::windows_from_layer_types(c, d.layers, window);
  if (d.windows.empty())  // the config class's default: layers 0, 2, 4... slide
    for (std::int64_t i = 0; i < d.layers; ++i) d.windows.push_back(i % 2 == 0 ? window : 0);
  return d;
}

class Builder {
 public:
  Builder(GraphBuilder& b, double dropout, double attention_dropout)
      : b_(b), dropout_(dropout), attention_dropout_(attention_dropout) {}

  Value encoder(const Value& ids, const StackDims& d, const Scope& stack) {
    auto x = embed(ids, d, stack, "");
    for (std::int64_t i = 0; i < d.layers; ++i) {
      b_.set_block(static_cast<int>(i));
      const Scope l = stack / "layers" / i;
      int k = 0;
      x = sublayer(x, l, "self_attn", k, "", i, [&](const Value& h) {
        return attention(b_, h, BlockNames{i}.attention(), attention_spec(d, l / "self_attn", i, false));
      });
      x = mlp(x, d, l, k, "", i);
    }
    b_.set_block(-1);
    return norm(b_, x, "Encoder_Final_RMSNorm", {stack / "norm", NormKind::RMSNorm});
  }

  Value decoder(const Value& ids, const Value& memory, const StackDims& d, std::int64_t memory_width,
                const Scope& stack, int first_block) {
    const std::string p = "Decoder_";
    auto x = embed(ids, d, stack, p);
    for (std::int64_t i = 0; i < d.layers; ++i) {
      b_.set_block(first_block + static_cast<int>(i));
      const Scope l = stack / "layers" / i;
      int k = 0;
      x = sublayer(x, l, "self_attn", k, p, i, [&](const Value& h) {
        return attention(b_, h, p + BlockNames{i}.attention(), attention_spec(d, l / "self_attn", i, true));
      });
      x = sublayer(x, l, "cross_attn", k, p, i, [&](const Value& h) {
        AttentionSpec s = attention_spec(d, l / "cross_attn", i, false);
        s.window = 0;
        s.rotary = false;
        return cross_attention(b_, h, memory, fmt::format("Decoder_Cross_Attention_{}", i), s, memory_width);
      });
      x = mlp(x, d, l, k, p, i);
    }
    b_.set_block(-1);
    return norm(b_, x, "Decoder_Final_RMSNorm", {stack / "norm", NormKind::RMSNorm});
  }

 private:
  Value embed(const Value& ids, const StackDims& d, const Scope& stack, const std::string& prefix) {
    auto x = token_embedding(b_, ids, prefix + "Token_Embedding", stack / "embed_tokens", d.vocab, d.hidden);
    if (d.pad >= d.vocab)
      b_.fail(x, fmt::format("pad_token_id {} is not a row of the {}-token vocabulary", d.pad, d.vocab));
    b_.at(x).dropout = dropout_;
    return x;
  }

  AttentionSpec attention_spec(const StackDims& d, const Scope& attn, std::int64_t i, bool causal) const {
    return AttentionSpec{.hidden = d.hidden, .heads = d.heads, .kv_heads = d.kv_heads, .head_dim = d.head_dim,
                         .causal = causal, .window = d.windows[static_cast<std::size_t>(i)], .module = attn,
                         .q = attn / "q_proj", .k = attn / "k_proj", .v = attn / "v_proj", .o = attn / "o_proj",
                         .qkv_bias = d.bias, .o_bias = d.bias, .require_divisible = false,
                         .dropout = attention_dropout_, .rotary = true};
  }

  // residual + dropout(post_norm(f(pre_norm(x)))): the norm names are pre_<name>_layernorm and
  // post_<name>_layernorm.
  template <typename F>
  Value sublayer(const Value& x, const Scope& l, const std::string& name, int& k, const std::string& prefix,
                 std::int64_t i, F&& f) {
    const BlockNames n{i};
    auto h = norm(b_, x, prefix + n.norm(++k, NormKind::RMSNorm), {l / ("pre_" + name + "_layernorm"), NormKind::RMSNorm});
    h = f(h);
    h = norm(b_, h, prefix + n.norm(++k, NormKind::RMSNorm), {l / ("post_" + name + "_layernorm"), NormKind::RMSNorm});
    b_.at(h).dropout = dropout_;
    return add(b_, h, x, prefix + n.add(k / 2));
  }

  Value mlp(const Value& x, const StackDims& d, const Scope& l, int& k, const std::string& prefix, std::int64_t i) {
    const BlockNames n{i};
    auto h = norm(b_, x, prefix + n.norm(++k, NormKind::RMSNorm), {l / "pre_feedforward_layernorm", NormKind::RMSNorm});
    const Scope m = l / "mlp";
    h = feed_forward(b_, h, prefix + n.ffn(),
                     {.hidden = d.hidden, .intermediate = d.intermediate, .activation = d.activation, .gated = true,
                      .module = m, .up = m / "up_proj", .down = m / "down_proj", .gate = m / "gate_proj",
                      .bias = false, .down_bias = false, .inner_dropout = dropout_});
    h = norm(b_, h, prefix + n.norm(++k, NormKind::RMSNorm), {l / "post_feedforward_layernorm", NormKind::RMSNorm});
    b_.at(h).dropout = dropout_;
    return add(b_, h, x, prefix + n.add(k / 2));
  }

  GraphBuilder& b_;
  double dropout_, attention_dropout_;
};

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config& c = in.config;
  const Config encoder_config = c.child("encoder");
  const Config decoder_config = c.raw({"decoder"}) ? c.child("decoder") : encoder_config;
  const std::int64_t vocab = c.dim({"vocab_size"}, 256000);
  const StackDims enc = read_stack(encoder_config, vocab);
  const StackDims dec = read_stack(decoder_config, vocab);
  const bool encoder_decoder = c.flag({"is_encoder_decoder"}, true);
  Builder stacks(b, c.number({"dropout_rate"}, 0.0), c.number({"attention_dropout"}, 0.0));

  const bool encoder_only = in.class_name == "T5GemmaEncoderModel" ||
                            (!encoder_decoder && (in.head == Head::SequenceClassification ||
                                                  in.head == Head::TokenClassification));
  const Scope root = in.head == Head::Base ? Scope() : Scope("model");
  const std::int64_t source = in.sequence_length(enc.positions);
  auto ids = b.input({source}, "tokens");
  auto memory = stacks.encoder(ids, enc, root / "encoder");
  if (source > enc.positions)
    b.note(fmt::format("sequence of {} tokens is past the encoder's max_position_embeddings ({}); rotary positions "
                       "extrapolate",
                       source, enc.positions));

  Value x = memory;
  std::int64_t width = enc.hidden;
  if (!encoder_only) {
    // Classification decodes the source shifted right: the target length is the source's.
    const bool shifted_source = in.head == Head::SequenceClassification || in.head == Head::TokenClassification;
    std::int64_t target = in.target_length(std::min(source, dec.positions));
    if (shifted_source) {
      if (in.requested_target_seq && *in.requested_target_seq != source)
        b.note(fmt::format("{} decodes the source shifted right: the target length is the source's {}, not {}",
                           in.class_name, source, *in.requested_target_seq));
      target = source;
    }
    auto target_ids = b.input({target}, "tokens", "decoder_input_ids");
    x = stacks.decoder(target_ids, memory, dec, enc.hidden, root / "decoder", static_cast<int>(enc.layers));
    width = dec.hidden;
  }

  switch (in.head) {
    case Head::Seq2SeqLM: {
      LmHeadSpec spec{.module = Scope("lm_head") / "out_proj", .hidden = dec.hidden, .vocab = dec.vocab};
      if (c.flag({"tie_word_embeddings"}, true)) spec.tied_weight = (root / "decoder" / "embed_tokens")("weight");
      return lm_head(b, x, "LM_Head", spec);
    }
    case Head::SequenceClassification: {
      // Every position is scored; the logits of the last non-pad token are kept.
      auto last = b.node(graph::NodeType::Pooler, "Last_Token_Pool", {width}, {x});
      b.at(last).dropout = c.number({"classifier_dropout_rate"}, 0.0);
      return classifier(b, last, "Classifier", Scope("score") / "out_proj", width, in.num_labels(), true);
    }
    case Head::TokenClassification:
      return classifier(b, x, "Classifier", Scope("score") / "out_proj", width, in.num_labels(), true);
    default:
      return x;
  }
}

}  // namespace
}  // namespace t5gemma_impl

const Family& t5gemma_family() {
  static const Family family{"t5gemma", "models/t5gemma/modeling_t5gemma.py",
                             classes("T5Gemma",
                                     {heads::ForConditionalGeneration, heads::EncoderModel, heads::ForSequenceClassification, heads::ForTokenClassification}),
                             t5gemma_impl::build};
  return family;
}

}  // namespace neurarch::families
