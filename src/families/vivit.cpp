// ViViT (models/vivit/modeling_vivit.py, transformers 4.47.1): the factorised-encoder-free variant HF ships,
// i.e. one ViT over a whole clip. A Conv3d tubelet embedding (tubelet_size [t, h, w]) of [num_frames, C, H, W]
// pixels, a CLS token and learned positions for every tubelet token + 1, then ViT's pre-norm layers under
// ViT's names, a final LayerNorm and (in VivitModel) a tanh pooler over the CLS token. The video classifier
// reads the CLS token (its VivitModel has no pooler). The embeddings refuse frames of another size.
#include "families/config_lists.hpp"
#include "families/family.hpp"
#include "families/video_common.hpp"
#include "families/vit_common.hpp"

namespace neurarch::families {
namespace vivit_impl {
namespace {

using namespace blocks;

video::Tubelet read_tubelet(const Config& c) {
  const auto sizes = size_list(c, "tubelet_size", {2, 16, 16});
  require_length(c, "tubelet_size", sizes, 3);
  return {sizes[0], sizes[1], sizes[2]};
}

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config& c = in.config;
  const std::int64_t hidden = c.dim({"hidden_size"}, 768);
  video::Clip clip{.frames = c.dim({"num_frames"}, 32), .channels = c.dim({"num_channels"}, 3),
                   .configured_image = c.dim({"image_size"}, 224)};
  clip.image = in.image_size(clip.configured_image);
  const video::Tubelet tubelet = read_tubelet(c);

  const Scope root = in.head == Head::Base ? Scope() : Scope("vivit");
  const Scope emb = root / "embeddings";
  auto x = video::tubelet_stem(b, clip, tubelet, emb / "patch_embeddings" / "projection", hidden, 1);
  b.parameter(x, emb("cls_token"), {1, 1, hidden}, graph::TensorRole::Other);
  video::refuse_other_sizes(b, x, clip, "ViViT");
  x = vit::position_table(b, x, emb, video::tubelet_tokens(clip, tubelet, clip.configured_image) + 1, x.shape);
  b.at(x).dropout = c.number({"hidden_dropout_prob"}, 0.0);

  x = vit::vit_layers(b, x,
                      {.layers = root / "encoder" / "layer",
                       .hidden = hidden,
                       .count = c.dim({"num_hidden_layers"}, 12),
                       .heads = c.dim({"num_attention_heads"}, 12),
                       .intermediate = c.dim({"intermediate_size"}, 3072),
                       .activation = c.text({"hidden_act"}, "gelu_fast"),
                       .qkv_bias = c.flag({"qkv_bias"}, true)});
  x = norm(b, x, "Final_LayerNorm", {root / "layernorm"});
  if (in.head == Head::Base) return pooler(b, x, "Pooler", Scope("pooler") / "dense", hidden);
  return classifier(b, vit::first_token(x), "Classifier", Scope("classifier"), hidden, in.num_labels(), true);
}

}  // namespace
}  // namespace vivit_impl

const Family& vivit_family() {
  static const Family family{"vivit", "models/vivit/modeling_vivit.py",
                             classes("Vivit", {heads::ForVideoClassification}), vivit_impl::build};
  return family;
}

}  // namespace neurarch::families
