#include "families/bart_common.hpp"

#include <algorithm>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "blocks/conv.hpp"
#include "blocks/moe.hpp"
#include "blocks/seq2seq.hpp"
#include "families/config_lists.hpp"
#include "families/decoder_feed.hpp"
#include "families/moe_common.hpp"
#include "families/sliding_window.hpp"

namespace neurarch::families::bart {
namespace bart_common_impl {
namespace {

using namespace blocks;

struct StackDims {
  std::int64_t layers = 0, heads = 0, ffn = 0;
};

struct Dims {
  std::int64_t vocab = 0, d_model = 0, pad = 0;
  std::int64_t encoder_positions = 0, decoder_positions = 0;  ///< usable rows of each stack's table
  std::vector<std::int64_t> attention_windows;                ///< Longformer: per encoder layer
  std::int64_t decoder_vocab = 0;  ///< rows of a decoder built alone (Marian's decoder_vocab_size)
  std::int64_t lm_vocab = 0;       ///< the LM head's outputs
  StackDims encoder, decoder;
  std::string activation;
  double dropout = 0, attention_dropout = 0, activation_dropout = 0;
  bool shared_embeddings = true;  ///< one `shared` table for both stacks
  // NLLB-MoE
  std::int64_t encoder_sparse_step = 0, decoder_sparse_step = 0, experts = 0;
  bool router_bias = false;
  double moe_token_dropout = 0;
  // MVP
  bool use_prompt = false;
  std::int64_t prompt_length = 0, prompt_mid_dim = 0;
  bool attention_bias = true;
  std::int64_t cross_width = 0;  ///< what encoder_attn's k/v projections read
  // BigBirdPegasus
  std::string attention_type;
  std::int64_t random_blocks = 0;
  // PEGASUS-X
  std::int64_t block_size = 0, global_tokens = 0;
  bool stagger = false;
  // Speech2Text
  std::int64_t input_features = 0, conv_channels = 0;
  std::vector<std::int64_t> conv_kernels;
};

Dims read_dims(const Config& c, const Layout& layout) {
  const ConfigDefaults& def = layout.defaults;
  Dims d;
  d.vocab = c.dim({"vocab_size"}, def.vocab);
  d.d_model = c.dim({"d_model", "hidden_size"}, def.d_model);
  if (layout.speech_encoder) {
    d.encoder_positions = c.dim({"max_source_positions"}, 6000);
    d.decoder_positions = c.dim({"max_target_positions"}, 1024);
    d.input_features = c.dim({"input_feat_per_channel"}, 80) * c.dim({"input_channels"}, 1);
    d.conv_channels = c.dim({"conv_channels"}, 1024);
    d.conv_kernels = size_list(c, "conv_kernel_sizes", {5, 5});
    // Speech2TextConfig refuses a kernel list whose length is not num_conv_layers.
    require_length(c, "conv_kernel_sizes", d.conv_kernels, static_cast<std::size_t>(c.dim({"num_conv_layers"}, 2)));
    d.shared_embeddings = false;
  } else if (layout.split_positions) {
    d.encoder_positions = c.dim({"max_encoder_position_embeddings"}, layout.default_positions);
    d.decoder_positions = c.dim({"max_decoder_position_embeddings"}, 1024);
  } else {
    d.encoder_positions = d.decoder_positions = c.dim({layout.positions_key}, layout.default_positions);
  }
  d.pad = c.integer({"pad_token_id"}, def.pad);
  d.encoder = {c.dim({"encoder_layers", "num_hidden_layers"}, def.encoder_layers),
               c.dim({"encoder_attention_heads", "num_attention_heads"}, def.heads), c.dim({"encoder_ffn_dim"}, def.ffn)};
  d.decoder = {c.dim({"decoder_layers"}, def.decoder_layers), c.dim({"decoder_attention_heads"}, def.heads),
               c.dim({"decoder_ffn_dim"}, def.ffn)};
  d.activation = c.text({"activation_function"}, std::string(def.activation));
  d.dropout = c.number({"dropout"}, 0.1);
  d.attention_dropout = c.number({"attention_dropout"}, def.attention_dropout);
  d.activation_dropout = c.number({"activation_dropout"}, 0.0);
  d.decoder_vocab = d.lm_vocab = d.vocab;
  if (layout.sparse_ffn) {
    d.experts = c.dim({"num_experts"}, 128);
    d.router_bias = c.flag({"router_bias"}, false);
    d.encoder_sparse_step = c.integer({"encoder_sparse_step"}, 4);
    d.decoder_sparse_step = c.integer({"decoder_sparse_step"}, 4);
    d.moe_token_dropout = c.number({"moe_token_dropout"}, 0.2);
  }
  if (layout.prompts) {
    d.use_prompt = c.flag({"use_prompt"}, false);
    if (d.use_prompt) {
      d.prompt_length = c.dim({"prompt_length"}, 100);
      d.prompt_mid_dim = c.dim({"prompt_mid_dim"}, 800);
    }
  }
  if (layout.longformer_encoder) {
    // LEDEncoder repeats an int window for every layer, or takes one entry per layer.
    if (const auto* w = c.raw({"attention_window"}); w && w->is_array()) {
      d.attention_windows = size_list(c, "attention_window", {});
      require_length(c, "attention_window", d.attention_windows, static_cast<std::size_t>(d.encoder.layers));
    } else {
      d.attention_windows.assign(static_cast<std::size_t>(d.encoder.layers), c.integer({"attention_window"}, 512));
    }
  }
  d.cross_width = layout.cross_attention_width_key && c.has("cross_attention_hidden_size")
                      ? c.dim({"cross_attention_hidden_size"})
                      : d.d_model;
  d.attention_bias = layout.block_sparse_encoder ? c.flag({"use_bias"}, false) : layout.attention_bias;
  if (layout.block_sparse_encoder) {
    d.attention_type = c.text({"attention_type"}, "block_sparse");
    d.block_size = c.dim({"block_size"}, 64);
    d.random_blocks = c.integer({"num_random_blocks"}, 3);
  }
  if (layout.block_local_encoder) {
    d.block_size = c.dim({"block_size"}, 512);
    d.global_tokens = c.dim({"num_global_tokens"}, 32);
    d.stagger = c.flag({"stagger_local_blocks"}, true);
  }
  if (layout.fsmt_vocab) {
    d.vocab = c.dim({"src_vocab_size"}, def.vocab);
    d.decoder_vocab = d.lm_vocab = c.dim({"tgt_vocab_size"}, def.vocab);
    d.shared_embeddings = false;
  }
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
              bool owns_table, std::int64_t rows, std::int64_t max_positions) {
    Shape shape = ids.shape;
    shape.push_back(d_.d_model);
    auto x = b_.node(graph::NodeType::Embedding, prefix + "Token_Embedding", shape, {ids},
                     Scope(table.substr(0, table.rfind('.'))));
    const std::string own = (stack / "embed_tokens")("weight");
    if (owns_table) b_.parameter(x, table, {rows, d_.d_model}, graph::TensorRole::Embedding);
    if (own != table) b_.tied(x, own, {rows, d_.d_model}, table, graph::TensorRole::Embedding);
    if (d_.pad >= rows) b_.fail(x, fmt::format("pad_token_id {} is not a row of the {}-token vocabulary", d_.pad, rows));

    const Scope positions = stack / "embed_positions";
    switch (layout_.positions) {
      case Positions::Learned:
        x = learned_positions(b_, x, prefix + "Position_Embedding", positions,
                              max_positions + layout_.position_offset, d_.d_model, layout_.position_offset);
        break;
      case Positions::SinusoidStored:
        // A fixed table looked up by position: requires_grad is off, but a longer sequence has no row.
        if (in_.head == Head::Seq2SeqLM && layout_.lm_drops_positions) {
          x = b_.node(graph::NodeType::LearnedPosEmbed, prefix + "Sinusoidal_Position_Embedding", x.shape, {x},
                      positions);
          if (x.shape.size() >= 2 && x.shape[x.shape.size() - 2] > max_positions)
            b_.fail(x, fmt::format("requested sequence {} exceeds the {} rows of the sinusoidal position table",
                                   x.shape[x.shape.size() - 2], max_positions));
        } else {
          x = learned_positions(b_, x, prefix + "Sinusoidal_Position_Embedding", positions, max_positions,
                                d_.d_model);
          b_.freeze(x);
        }
        break;
      case Positions::SinusoidBuffer:
        // Regenerated for any length and never saved: a node without tensors.
        x = b_.node(graph::NodeType::LearnedPosEmbed, prefix + "Sinusoidal_Position_Embedding", x.shape, {x},
                    positions);
        break;
      case Positions::SinusoidFrozenWeights:
        x = frozen_sinusoid(x, prefix, positions, max_positions);
        break;
    }
    if (layout_.layernorm_embedding) x = norm(b_, x, prefix + "Embedding_LayerNorm", {stack / "layernorm_embedding"});
    b_.at(x).dropout = d_.dropout;
    return x;
  }

