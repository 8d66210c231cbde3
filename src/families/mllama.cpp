// Llama 3.2 Vision (models/mllama/modeling_mllama.py + configuration_mllama.py, transformers 5.24.0). The image
// is cut into up to max_num_tiles tiles of image_size px; `vision_model` embeds each tile's patches (a bias-free
// Conv2d), prepends class_embedding, adds a gated aspect-ratio embedding per tile (pre_tile_positional_embedding),
// the gated patch positions plus a gated per-tile position table (gated_positional_embedding), LayerNorms, pads
// every tile to a multiple of 8 tokens and runs `transformer` (pre-norm, bias-free attention, fc1/fc2 GELU MLP)
// over all tiles at once; layernorm_post, a second gated aspect-ratio embedding and `global_transformer` (the
// same layers, each branch scaled by tanh of gate_attn / gate_ffn) follow, and the last state concatenated with
// the intermediate_layers_indices states is vision_output_dim wide. `multi_modal_projector` (biased) maps it to
// the text width. The text model is Llama's decoder with 8 extra embedding rows, whose cross_attention_layers
// replace self-attention by gated cross-attention to the image states (cross_attn: q/k/v/o plus per-head q_norm /
// k_norm, cross_attn_attn_gate and cross_attn_mlp_gate). `lm_head` (vocab_size rows, never tied) sits at the top.
// The prompt holds one <|image|> token; the image reaches the text only through the cross-attention.
#include <fmt/format.h>

#include "families/clip_common.hpp"
#include "families/llava_common.hpp"
#include "families/mllama_common.hpp"

namespace neurarch::families {
namespace mllama_impl {
namespace {

using namespace blocks;

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config& c = in.config;
  const Config vision_config = c.child("vision_config");
  const Config text_config = c.child("text_config");
  const bool with_head = in.head != Head::Base;

  Value out;
  std::int64_t hidden = 0, vocab = 0;
  {
    std::optional<graph::Nested> model;
    if (with_head) model.emplace(b, graph::Nest{.module = "model", .label = ""});
    mllama::VisionOut v;
    {
      graph::Nested nest(b, {.module = "vision_model", .label = "Vision_", .first_block = 0});
      v = mllama::vision(in, b, vision_config);
    }
    mllama::Text t = mllama::text(text_config);
    hidden = t.spec.hidden, vocab = t.vocab;
    mllama::cross_attend(t, dense(b, v.states, "Multi_Modal_Projector", Scope("multi_modal_projector"), v.width,
                                  hidden, true));
    b.note(fmt::format("one image in {} tiles: {} vision tokens, read by {} cross-attention layers; --image-size sets "
                       "the tile's side",
                       v.tiles, v.tokens, t.cross_layers.size()));
    const std::int64_t seq = llava::prompt_length(in, b, text_config, 1);
    {
      graph::Nested nest(b, {.module = "language_model", .label = "LM_", .first_block = b.next_block()});
      const BuildInput lm{text_config, "MllamaTextModel", Head::Base, seq, std::nullopt};
      out = decoder::build_decoder(lm, b, t.spec);
    }
    mllama::finish_text(b, out, t);
  }
  if (with_head) out = lm_head(b, out, "LM_Head", {.module = Scope("lm_head"), .hidden = hidden, .vocab = vocab});
  return out;
}

}  // namespace
}  // namespace mllama_impl

const Family& mllama_family() {
  static const Family family{"mllama", "models/mllama/modeling_mllama.py",
                             {{"MllamaModel", Head::Base}, {"MllamaForConditionalGeneration", Head::CausalLM}},
                             mllama_impl::build};
  return family;
}

}  // namespace neurarch::families
