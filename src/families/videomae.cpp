// VideoMAE (models/videomae/modeling_videomae.py, transformers 4.47.1): a Conv3d tubelet embedding
// (tubelet_size frames x patch_size x patch_size) of a [num_frames, C, H, W] clip plus a fixed sinusoid
// table (a plain attribute: not saved), then ViT's pre-norm layers whose query, key and value Linears have no
// bias; with qkv_bias the attention module owns q_bias and v_bias (the key's bias is zero). The model ends in
// a LayerNorm only when use_mean_pooling is off; the video classifier averages the tokens through fc_norm
// when it is on (else reads token 0). The patch embedding refuses frames of another size.
#include "families/family.hpp"
#include "families/video_common.hpp"
#include "families/vit_common.hpp"

namespace neurarch::families {
namespace videomae_impl {
namespace {

using namespace blocks;

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config& c = in.config;
  const std::int64_t hidden = c.dim({"hidden_size"}, 768);
  const std::int64_t patch = c.dim({"patch_size"}, 16);
  video::Clip clip{.frames = c.dim({"num_frames"}, 16), .channels = c.dim({"num_channels"}, 3),
                   .configured_image = c.dim({"image_size"}, 224)};
  clip.image = in.image_size(clip.configured_image);
  const video::Tubelet tubelet{c.dim({"tubelet_size"}, 2), patch, patch};
  const bool qkv_bias = c.flag({"qkv_bias"}, true);
  const bool mean_pooling = c.flag({"use_mean_pooling"}, true);

  const Scope root = in.head == Head::Base ? Scope() : Scope("videomae");
  auto x = video::tubelet_stem(b, clip, tubelet, root / "embeddings" / "patch_embeddings" / "projection", hidden, 0);
  video::refuse_other_sizes(b, x, clip, "VideoMAE");

  const vit::EncoderSpec encoder{.layers = root / "encoder" / "layer",
                                 .hidden = hidden,
                                 .count = c.dim({"num_hidden_layers"}, 12),
                                 .heads = c.dim({"num_attention_heads"}, 12),
                                 .intermediate = c.dim({"intermediate_size"}, 3072),
                                 .activation = c.text({"hidden_act"}, "gelu"),
                                 .qkv_bias = false};
  for (std::int64_t i = 0; i < encoder.count; ++i) {
    const std::size_t first_node = b.graph().nodes.size();
    x = vit::vit_layer(b, x, encoder, i, i);
    if (!qkv_bias) continue;
    // The separate q and v biases belong to the layer's attention node.
    const Scope self = encoder.layers / i / "attention" / "attention";
    for (std::size_t k = first_node; k < b.graph().nodes.size(); ++k)
      if (b.graph().nodes[k].attention) {
        const Value attn{static_cast<int>(k), b.graph().nodes[k].out};
        b.parameter(attn, self("q_bias"), {hidden}, graph::TensorRole::Bias);
        b.parameter(attn, self("v_bias"), {hidden}, graph::TensorRole::Bias);
        break;
      }
  }
  if (!mean_pooling) x = norm(b, x, "Final_LayerNorm", {root / "layernorm"});
  if (in.head == Head::Base) return x;
  Value pooled = vit::first_token(x);
  if (mean_pooling) pooled = norm(b, Value{x.node, {hidden}}, "FC_LayerNorm", {Scope("fc_norm")});
  return classifier(b, pooled, "Classifier", Scope("classifier"), hidden, in.num_labels(), true);
}

}  // namespace
}  // namespace videomae_impl

const Family& videomae_family() {
  static const Family family{"videomae", "models/videomae/modeling_videomae.py",
                             classes("VideoMAE", {heads::ForVideoClassification}), videomae_impl::build};
  return family;
}

}  // namespace neurarch::families