  /// Conv1dSubsampler over filter-bank frames, scaled by sqrt(d_model) when scale_embedding, then the
  /// positions and the embedding dropout.
  Value speech_embed(const Value& features, const Scope& stack) {
    Value x = features;
    const auto layers = d_.conv_kernels.size();
    for (std::size_t i = 0; i < layers; ++i) {
      const std::int64_t kernel = d_.conv_kernels[i];
      const std::int64_t out = i + 1 < layers ? d_.conv_channels : 2 * d_.d_model;
      x = conv1d(b_, x, fmt::format("Conv_Subsampler_{}", i),
                 {.module = stack / "conv" / "conv_layers" / static_cast<std::int64_t>(i),
                  .in_channels = i == 0 ? d_.input_features : d_.conv_channels / 2, .out_channels = out,
                  .kernel = kernel, .stride = 2, .padding = kernel / 2, .activation = "glu"});
    }
    x = frozen_sinusoid(x, "", stack / "embed_positions", d_.encoder_positions);
    b_.at(x).dropout = d_.dropout;
    return x;
  }

  AttentionSpec attention_spec(const Scope& attn, std::int64_t heads, bool causal) const {
    return AttentionSpec{.hidden = d_.d_model, .heads = heads, .causal = causal, .module = attn,
                         .q = attn / "q_proj", .k = attn / "k_proj", .v = attn / "v_proj", .o = attn / "out_proj",
                         .qkv_bias = d_.attention_bias, .o_bias = d_.attention_bias,
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
    auto x = layout_.speech_encoder ? speech_embed(ids, stack)
                                    : embed(ids, "", stack, table, owns_table, d_.vocab, d_.encoder_positions);
    const auto prompt = make_prompt(ids, stack / "self_attn_prompt", d_.encoder, "Encoder_Self_");
    std::optional<Value> globals;
    if (layout_.block_local_encoder) {
      globals = b_.node(graph::NodeType::Embedding, "Global_Token_Embedding", {d_.global_tokens, d_.d_model}, {ids},
                        stack / "embed_global");
      b_.parameter(*globals, (stack / "embed_global")("weight"), {d_.global_tokens, d_.d_model}, graph::TensorRole::Embedding);
    }
    for (std::int64_t i = 0; i < d_.encoder.layers; ++i) {
      b_.set_block(static_cast<int>(i));
      const Scope l = stack / "layers" / i;
      const BlockNames n{i};
      x = sublayer(x, n.norm(1, NormKind::LayerNorm), l / "self_attn_layer_norm",
                   [&](const Value& h) {
                     if (layout_.longformer_encoder) return longformer_attention(h, l / "self_attn", i, n.attention());
                     if (globals) return block_local_attention(h, *globals, l, i, n.attention());
                     if (layout_.block_sparse_encoder) return block_sparse_attention(h, l / "self_attn", i, n.attention());
                     return with_prompt(eager_if_needed(attention(b_, h, n.attention(), attention_spec(l / "self_attn", d_.encoder.heads, false))), prompt);
                   },
                   n.add(1));
      if (layout_.longformer_encoder) global_projections(x, l / "self_attn" / "longformer_self_attn");
      x = sublayer(x, n.norm(2, NormKind::LayerNorm), l / std::string(layout_.ffn_norm),
                   [&](const Value& h) { return ffn(h, "", l, d_.encoder.ffn, i, d_.encoder_sparse_step); }, n.add(2));
    }
    b_.set_block(-1);
    if (layout_.pre_norm) x = norm(b_, x, "Encoder_Final_LayerNorm", {stack / std::string(layout_.final_norm)});
    return x;
  }

  /// `memory` absent: a decoder run alone (ForCausalLM), whose encoder_attn weights are stored
  /// but never used. A ForCausalLM nested in a composite (VisionEncoderDecoderModel) reads the
  /// composite's encoder states.
  Value decoder(const Value& ids, const std::optional<Value>& memory, const Scope& stack, const std::string& table,
                bool owns_table, std::int64_t rows, int first_block) {
    auto x = embed(ids, "Decoder_", stack, table, owns_table, rows, d_.decoder_positions);
    // MvpDecoder gets prompts inside MvpModel only, never in the decoder-only wrapper.
    std::optional<Value> self_prompt, cross_prompt;
    if (memory && in_.head != Head::CausalLM) {
      self_prompt = make_prompt(ids, stack / "self_attn_prompt", d_.decoder, "Decoder_Self_");
      cross_prompt = make_prompt(ids, stack / "cross_attn_prompt", d_.decoder, "Decoder_Cross_");
    }
    for (std::int64_t i = 0; i < d_.decoder.layers; ++i) {
      b_.set_block(first_block + static_cast<int>(i));
      const Scope l = stack / "layers" / i;
      const BlockNames n{i};
      const std::string p = "Decoder_";
      x = sublayer(x, p + n.norm(1, NormKind::LayerNorm), l / "self_attn_layer_norm",
                   [&](const Value& h) { return with_prompt(eager_if_needed(attention(b_, h, p + n.attention(), attention_spec(l / "self_attn", d_.decoder.heads, true))), self_prompt); },
                   p + n.add(1));
      const std::string cross_name(layout_.cross_attention);
      const Scope cross = l / cross_name;
      if (memory) {
        x = sublayer(x, p + n.norm(2, NormKind::LayerNorm), l / (cross_name + "_layer_norm"),
                     [&](const Value& h) {
                       return with_prompt(eager_if_needed(cross_attention(b_, h, *memory, fmt::format("Decoder_Cross_Attention_{}", i),
                                                                          attention_spec(cross, d_.decoder.heads, false),
                                                                          d_.cross_width)),
                                          cross_prompt);
                     },
                     p + n.add(2));
      } else {
        unused_cross_attention(x, cross, l / (cross_name + "_layer_norm"));
      }
      x = sublayer(x, p + n.norm(3, NormKind::LayerNorm), l / std::string(layout_.ffn_norm),
                   [&](const Value& h) { return ffn(h, p, l, d_.decoder.ffn, i, d_.decoder_sparse_step); },
                   p + n.add(3));
    }
    b_.set_block(-1);
    if (layout_.pre_norm) x = norm(b_, x, "Decoder_Final_LayerNorm", {stack / std::string(layout_.final_norm)});
    return x;
  }

 private:
  // BigBird's block-sparse attention: each block of block_size queries scores three sliding blocks,
  // the first and last (global) blocks and num_random_blocks random ones, so the node says query_len =
  // one block and kv_len = (5 + random) blocks; the two global query blocks, which score every key,
  // are not counted apart. Inputs too short for the pattern run full attention, as the reference does.
  Value block_sparse_attention(const Value& h, const Scope& attn, std::int64_t i, const std::string& name) {
    AttentionSpec s = attention_spec(attn, d_.encoder.heads, false);
    s.q = attn / "self" / "query";
    s.k = attn / "self" / "key";
    s.v = attn / "self" / "value";
    s.o = attn / "output";
    auto out = attention(b_, h, name, s);
    auto& at = *b_.at(out).attention;
    at.sdpa = false;
    const std::int64_t seq = at.query_len;
    const std::int64_t needed = (5 + 2 * d_.random_blocks) * d_.block_size;
    if (d_.attention_type == "block_sparse" && seq > needed) {
      at.query_len = d_.block_size;
      at.kv_len = (5 + d_.random_blocks) * d_.block_size;
      if (i == 0)
        b_.note(fmt::format("block-sparse attention: each block of {} queries scores {} keys rather than all {}; "
                            "the probabilities are counted per block",
                            d_.block_size, at.kv_len, seq));
    } else if (d_.attention_type == "block_sparse" && i == 0) {
      b_.note(fmt::format("block-sparse attention needs more than {} tokens; this {}-token input runs full attention",
                          needed, seq));
    }
    return out;
  }

  // PEGASUS-X's local attention: each block of block_size tokens scores its own block (shifted by half
  // a block on odd layers when staggered) and the global tokens, so the node says query_len = one
  // block and kv_len = block + globals, as LED's sliding window does. The global tokens' own
  // attention over every token, and their pass through the feed-forward, are a few rows more and
  // not counted; global_self_attn_layer_norm's weights sit on the attention node.
  Value block_local_attention(const Value& h, const Value& globals, const Scope& layer, std::int64_t i,
                              const std::string& name) {
    auto out = attention(b_, h, name, attention_spec(layer / "self_attn", d_.encoder.heads, false));
    b_.at(out).inputs.push_back(globals.node);
    auto& at = *b_.at(out).attention;
    const std::int64_t seq = at.query_len;
    at.sdpa = false;
    at.query_len = std::min(d_.block_size, seq);
    at.kv_len = at.query_len + d_.global_tokens;
    const Scope global_norm = layer / "global_self_attn_layer_norm";
    b_.parameter(out, global_norm("weight"), {d_.d_model}, graph::TensorRole::Norm);
    b_.parameter(out, global_norm("bias"), {d_.d_model}, graph::TensorRole::Bias);
    if (i == 0) {
      b_.note(fmt::format("PEGASUS-X's encoder attends within blocks of {} tokens{} plus {} global tokens; the "
                          "probabilities are counted per block",
                          d_.block_size, d_.stagger ? " (staggered by half a block on odd layers)" : "",
                          d_.global_tokens));
      if (seq % d_.block_size != 0)
        b_.note(fmt::format("PEGASUS-X pads the {}-token input to a multiple of block_size {} ({} tokens); the "
                            "padding is not counted",
                            seq, d_.block_size, (seq + d_.block_size - 1) / d_.block_size * d_.block_size));
    }
    return out;
  }

  // Sized at construction and regrown for a longer input, so no length fails; requires_grad is off.
  Value frozen_sinusoid(const Value& x, const std::string& prefix, const Scope& positions, std::int64_t max_positions) {
    auto out = b_.node(graph::NodeType::LearnedPosEmbed, prefix + "Sinusoidal_Position_Embedding", x.shape, {x},
                       positions);
    const std::int64_t extra = layout_.sinusoid_offset_after_pad ? d_.pad + 1 : layout_.position_offset;
    b_.parameter(out, positions(layout_.sinusoid_name), {max_positions + extra, d_.d_model}, graph::TensorRole::Embedding);
    b_.freeze(out);
    return out;
  }

  // A dense feed-forward, or NLLB-MoE's top-2 experts in the layers its sparse step picks.
  Value ffn(const Value& h, const std::string& prefix, const Scope& layer, std::int64_t width, std::int64_t i,
            std::int64_t sparse_step) {
    const Scope module = layout_.ffn_module.empty() ? layer : layer / std::string(layout_.ffn_module);
    FeedForwardSpec f = ffn_spec(module, width);
    if (layout_.sparse_ffn) f.output_dropout = d_.activation_dropout;  // NLLB-MoE's ff_dropout
    if (!(layout_.sparse_ffn && sparse_step > 0 && (i + 1) % sparse_step == 0))
      return feed_forward(b_, h, prefix + BlockNames{i}.ffn(), f);
    // Each expert holds expert_capacity tokens; overflow tokens skip the layer, which the
    // planner's top_k / experts share of the work does not model.
    MoESpec m{.hidden = d_.d_model, .intermediate = width, .experts = d_.experts, .top_k = 2,
              .activation = d_.activation, .gated = false, .module = module, .router = module / "router" / "classifier",
              .router_bias = d_.router_bias, .experts_module = module / "experts", .expert_prefix = "expert_",
              .up = "fc1", .down = "fc2", .expert_bias = true};
    auto out = mixture_of_experts(b_, h, prefix + moe::node_name(i), m);
    // moe_token_dropout zeroes whole tokens of the experts' output in training.
    b_.at(out).dropout = std::max(d_.moe_token_dropout, d_.activation_dropout);
    return out;
  }

  // MvpPrompt: prompt_length learned rows -> Linear(d_model, prompt_mid_dim) -> GELU ->
  // Linear(prompt_mid_dim, layers x 2 x d_model), split into one key/value prefix per layer.
  std::optional<Value> make_prompt(const Value& ids, const Scope& module, const StackDims& stack,
                                   const std::string& prefix) {
    if (!d_.use_prompt) return std::nullopt;
    const Scope table = module / "prompt_embedding";
    auto rows = b_.node(graph::NodeType::Embedding, prefix + "Prompt_Embedding", {d_.prompt_length, d_.d_model},
                        {ids}, table);
    b_.parameter(rows, table("weight"), {d_.prompt_length, d_.d_model}, graph::TensorRole::Embedding);
    auto h = dense(b_, rows, prefix + "Prompt_Transform_0", module / "prompt_trans" / 0, d_.d_model, d_.prompt_mid_dim,
                   true, "gelu");
    h = dense(b_, h, prefix + "Prompt_Transform_2", module / "prompt_trans" / 2, d_.prompt_mid_dim,
              stack.layers * 2 * d_.d_model, true);
    b_.at(h).dropout = d_.dropout;
    if (d_.d_model % stack.heads != 0)
      b_.fail(h, fmt::format("the prompt's {} columns per layer do not split into {} heads", d_.d_model, stack.heads));
    return h;
  }

  // The prompt's rows are keys and values in front of the layer's own: prompt_length more keys.
  Value with_prompt(const Value& attention_node, const std::optional<Value>& prompt) {
    if (!prompt) return attention_node;
    b_.at(attention_node).attention->kv_len += d_.prompt_length;
    b_.at(attention_node).inputs.push_back(prompt->node);
    return attention_node;
  }

  // Longformer's sliding-window self-attention (LED's encoder): see families/sliding_window.hpp.
  Value longformer_attention(const Value& h, const Scope& attn, std::int64_t i, const std::string& name) {
    const Scope own = attn / "longformer_self_attn";
    AttentionSpec s = attention_spec(attn, d_.encoder.heads, false);
    s.q = own / "query";
    s.k = own / "key";
    s.v = own / "value";
    s.o = attn / "output";
    auto out = attention(b_, h, name, s);
    sliding_window::apply(b_, out, d_.attention_windows[static_cast<std::size_t>(i)], i,
                          "LED's encoder");
    return out;
  }

  // query_global / key_global / value_global run only for tokens given global attention, and
  // the reference gives none unless global_attention_mask is passed: stored weights without a
  // node that would claim their compute or saved inputs.
  void global_projections(const Value& owner, const Scope& own) {
    sliding_window::global_projections(b_, owner, own, d_.d_model, graph::Operand::Idle);
    if (!global_noted_) {
      b_.note("LED's query_global/key_global/value_global are counted as weights only: they run for tokens given "
              "global attention, none unless global_attention_mask is passed");
      global_noted_ = true;
    }
  }

  Value eager_if_needed(const Value& attention_node) {
    b_.at(attention_node).attention->sdpa = layout_.sdpa;
    return attention_node;
  }

  // The tensors go on the node that ends the self-attention sublayer, so they count within their
  // block without a node that would claim compute or saved activations; idle, they get no gradient or optimizer state.
  void unused_cross_attention(const Value& owner, const Scope& attn, const Scope& norm_module) {
    for (const char* proj : {"k_proj", "v_proj", "q_proj", "out_proj"}) {
      const bool reads_memory = std::string_view(proj) == "k_proj" || std::string_view(proj) == "v_proj";
      linear_tensors(b_, owner, attn / proj, reads_memory ? d_.cross_width : d_.d_model, d_.d_model, d_.attention_bias,
                     graph::Operand::Idle);
    }
    b_.parameter(owner, norm_module("weight"), {d_.d_model}, graph::TensorRole::Norm, graph::Operand::Idle);
    b_.parameter(owner, norm_module("bias"), {d_.d_model}, graph::TensorRole::Bias, graph::Operand::Idle);
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
  bool global_noted_ = false;
};

}  // namespace
}  // namespace bart_common_impl
using namespace bart_common_impl;

Value build(const BuildInput& in, GraphBuilder& b, const Layout& layout) {
  const Config& c = in.config;
  const bart_common_impl::Dims d = bart_common_impl::read_dims(c, layout);
  const bool tie = c.flag({"tie_word_embeddings"}, true);
  // scale_embedding multiplies the embeddings by sqrt(d_model): read for the report, no tensor.
  static_cast<void>(c.flag({"scale_embedding"}, layout.defaults.scale_embedding));
  bart_common_impl::StackBuilder stacks(in, b, d, layout);
  // Learned tables leave offset rows unused; the sinusoid stored as a weight has exactly max_positions.
  // Classification and QA decode the source shifted right, so their source must also fit the
  // decoder's table (LED's is shorter than its encoder's).
  const bool shifted_source = in.head == Head::SequenceClassification || in.head == Head::QuestionAnswering;
  const std::int64_t usable = shifted_source ? std::min(d.encoder_positions, d.decoder_positions) : d.encoder_positions;

  if (in.head == Head::CausalLM) {
    // *DecoderWrapper: model.decoder owns its own token table.
    const Scope stack = Scope("model") / "decoder";
    const std::string table = (stack / "embed_tokens")("weight");
    // Nested in a composite (VisionEncoderDecoderModel), the decoder reads the composite's encoder states.
    const DecoderFeed* composite = decoder_feed(b);
    std::optional<Value> memory;
    if (composite) memory = composite->encoder_states;
    auto ids = b.input({in.sequence_length(d.decoder_positions)}, "tokens", composite ? composite->input_name : "");
    auto x = stacks.decoder(ids, memory, stack, table, true, d.decoder_vocab, 0);
    LmHeadSpec head{.module = Scope(std::string(layout.lm_head)), .hidden = d.d_model, .vocab = d.vocab};
    if (tie) head.tied_weight = table;
    return lm_head(b, x, "LM_Head", head);
  }

  const Scope root = in.head == Head::Base ? Scope() : Scope(std::string(layout.base));
  const std::string shared = root("shared.weight");
  const std::string encoder_table = d.shared_embeddings ? shared : (root / "encoder" / "embed_tokens")("weight");
  const Scope output_projection = root / "decoder" / "output_projection";
  const std::string decoder_table = d.shared_embeddings ? shared
                                    : layout.fsmt_vocab ? output_projection("weight")
                                                        : (root / "decoder" / "embed_tokens")("weight");

  std::int64_t source = in.sequence_length(usable);
  Value ids;
  if (layout.speech_encoder) {
    // --seq counts filter-bank frames; each stride-2 convolution halves them before the positions.
    source = in.requested_seq ? *in.requested_seq : std::min<std::int64_t>(4 * d.encoder_positions, kDefaultSequenceCap);
    ids = b.input({source, d.input_features}, "audio_features", "input_features");
  } else {
    ids = b.input({source}, "tokens");
  }
  auto memory = stacks.encoder(ids, root / "encoder", encoder_table, true);

  // Classification and QA decode the source shifted right: the target length is the source's.
  std::int64_t target = in.target_length(std::min(source, d.decoder_positions));
  if (shifted_source) {
    if (in.requested_target_seq && *in.requested_target_seq != source)
      b.note(fmt::format("{} decodes the source shifted right: the target length is the source's {}, not {}",
                         in.class_name, source, *in.requested_target_seq));
    target = source;
  }
  auto target_ids = b.input({target}, "tokens", "decoder_input_ids");
  // Unshared Marian tables are copies of the source table, so they have its rows.
  auto x = stacks.decoder(target_ids, memory, root / "decoder", decoder_table,
                          !d.shared_embeddings && !layout.fsmt_vocab, layout.fsmt_vocab ? d.decoder_vocab : d.vocab,
                          static_cast<int>(d.encoder.layers));
  if (layout.fsmt_vocab) {
    // The decoder itself ends in logits over the target vocabulary, in the base model too.
    x = lm_head(b, x, "Output_Projection",
                {.module = output_projection, .hidden = d.d_model, .vocab = d.decoder_vocab});
    if (in.head == Head::Seq2SeqLM) return x;
  }

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
