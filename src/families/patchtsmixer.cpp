// PatchTSMixer (models/patchtsmixer/modeling_patchtsmixer.py + configuration_patchtsmixer.py, transformers 4.47.1:
// PatchTSMixerModel). past_values [context_length, num_input_channels] are scaled (no parameters), cut into
// (context_length - patch_length) / patch_stride + 1 patches and embedded by encoder.patcher (Linear(patch_length,
// d_model)); with use_positional_encoding a position_enc table follows (frozen sinusoid or learned). num_layers
// mixer layers each run, with a residual: patch_mixer (an MLP across the patches, expansion_factor wide, an
// optional softmax gate `gating_block.attn_layer` (gated_attn) and optional self-attention over the patches
// (self_attn: self_attn_layer + norm_attn)), feature_mixer (the same across d_model) and, in mix_channel mode,
// channel_feature_mixer (across the channels). Each block starts with norm.norm: a LayerNorm, or, when norm_mlp
// names a batch norm, a BatchNorm1d over d_model (`norm.norm.batchnorm`).
#include <algorithm>
#include <cctype>
#include <string_view>

#include <fmt/format.h>

#include "core/error.hpp"
#include "families/family.hpp"

namespace neurarch::families {
namespace patchtsmixer_impl {
namespace {

using namespace blocks;
using graph::NodeType;

struct Dims {
  std::int64_t d_model, expansion;
  bool batchnorm, gated;
  double dropout;
};

// A PatchTSMixerNormLayer at `layer`: its `norm` is the LayerNorm or the BatchNorm wrapper.
Value block_norm(GraphBuilder& b, const Value& x, const std::string& name, const Scope& layer, const Dims& d) {
  const Scope n = layer / "norm";
  if (!d.batchnorm) return norm(b, x, name, {n});
  const Scope bn = n / "batchnorm";
  auto out = b.node(NodeType::BatchNorm, name, x.shape, {x}, bn);
  b.parameter(out, bn("weight"), {d.d_model}, graph::TensorRole::Norm);
  b.parameter(out, bn("bias"), {d.d_model}, graph::TensorRole::Bias);
  b.buffer(out, bn("running_mean"), {d.d_model}, b.param_dtype());
  b.buffer(out, bn("running_var"), {d.d_model}, b.param_dtype());
  b.buffer(out, bn("num_batches_tracked"), {}, DType::I64);
  return out;
}

// norm -> (mixed along the last axis of `view`, `width` wide) MLP -> optional gate -> + input.
Value mixer(GraphBuilder& b, const Value& x, const std::string& name, const Scope& module, const Dims& d,
            const graph::Shape& view, std::int64_t width) {
  auto h = block_norm(b, x, name + "_Norm", module / "norm", d);
  Value turned{h.node, view};
  turned = feed_forward(b, turned, name + "_MLP",
                        {.hidden = width, .intermediate = width * d.expansion, .activation = "gelu",
                         .module = module / "mlp", .up = module / "mlp" / "fc1", .down = module / "mlp" / "fc2",
                         .output_dropout = d.dropout, .inner_dropout = d.dropout});
  if (d.gated) {
    auto gate = dense(b, turned, name + "_Gate", module / "gating_block" / "attn_layer", width, width, true, "softmax");
    turned = b.node(NodeType::Add, name + "_Gated", turned.shape, {turned, gate});
  }
  return add(b, Value{turned.node, x.shape}, x, name + "_Add");
}

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config& c = in.config;
  const std::int64_t context = c.dim({"context_length"}, 32);
  const std::int64_t channels = c.dim({"num_input_channels"}, 1);
  const std::int64_t patch = c.dim({"patch_length"}, 8);
  const std::int64_t stride = c.dim({"patch_stride"}, 8);
  const std::int64_t layers = c.dim({"num_layers"}, 3);
  const std::string mode = c.text({"mode"}, "common_channel");
  const bool self_attn = c.flag({"self_attn"}, false);
  const std::int64_t self_attn_heads = c.dim({"self_attn_heads"}, 1);
  const bool positional = c.flag({"use_positional_encoding"}, false);
  const std::string positions = c.text({"positional_encoding_type"}, "sincos");
  std::string norm_mlp = c.text({"norm_mlp"}, "LayerNorm");
  std::transform(norm_mlp.begin(), norm_mlp.end(), norm_mlp.begin(),
                 [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
  const Dims d{.d_model = c.dim({"d_model"}, 8),
               .expansion = c.dim({"expansion_factor"}, 2),
               .batchnorm = norm_mlp.find("batch") != std::string::npos,
               .gated = c.flag({"gated_attn"}, true),
               .dropout = c.number({"dropout"}, 0.2)};
  if (mode != "common_channel" && mode != "mix_channel")
    throw Error(ErrorKind::InvalidInput, c.origin() + ": key 'mode'",
                fmt::format("expected \"common_channel\" or \"mix_channel\", got \"{}\"", mode));
  const std::int64_t patches = (std::max(context, patch) - patch) / stride + 1;

  auto values = b.input({context, channels}, "time_series", "past_values");
  const Scope encoder("encoder");
  auto x = b.node(NodeType::PatchEmbed, "Patch_Embed", {channels, patches, d.d_model}, {values}, encoder / "patcher");
  linear_tensors(b, x, encoder / "patcher", patch, d.d_model, true);
  if (positional) {
    const Scope pe = encoder / "positional_encoder";
    x = b.node(NodeType::LearnedPosEmbed, "Position_Embedding", x.shape, {x}, pe);
    b.parameter(x, pe("position_enc"), {patches, d.d_model}, graph::TensorRole::Other);
    if (positions == "sincos") b.freeze_if([](std::string_view name) { return name.ends_with("position_enc"); });
  }

  for (std::int64_t i = 0; i < layers; ++i) {
    b.set_block(static_cast<int>(i));
    const Scope l = encoder / "mlp_mixer_encoder" / "mixers" / i;
    if (mode == "mix_channel")
      x = mixer(b, x, fmt::format("Channel_Mixer_{}", i), l / "channel_feature_mixer", d, {patches, d.d_model, channels},
                channels);
    const Scope pm = l / "patch_mixer";
    x = mixer(b, x, fmt::format("Patch_Mixer_{}", i), pm, d, {channels, d.d_model, patches}, patches);
    if (self_attn) {
      // Self-attention over the patches, added to the patch mixer's output, then norm_attn.
      auto a = attention(b, x, fmt::format("Attention_{}", i),
                         {.hidden = d.d_model, .heads = self_attn_heads, .module = pm / "self_attn_layer",
                          .q = pm / "self_attn_layer" / "q_proj", .k = pm / "self_attn_layer" / "k_proj",
                          .v = pm / "self_attn_layer" / "v_proj", .o = pm / "self_attn_layer" / "out_proj",
                          .dropout = d.dropout});
      x = add(b, a, x, fmt::format("Attention_Add_{}", i));
      x = block_norm(b, x, fmt::format("Attention_Norm_{}", i), pm / "norm_attn", d);
    }
    x = mixer(b, x, fmt::format("Feature_Mixer_{}", i), l / "feature_mixer", d, {channels, patches, d.d_model},
              d.d_model);
  }
  b.set_block(-1);
  return x;
}

}  // namespace
}  // namespace patchtsmixer_impl

const Family& patchtsmixer_family() {
  static const Family family{"patchtsmixer", "models/patchtsmixer/modeling_patchtsmixer.py",
                             {{"PatchTSMixerModel", Head::Base}}, patchtsmixer_impl::build};
  return family;
}

}  // namespace neurarch::families
