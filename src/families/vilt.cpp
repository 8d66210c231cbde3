// ViLT (models/vilt/modeling_vilt.py + configuration_vilt.py, transformers 4.47.1): one transformer over the
// text tokens followed by the image patches. Text: BERT's embeddings (`embeddings.text_embeddings`: word,
// token-type and position tables, LayerNorm). Image: a patch Conv2d with bias, a `cls_token` in front and the
// `position_embeddings` [1, patches + 1, hidden] table, bilinearly resized to the image's patch grid, so any
// image size runs; max_image_length > 0 keeps at most that many patches (sampled). Both streams add
// `embeddings.token_type_embeddings` (the modality: 0 text, 1 image) before they are concatenated. ViT-named
// pre-norm layers, a final `layernorm` and a tanh `pooler` on the first (text) token.
#include <algorithm>

#include <fmt/format.h>

#include "families/vit_common.hpp"

namespace neurarch::families {
namespace vilt_impl {
namespace {

using namespace blocks;
using graph::NodeType;

// TextEmbeddings: [seq, hidden] after its LayerNorm and the modality embedding.
Value text_stream(const BuildInput& in, GraphBuilder& b, const Scope& emb, std::int64_t hidden, double dropout) {
  const Config& c = in.config;
  const std::int64_t positions = c.dim({"max_position_embeddings"}, 40);
  const Scope text = emb / "text_embeddings";
  auto ids = b.input({in.sequence_length(positions)}, "tokens");
  auto x = token_embedding(b, ids, "Token_Embedding", text / "word_embeddings", c.dim({"vocab_size"}, 30522), hidden);
  x = added_embedding(b, x, "Token_Type_Embedding", text / "token_type_embeddings", c.dim({"type_vocab_size"}, 2),
                      hidden);
  x = learned_positions(b, x, "Position_Embedding", text / "position_embeddings", positions, hidden);
  x = norm(b, x, "Embedding_LayerNorm", {text / "LayerNorm"});
  b.at(x).dropout = dropout;
  return x;
}

// visual_embed: [1 + kept patches, hidden] with the resized positions added.
Value image_stream(const BuildInput& in, GraphBuilder& b, const Scope& emb, std::int64_t hidden, double dropout) {
  const Config& c = in.config;
  const vit::Geometry g = vit::read_geometry(in, {384, 384, false}, 32);
  auto x = vit::pixel_stem(b, g, emb / "patch_embeddings" / "projection", hidden, 1);
  b.parameter(x, emb("cls_token"), {1, 1, hidden}, graph::TensorRole::Other);
  const std::int64_t patches = g.input_patches();
  const std::int64_t max_length = c.integer({"max_image_length"}, -1);
  const std::int64_t kept = max_length > 0 ? std::min(patches, max_length) : patches;
  if (patches < 1)
    b.fail(x, fmt::format("image {}x{} holds no {}x{} patch", g.input.h, g.input.w, g.patch.h, g.patch.w));
  auto pos = vit::position_table(b, x, emb, g.configured_patches() + 1, {1 + kept, hidden});
  b.at(pos).name = "Resized_Pos_Embed";
  b.at(pos).dropout = dropout;
  if (g.configured.h != g.configured.w || g.patch.h != g.patch.w)
    b.fail(pos, "the position table is viewed as a square grid of image_size / patch_size: image_size and "
                "patch_size must be square");
  return pos;
}

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config& c = in.config;
  const std::int64_t hidden = c.dim({"hidden_size"}, 768);
  const double dropout = c.number({"hidden_dropout_prob"}, 0.0);
  const Scope emb("embeddings");

  auto text = text_stream(in, b, emb, hidden, dropout);
  auto image = image_stream(in, b, emb, hidden, dropout);
  // One modality table serves both streams (index 0 for text, image_token_type_idx for patches).
  auto modality = b.node(NodeType::Embedding, "Modality_Embedding", {text.shape[0] + image.shape[0], hidden},
                         {text, image}, emb / "token_type_embeddings");
  b.parameter(modality, (emb / "token_type_embeddings")("weight"), {c.dim({"modality_type_vocab_size"}, 2), hidden}, graph::TensorRole::Embedding);

  const vit::EncoderSpec spec{.layers = Scope("encoder") / "layer",
                              .hidden = hidden,
                              .count = c.dim({"num_hidden_layers"}, 12),
                              .heads = c.dim({"num_attention_heads"}, 12),
                              .intermediate = c.dim({"intermediate_size"}, 3072),
                              .activation = c.text({"hidden_act"}, "gelu"),
                              .qkv_bias = c.flag({"qkv_bias"}, true)};
  auto x = vit::vit_layers(b, modality, spec);
  x = norm(b, x, "Final_LayerNorm", {Scope("layernorm")});
  return pooler(b, x, "Pooler", Scope("pooler") / "dense", hidden);
}

}  // namespace
}  // namespace vilt_impl

const Family& vilt_family() {
  static const Family family{"vilt", "models/vilt/modeling_vilt.py", classes("Vilt"), vilt_impl::build};
  return family;
}

}  // namespace neurarch::families
