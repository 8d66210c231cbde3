#include "families/flava_common.hpp"

#include "families/vit_common.hpp"

namespace neurarch::families::flava {

using namespace blocks;

// An encoder, its layernorm and pooler under `root`.
Tower encode(GraphBuilder& b, const Value& x, const Config& c, const Scope& root, std::int64_t first_block) {
  vit::EncoderSpec enc = vit::read_encoder(c);
  enc.layers = root / "encoder" / "layer";
  enc.first_block = first_block;
  Tower t{norm(b, vit::vit_layers(b, x, enc), "Final_LayerNorm", {root / "layernorm"}), enc.hidden};
  pooler(b, t.states, "Pooler", root / "pooler" / "dense", t.hidden);
  return t;
}

Tower image_model(const BuildInput& in, GraphBuilder& b, const Config& c, const Scope& root) {
  const BuildInput sub{c, in.class_name, Head::Base, in.requested_seq, in.requested_image_size};
  const vit::Geometry g = vit::read_geometry(sub, {224, 224, false}, 16);
  const std::int64_t hidden = c.dim({"hidden_size"}, 768);
  const Scope emb = root / "embeddings";
  auto x = vit::pixel_stem(b, g, emb / "patch_embeddings" / "projection", hidden, 1);
  vit::refuse_other_sizes(b, x, g, "FLAVA");
  b.parameter(x, emb("cls_token"), {1, 1, hidden}, graph::TensorRole::Other);
  if (c.flag({"mask_token"}, true)) b.parameter(x, emb("mask_token"), {1, 1, hidden}, graph::TensorRole::Other);
  x = vit::position_table(b, x, emb, g.configured_patches() + 1, x.shape);
  b.at(x).dropout = c.number({"hidden_dropout_prob"}, 0.0);
  return encode(b, x, c, root, 0);
}

Tower text_model(const BuildInput& in, GraphBuilder& b, const Config& c, const Scope& root, std::int64_t first_block) {
  const std::int64_t hidden = c.dim({"hidden_size"}, 768);
  const std::int64_t positions = c.dim({"max_position_embeddings"}, 512);
  const Scope emb = root / "embeddings";
  auto ids = b.input({in.sequence_length(positions)}, "tokens");
  auto x = token_embedding(b, ids, "Word_Embedding", emb / "word_embeddings", c.dim({"vocab_size"}, 30522), hidden);
  x = learned_positions(b, x, "Position_Embedding", emb / "position_embeddings", positions, hidden);
  x = added_embedding(b, x, "Token_Type_Embedding", emb / "token_type_embeddings", c.dim({"type_vocab_size"}, 2),
                      hidden);
  x = norm(b, x, "Embedding_LayerNorm", {emb / "LayerNorm"});
  b.at(x).dropout = c.number({"hidden_dropout_prob"}, 0.0);
  return encode(b, x, c, root, first_block);
}

}  // namespace neurarch::families::flava
