#pragma once
// Pieces shared by BLIP, BLIP-2 and InstructBLIP (models/blip/modeling_blip.py, models/blip_2/modeling_blip_2.py,
// models/instructblip/modeling_instructblip.py, transformers 4.47.1): the ViT-style vision tower they all use
// (a class token, a [1, patches + 1, hidden] position parameter, pre-norm layers with one fused `qkv` and a
// `projection`, and a post_layernorm the pooled class token goes through a second time). Its attention has
// only the eager path there, so score matrices are kept in training whatever --attention says. And the
// Q-Former of BLIP-2 and InstructBLIP: learned query tokens, BERT-style post-norm layers under their own names
// (attention.attention.*, crossattention every cross_attention_frequency layers, intermediate_query /
// output_query for the queries, intermediate / output for text tokens).
#include <cstdint>
#include <string>

#include "families/bert_common.hpp"
#include "families/family.hpp"

namespace neurarch::families::blip {

using blocks::GraphBuilder;
using blocks::Scope;
using blocks::Value;

/// The vision config class's defaults.
struct VisionDefaults {
  std::int64_t hidden;
  std::int64_t intermediate;
  std::int64_t layers;
  std::int64_t heads;
  std::int64_t image;
  std::int64_t patch;
  /// BLIP-2 and InstructBLIP read qkv_bias (q and v biases, stored as one qkv.bias); BLIP's qkv always has one.
  bool qkv_bias_key;
};
inline constexpr VisionDefaults kBlipVision{768, 3072, 12, 12, 384, 16, false};
inline constexpr VisionDefaults kBlip2Vision{1408, 6144, 39, 16, 224, 14, true};

struct VisionTower {
  Value input;     ///< pixel_values
  Value sequence;  ///< last_hidden_state, post-layernormed: [1 + patches, hidden]
  Value pooled;    ///< pooler_output: the class token, layernormed again: [hidden]
  std::int64_t hidden = 0;
};

/// The vision model under `root` (BlipVisionModel / Blip2VisionModel) from the vision config `c`, run over
/// `frames` images of one sample at once when more than one (InstructBLIP-Video: [frames, tokens, hidden]).
VisionTower vision_tower(const BuildInput& in, GraphBuilder& b, const Config& c, const VisionDefaults& defaults,
                         const Scope& root, std::int64_t frames = 1);

/// BlipTextConfig's BERT layout inside BlipModel and its heads: no token types, absolute positions only, a
/// `crossattention` in every layer whenever is_decoder (the default), eager attention only, `bert` as the base
/// model's attribute in BlipTextLMHeadModel, and an LM decoder weight the composite's tie_weights never ties.
bert::Layout text_layout();

struct QFormerFeed {
  Scope root;                        ///< "qformer" inside the composite models, "" built alone
  Value queries;                     ///< query embeddings [queries, hidden]
  Value image;                       ///< encoder_hidden_states [image tokens, encoder width]
  std::int64_t encoder_width = 0;    ///< what cross-attention's keys and values read
  /// The layers hold a text FFN (intermediate / output) this forward does not run: BLIP-2's Q-Former with
  /// use_qformer_text_input.
  bool text_ffn = false;
  /// InstructBLIP: the instruction's length in tokens (qformer_input_ids, at most the Q-Former's
  /// max_position_embeddings: the caller clamps it), 0 for none. Its tokens are embedded
  /// by the Q-Former's own word and position tables and joined after the queries: self-attention runs over
  /// both, cross-attention and the query FFN over the queries, the text FFN over the instruction.
  std::int64_t instruction_tokens = 0;
  /// forward()'s argument for the instruction's token ids: the composite models' qformer_input_ids, the Q-Former
  /// built alone's input_ids.
  std::string instruction_input = "qformer_input_ids";
  /// InstructBLIP-Video: frames run through the Q-Former side by side (shapes [frames, rows, hidden]); the
  /// image states then hold one frame's tokens per row of frames.
  std::int64_t frames = 1;
};

/// The Q-Former's layer stack from the Q-Former config `c`; returns the query tokens' last hidden state
/// ([queries, hidden], the first rows of the last layer's output when an instruction runs alongside).
Value qformer(GraphBuilder& b, const Config& c, const QFormerFeed& feed);

/// InstructBLIP's Q-Former built alone from its own config (InstructBlipQFormerModel, and InstructBLIP-Video's copy):
/// forward(input_ids, query_embeds, encoder_hidden_states) with the instruction --seq tokens (at most, and by
/// default, max_position_embeddings), InstructBLIP's 32 query embeddings and a vision tower's image tokens (14-pixel
/// patches at --image-size, class token included), encoder_hidden_size wide.
Value instruction_qformer_model(const BuildInput& in, GraphBuilder& b);

/// `query_tokens` [1, queries, hidden] at the model's root: a learned table the batch expands.
Value query_tokens(GraphBuilder& b, std::int64_t queries, std::int64_t hidden);

/// The width language_projection writes: the token embedding of text_config's language model.
std::int64_t language_width(const BuildInput& in, const Config& text);

/// text_config's language model under `language_model` (AutoModelForCausalLM when its family has a causal-LM
/// class, else AutoModelForSeq2SeqLM), built by its own family's code. The projected query outputs `features`
/// fill the prompt's image tokens when the config sets image_token_index, else they are put in front of the
/// embedded input_ids. Either way the language model runs --seq positions, query outputs included.
Value language_model(const BuildInput& in, GraphBuilder& b, const Config& text, const Value& features);

/// InstructBLIP (and, with `frames` > 1, InstructBLIP-Video): the vision tower, the Q-Former reading the query
/// tokens and the instruction, language_projection and the language model, whose prompt holds frames x queries
/// image tokens.
Value instructed(const BuildInput& in, GraphBuilder& b, std::int64_t frames);

}  // namespace neurarch::families::blip
