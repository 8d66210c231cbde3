#pragma once
// The BART-style encoder-decoder shared by bart, mbart, pegasus, marian, m2m_100, led, blenderbot,
// blenderbot-small, plbart, mvp and nllb-moe: a `shared`
// token table (encoder/decoder embed_tokens alias it), absolute positions (learned with an
// offset of 2, or a fixed sinusoid stored as a weight or kept as a non-persistent buffer),
// optional layernorm_embedding, post-norm (BART, Marian) or pre-norm layers with a final
// layer_norm per stack (mBART, Pegasus, M2M100), decoders with encoder_attn, and the heads:
// lm_head + final_logits_bias, an <eos> classification head, QA spans, and a decoder-only
// *ForCausalLM whose layers store encoder_attn weights they never run without encoder states.
#include <cstdint>
#include <string_view>

#include "families/family.hpp"

namespace neurarch::families::bart {

enum class Positions {
  Learned,           ///< embed_positions.weight [max_positions + offset, d], position ids start at offset
  SinusoidStored,    ///< a fixed sinusoid saved as embed_positions.weight [max_positions, d] (Pegasus, Marian)
  SinusoidBuffer,    ///< a fixed sinusoid in a non-persistent buffer, regrown on demand (M2M100)
  /// A fixed sinusoid held as a frozen nn.Parameter `embed_positions.weights` [max_positions + offset, d],
  /// regrown (and so never too short) for a longer input (Speech2Text).
  SinusoidFrozenWeights,
};

/// The config class's defaults for keys absent from config.json.
struct ConfigDefaults {
  std::int64_t vocab = 50265;
  std::int64_t pad = 1;
  std::string_view activation = "gelu";
  bool scale_embedding = false;
  std::int64_t d_model = 1024;
  std::int64_t encoder_layers = 12, decoder_layers = 12;
  std::int64_t heads = 16;  ///< encoder_attention_heads and decoder_attention_heads
  std::int64_t ffn = 4096;  ///< encoder_ffn_dim and decoder_ffn_dim
  double attention_dropout = 0.0;
};

struct Layout {
  ConfigDefaults defaults;
  Positions positions = Positions::Learned;
  std::int64_t position_offset = 2;  ///< Learned only: BART's legacy offset of 2 rows
  bool layernorm_embedding = true;
  bool pre_norm = false;             ///< mBART-style: norm before each sublayer, layer_norm after each stack
  bool final_logits_bias = true;     ///< the LM class registers a [1, vocab] buffer added to the logits
  bool marian_vocab = false;         ///< share_encoder_decoder_embeddings / decoder_vocab_size (Marian)
  bool sdpa = true;                  ///< false: the reference has only the eager attention class
  /// The LM class lists the stored sinusoid in _keys_to_ignore_on_save (MarianMTModel): the table
  /// exists but its checkpoint leaves it out.
  bool lm_drops_positions = false;
  /// The base model's attribute in the head classes: "model" (BART), "led" (LED).
  std::string_view base = "model";
  /// LED: each stack has its own learned table (max_encoder_position_embeddings,
  /// max_decoder_position_embeddings) instead of one max_position_embeddings.
  bool split_positions = false;
  /// LED: the encoder's self-attention is Longformer's (self_attn.longformer_self_attn.{query, key,
  /// value, query_global, key_global, value_global} + self_attn.output), sliding over
  /// attention_window / 2 tokens on either side.
  bool longformer_encoder = false;
  std::int64_t default_positions = 1024;  ///< max_position_embeddings (encoder's, when split) when absent
  /// The key that sizes both stacks' positions when they are not split (Speech2Text2's decoder reads
  /// max_target_positions).
  std::string_view positions_key = "max_position_embeddings";
  /// Module names NLLB-MoE changes: the decoder's cross-attention (its norm is `<name>_layer_norm`),
  /// the feed-forward's own module (empty: fc1/fc2 sit on the layer) and its norm.
  std::string_view cross_attention = "encoder_attn";
  std::string_view ffn_module;
  std::string_view ffn_norm = "final_layer_norm";
  /// NLLB-MoE: layer i with (i + 1) % {encoder,decoder}_sparse_step == 0 routes each token to its
  /// top 2 of num_experts experts (router.classifier, experts.expert_<e>.{fc1, fc2}, with biases).
  bool sparse_ffn = false;
  /// MVP: with use_prompt, the encoder (self_attn_prompt) and decoder (self_attn_prompt,
  /// cross_attn_prompt) turn prompt_length learned rows into a key/value prefix for each layer.
  bool prompts = false;
  /// Speech2Text: the encoder reads filter-bank frames [frames, input_feat_per_channel x input_channels]
  /// through encoder.conv (Conv1dSubsampler: one stride-2 convolution per conv_kernel_sizes entry, each
  /// followed by a GLU that halves its channels), scaled like token embeddings; positions are sized by
  /// max_source_positions / max_target_positions; the decoder owns its token table (no `shared`).
  bool speech_encoder = false;
  /// FSMT: src_vocab_size / tgt_vocab_size tables of their own, and every class ends the decoder with
  /// decoder.output_projection (the saved table; decoder.embed_tokens aliases it) rather than lm_head.
  bool fsmt_vocab = false;
  /// SinusoidFrozenWeights: the parameter's name, and whether its extra rows are padding_idx + 1
  /// (fairseq's make_positions, FSMT) rather than position_offset.
  std::string_view sinusoid_name = "weights";
  bool sinusoid_offset_after_pad = false;
  /// false: q/k/v/out projections have no bias (PEGASUS-X).
  bool attention_bias = true;
  /// PEGASUS-X: the encoder's self-attention is local over block_size blocks (staggered by half a block
  /// on odd layers with stagger_local_blocks), every block also attending to num_global_tokens learned
  /// global tokens (encoder.embed_global) that attend to everything; each layer normalises the global
  /// tokens with global_self_attn_layer_norm.
  bool block_local_encoder = false;
  /// BigBirdPegasus: the encoder's self-attention is BigBird's (self_attn.self.{query, key, value},
  /// self_attn.output; block-sparse per attention_type); use_bias switches every attention bias.
  bool block_sparse_encoder = false;
  /// The norm after each pre-norm stack (BigBirdPegasus calls it layernorm_embedding).
  std::string_view final_norm = "layer_norm";
  /// The LM head's module (TrOCR's output_projection).
  std::string_view lm_head = "lm_head";
  /// TrOCR: cross_attention_hidden_size (when set) is the width encoder_attn's k/v projections read.
  bool cross_attention_width_key = false;
};

graph::Value build(const BuildInput& in, graph::GraphBuilder& b, const Layout& layout);

}  // namespace neurarch::families::bart
