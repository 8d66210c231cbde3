// CLAP (ClapModel in models/clap/modeling_clap.py, transformers 4.47.1): a contrastive pair of towers.
// - Audio (audio_model.audio_encoder, HTSAT): log-mel frames [frames, num_mel_bins] pass a BatchNorm2d over the
//   mel bins, are stretched (bicubic) to spec_size * freq_ratio frames (freq_ratio = spec_size / num_mel_bins)
//   and folded into a one-channel spec_size x spec_size image; a patch Conv2d (patch_size kernel, patch_stride,
//   LayerNorm `patch_embed.norm` when enable_patch_layer_norm) feeds Swin's stages (swin::stages, with
//   patch_embeds_hidden_size, depths, num_attention_heads, window_size), a LayerNorm `norm` over the last
//   stage's width and an average over the tokens. enable_fusion's second mel branch is not built (refused).
// - Text (text_model): RoBERTa (bert::roberta_layout) with its pooler; the embeddings' position_ids and
//   token_type_ids buffers are persistent (saved), unlike RoBERTa's.
// - Each tower's pooled vector goes through a ClapProjectionLayer (linear1, projection_hidden_act, linear2) to
//   projection_dim; logit_scale_a and logit_scale_t are scalar parameters.
#include <fmt/format.h>

#include "blocks/upsample.hpp"
#include "core/error.hpp"
#include "families/clap_common.hpp"
#include "families/clip_common.hpp"
#include "families/config_lists.hpp"
#include "families/swin_common.hpp"

namespace neurarch::families {
namespace clap_impl {
namespace {

using namespace blocks;
using graph::NodeType;

// 10 s at the feature extractor's 48 kHz / 480-sample hop: 1,001 frames.
constexpr std::int64_t kDefaultFrames = 1001;

Value audio_tower(const BuildInput& in, GraphBuilder& b, const Config& c) {
  if (c.flag({"enable_fusion"}, false))
    throw Error(ErrorKind::Unsupported, c.origin() + ": audio_config: key 'enable_fusion'",
                "CLAP's fused audio branch (mel_conv2d and the AFF block) is not supported yet");
  const std::int64_t mel = c.dim({"num_mel_bins"}, 64);
  const std::int64_t spec = c.dim({"spec_size"}, 256);
  const std::int64_t patch = c.dim({"patch_size"}, 4);
  const auto stride = size_list(c, "patch_stride", {4, 4});
  require_length(c, "patch_stride", stride, 2);
  const std::int64_t channels = c.dim({"patch_embed_input_channels"}, 1);
  const swin::Settings s{.embed = c.dim({"patch_embeds_hidden_size"}, 96),
                         .depths = size_list(c, "depths", {2, 2, 6, 2}),
                         .heads = size_list(c, "num_attention_heads", {4, 8, 16, 32}),
                         .window = c.dim({"window_size"}, 8),
                         .mlp_ratio = c.number({"mlp_ratio"}, 4.0),
                         .qkv_bias = c.flag({"qkv_bias"}, true),
                         .hidden_dropout = c.number({"hidden_dropout_prob"}, 0.1),
                         .attention_dropout = c.number({"attention_probs_dropout_prob"}, 0.0),
                         .activation = c.text({"hidden_act"}, "gelu")};
  require_length(c, "num_attention_heads", s.heads, s.depths.size());
  const std::int64_t freq_ratio = spec / mel;
  const std::int64_t spec_width = spec * freq_ratio, spec_height = spec / freq_ratio;

  const Scope enc("audio_encoder");
  const std::int64_t frames = in.requested_seq ? *in.requested_seq : kDefaultFrames;
  auto x = b.input({frames, mel}, "audio_features", "input_features");
  // BatchNorm2d over the mel bins (the input transposed so that they are the channels).
  auto map = batch_norm(b, Value{x.node, {mel, 1, frames}}, "Mel_BatchNorm", enc / "batch_norm");
  if (frames > spec_width || mel > spec_height)
    b.fail(map, fmt::format("{} frames of {} mel bins exceed the {}x{} spectrogram the Swin input is folded from",
                            frames, mel, spec_width, spec_height));
  // reshape_mel2img: interpolate to spec_width x spec_height, fold freq_ratio time slices under each other.
  map = resize(b, Value{map.node, {1, frames, mel}}, "Mel_To_Image", spec_width, spec_height);
  map = Value{map.node, {channels, spec_height * freq_ratio, spec_width / freq_ratio}};
  const Scope pe = enc / "patch_embed";
  const std::int64_t pad_h = (patch - stride[0]) / 2, pad_w = (patch - stride[1]) / 2;
  const std::int64_t grid_h = (map.shape[1] + 2 * pad_h - patch) / stride[0] + 1;
  const std::int64_t grid_w = (map.shape[2] + 2 * pad_w - patch) / stride[1] + 1;
  auto tokens = b.node(NodeType::PatchEmbed, "Patch_Embed", {grid_h * grid_w, s.embed}, {map}, pe / "proj");
  b.parameter(tokens, pe("proj.weight"), {s.embed, channels, patch, patch}, graph::TensorRole::Conv);
  b.parameter(tokens, pe("proj.bias"), {s.embed}, graph::TensorRole::Bias);
  if (c.flag({"enable_patch_layer_norm"}, true)) tokens = norm(b, tokens, "Embed_LayerNorm", {pe / "norm"});
  b.at(tokens).dropout = s.hidden_dropout;

  auto out = swin::stages(b, tokens, grid_h, grid_w, s, enc / "layers");
  x = norm(b, out.x, "Final_LayerNorm", {enc / "norm"});
  // AdaptiveAvgPool1d over the tokens: the pooled vector.
  return Value{x.node, {out.dim}};
}

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config& c = in.config;
  const std::int64_t dim = c.dim({"projection_dim"}, 512);
  const std::string act = c.text({"projection_hidden_act"}, "relu");
  // ClapConfig overwrites both towers' projection_dim and projection_hidden_act with its own.
  const Config text_config = c.child("text_config");
  const Config audio_config = c.child("audio_config");
  Value text_embeds, audio_embeds;
  {
    graph::Nested nest(b, {.module = "text_model", .label = "Text_", .first_block = 0});
    text_embeds = clap::text_tower(in, b, text_config);
  }
  {
    graph::Nested nest(b, {.module = "audio_model", .label = "Audio_", .first_block = b.next_block()});
    audio_embeds = audio_tower(in, b, audio_config);
  }
  text_embeds = clap::projection(b, text_embeds, "Text", Scope("text_projection"), text_config.dim({"hidden_size"}, 768),
                           dim, act);
  audio_embeds = clap::projection(b, audio_embeds, "Audio", Scope("audio_projection"), audio_config.dim({"hidden_size"}, 768),
                            dim, act);
  auto logits = clip::contrastive_logits(b, text_embeds, audio_embeds, {}, false, "logit_scale_t");
  b.parameter(logits, "logit_scale_a", {}, graph::TensorRole::Other);
  return logits;
}

}  // namespace
}  // namespace clap_impl

const Family& clap_family() {
  static const Family family{"clap", "models/clap/modeling_clap.py", classes("Clap"), clap_impl::build};
  return family;
}

}  // namespace neurarch::families
