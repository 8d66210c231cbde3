// CSM (CsmForConditionalGeneration in models/csm/modular_csm.py, transformers 4.57.6; 5.24 checked): Sesame's
// conversational speech model, a Llama backbone over text and audio frames, a small Llama depth decoder that
// predicts the remaining codebooks of each frame, and the Mimi codec.
// - embed_text_tokens [text_vocab_size, hidden] for text positions; backbone_model.embed_tokens.embed_audio_tokens
//   [num_codebooks x vocab_size, hidden] for audio frames (each codebook at its own offset, the lookups summed).
//   With tie_codebooks_embeddings (default) that table is depth_decoder.model.embed_tokens, saved once there.
// - backbone_model: LlamaModel (layers, norm); lm_head [vocab_size, hidden] gives codebook 0's logits.
// - depth_decoder (CsmDepthDecoderForCausalLM): per frame, the backbone's state followed by that frame's codes
//   looked up in embed_tokens [num_codebooks x vocab_size, backbone_hidden_size], inputs_embeds_projector to its
//   own width, Llama layers and norm over num_codebooks positions, and codebooks_head.weight
//   [num_codebooks - 1, hidden, vocab_size]: one projection per remaining codebook. It runs for every frame here
//   (the frames are its batch); the reference trains it on the audio frames the labels select.
// - codec_model: MimiModel of codec_config, its own branch from one second of waveform.
#include <fmt/format.h>

#include "blocks/blocks.hpp"
#include "families/decoder_stack.hpp"
#include "families/mimi.hpp"

namespace neurarch::families {
namespace csm_impl {
namespace {

using namespace blocks;
using graph::NodeType;

decoder::DecoderSpec llama_spec(const Config& c, const decoder::LlamaDefaults& defaults) {
  decoder::DecoderSpec s = decoder::read_llama_config(c, defaults);
  s.qkv_bias = s.o_bias = c.flag({"attention_bias"}, false);
  s.mlp_bias = s.down_bias = c.flag({"mlp_bias"}, false);
  s.attention_dropout = c.number({"attention_dropout"}, 0.0);
  return s;
}

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config& c = in.config;
  const Config depth_config = c.child("depth_decoder_config");
  const decoder::DecoderSpec backbone = llama_spec(
      c, {.vocab = 2051, .hidden = 2048, .intermediate = 8192, .layers = 16, .heads = 32, .kv_heads = 8,
          .positions = 2048});
  const decoder::DecoderSpec depth = llama_spec(
      depth_config, {.vocab = 2051, .hidden = 1024, .intermediate = 8192, .layers = 4, .heads = 8, .kv_heads = 2,
                     .positions = 33});
  const std::int64_t codebooks = c.dim({"num_codebooks"}, 32);
  const std::int64_t depth_codebooks = depth_config.dim({"num_codebooks"}, 32);
  const std::int64_t backbone_width = depth_config.dim({"backbone_hidden_size"}, 2048);
  const std::int64_t text_vocab = c.dim({"text_vocab_size"}, 128256);
  const bool tie_codebooks = c.flag({"tie_codebooks_embeddings"}, true);
  const Scope backbone_root("backbone_model");
  const Scope depth_root = Scope("depth_decoder") / "model";
  const std::string depth_table = (depth_root / "embed_tokens")("weight");

  // Backbone input: text tokens and, at audio positions, the frame's codes (merged by the processor's mask).
  const std::int64_t frames = in.sequence_length(backbone.positions);
  auto text_ids = b.input({frames}, "tokens");
  auto text = token_embedding(b, text_ids, "Text_Embedding", Scope("embed_text_tokens"), text_vocab, backbone.hidden);
  auto codes = b.input({frames, codebooks}, "tokens", "audio_codes");
  const Scope audio_table = backbone_root / "embed_tokens" / "embed_audio_tokens";
  auto audio = b.node(NodeType::Embedding, "Audio_Embedding", {frames, backbone.hidden}, {codes}, audio_table);
  const graph::Shape audio_shape{codebooks * backbone.vocab, backbone.hidden};
  if (tie_codebooks)
    b.tied(audio, audio_table("weight"), audio_shape, depth_table, graph::TensorRole::Embedding);
  else
    b.parameter(audio, audio_table("weight"), audio_shape, graph::TensorRole::Embedding);
  auto x = b.node(NodeType::Add, "Text_Audio_Merge", text.shape, {text, audio});
  x = decoder::decoder_stack(b, x, backbone_root, backbone, 0);
  auto logits = lm_head(b, x, "LM_Head", {.module = Scope("lm_head"), .hidden = backbone.hidden,
                                          .vocab = backbone.vocab});

  // Depth decoder: per frame, [backbone state, codes of codebooks 0 .. n-2] as its num_codebooks positions.
  auto depth_codes = b.input({frames, depth_codebooks - 1}, "tokens", "depth_decoder_input_ids");
  auto depth_embeds = b.node(NodeType::Embedding, "Depth_Codebook_Embedding",
                             {frames, depth_codebooks - 1, backbone_width}, {depth_codes}, depth_root / "embed_tokens");
  b.parameter(depth_embeds, depth_table, {depth_codebooks * depth.vocab, backbone_width}, graph::TensorRole::Embedding);
  auto y = b.node(NodeType::Add, "Backbone_State_Prepend", {frames, depth_codebooks, backbone_width},
                  {x, depth_embeds});
  if (backbone_width != backbone.hidden)
    b.fail(y, fmt::format("the depth decoder reads backbone states of width {}, the backbone gives {}",
                          backbone_width, backbone.hidden));
  y = dense(b, y, "Inputs_Embeds_Projector", depth_root / "inputs_embeds_projector", backbone_width, depth.hidden,
            false);
  {
    // The depth decoder's layers are named apart from the backbone's (Depth_Attention_0 ...).
    graph::Nested nest(b, {.module = "", .label = "Depth_", .first_block = 0});
    y = decoder::decoder_stack(b, y, depth_root, depth, b.next_block());
  }
  const Scope codebooks_head = Scope("depth_decoder") / "codebooks_head";
  auto depth_logits = b.node(NodeType::LMHead, "Codebooks_Head", {frames, depth_codebooks - 1, depth.vocab}, {y},
                             codebooks_head);
  b.parameter(depth_logits, codebooks_head("weight"), {depth_codebooks - 1, depth.hidden, depth.vocab}, graph::TensorRole::Stacked);

  mimi::nested_codec(b, c.child("codec_config"), "codec_model");
  return b.node(NodeType::Add, "Backbone_And_Depth_Logits", logits.shape, {logits, depth_logits});
}

}  // namespace
}  // namespace csm_impl

const Family& csm_family() {
  static const Family family{"csm", "models/csm/modeling_csm.py",
                             {{"CsmForConditionalGeneration", Head::CausalLM}}, csm_impl::build};
  return family;
}

}  // namespace neurarch::families
