#pragma once
// The T5 encoder-decoder shared by t5, mt5, umt5, longt5 and switch_transformers: one `shared`
// token table that both stacks read (encoder/decoder.embed_tokens alias it), pre-norm blocks with
// bias-free projections and weight-only RMS norms, no absolute positions but a bucketed
// relative-position bias, and a decoder whose blocks add cross-attention over the encoder.
#include <cstdint>
#include <functional>
#include <string_view>

#include "families/family.hpp"

namespace neurarch::families::t5 {

/// The config class's defaults for keys absent from config.json (T5Config's here).
struct ConfigDefaults {
  std::int64_t vocab = 32128;
  std::int64_t d_model = 512;
  std::int64_t d_ff = 2048;
  std::int64_t layers = 6;
  std::int64_t heads = 8;
  std::string_view feed_forward_proj = "relu";
  /// The activation when config.json has no dense_act_fn; empty: feed_forward_proj's (T5Config
  /// derives it; Pop2PianoConfig defaults it to "relu" whatever feed_forward_proj says).
  std::string_view dense_act_fn = {};
  bool tie_word_embeddings = true;
  /// The default source length when config.json has no n_positions (the length pre-training used).
  std::int64_t pretraining_length = 512;
};

/// What the encoder reads instead of token ids through `shared` (Pop2Piano: spectrogram features
/// behind a composer embedding): the encoder's inputs_embeds for a source of `source` positions.
/// encoder.embed_tokens stays a saved alias of `shared`, which the decoder then reads.
using EncoderEmbeds = graph::Value (*)(const BuildInput& in, graph::GraphBuilder& b, std::int64_t source,
                                       std::int64_t d_model);

struct Layout {
  /// false (T5, mT5): only block 0 of each stack owns relative_attention_bias and the others
  /// reuse its output; true (UMT5): every block owns one.
  bool bias_in_every_layer = false;
  ConfigDefaults defaults;
  /// LongT5: encoder_attention_type picks the encoder's attention, "local" (LocalSelfAttention:
  /// blocks of local_radius + 1 queries against their own and both neighbouring blocks) or
  /// "transient-global" (TransientGlobalSelfAttention: the same keys plus one summary token per
  /// global_block_size tokens, with its own position table and global_input_layer_norm).
  bool long_encoder = false;
  /// SwitchTransformers: the feed-forward module is `mlp`, never gated (dense_act_fn alone), and
  /// the layers encoder_sparse_step / decoder_sparse_step pick route each token to one of
  /// num_experts experts (mlp.router.classifier, mlp.experts.expert_<e>.{wi, wo}).
  bool switch_mlp = false;
  /// null: the encoder embeds token ids.
  EncoderEmbeds encoder_embeds = nullptr;
  /// T5Config reads feed_forward_proj "gated-gelu" as gelu_new; UdopConfig takes the last word as it is.
  bool gated_gelu_is_gelu_new = true;
  /// UdopConfig drops any tie_word_embeddings given and always ties lm_head to `shared`.
  bool always_tied = false;
  /// UDOP: turns the encoder's token embeddings into the sequence its blocks read (image patches joined,
  /// 2-D cell embeddings added). Unset: the token embeddings as they are.
  std::function<graph::Value(graph::GraphBuilder&, const graph::Value& tokens)> encoder_input;
  /// UDOP: given block 0's relative-bias node of a stack (`stack`: its module, `decoder`: which one), declares
  /// the stack's own bias tables and returns the bias every block of it adds to its scores. Unset: block 0's.
  std::function<graph::Value(graph::GraphBuilder&, const graph::Value& bias, const graph::Scope& stack, bool decoder)>
      stack_bias;
};

graph::Value build(const BuildInput& in, graph::GraphBuilder& b, const Layout& layout);

}  // namespace neurarch::families::t5
