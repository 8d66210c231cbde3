// PatchTST (models/patchtst/modeling_patchtst.py + configuration_patchtst.py, transformers 4.47.1: PatchTSTModel).
// past_values [context_length, num_input_channels] are scaled (no parameters) and cut into (context_length -
// patch_length) / patch_stride + 1 patches per channel; each patch is embedded by one shared nn.Linear(patch_length,
// d_model) (share_embedding) or one per channel, an optional cls_token is prepended, and position_enc is added:
// a frozen sinusoid (sincos) or a learned table (random), both saved. Each channel then runs alone through
// num_hidden_layers encoder layers: self-attention over its patches (q/k/v/out_proj with biases), an optional
// attention across channels (channel_attention), and a feed-forward ff.0 / ff.3 (bias per `bias`), each sublayer
// with norm_sublayerN: BatchNorm1d over d_model (`.batchnorm`, running statistics saved) or a LayerNorm, before
// (pre_norm) or after the residual sum.
#include <algorithm>
#include <string_view>

#include <fmt/format.h>

#include "core/error.hpp"
#include "families/family.hpp"

namespace neurarch::families {
namespace patchtst_impl {
namespace {

using namespace blocks;
using graph::NodeType;

Value sublayer_norm(GraphBuilder& b, const Value& x, const std::string& name, const Scope& module, bool batchnorm,
                    std::int64_t d_model) {
  if (!batchnorm) return norm(b, x, name, {module});
  // PatchTSTBatchNorm transposes to [batch x channels, d_model, patches] for nn.BatchNorm1d.
  const Scope bn = module / "batchnorm";
  auto out = b.node(NodeType::BatchNorm, name, x.shape, {x}, bn);
  b.parameter(out, bn("weight"), {d_model}, graph::TensorRole::Norm);
  b.parameter(out, bn("bias"), {d_model}, graph::TensorRole::Bias);
  b.buffer(out, bn("running_mean"), {d_model}, b.param_dtype());
  b.buffer(out, bn("running_var"), {d_model}, b.param_dtype());
  b.buffer(out, bn("num_batches_tracked"), {}, DType::I64);
  return out;
}

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config& c = in.config;
  const std::int64_t context = c.dim({"context_length"}, 32);
  const std::int64_t channels = c.dim({"num_input_channels"}, 1);
  const std::int64_t patch = c.dim({"patch_length"}, 1);
  const std::int64_t stride = c.dim({"patch_stride"}, 1);
  const std::int64_t d_model = c.dim({"d_model"}, 128);
  const std::int64_t layers = c.dim({"num_hidden_layers"}, 3);
  const std::int64_t heads = c.dim({"num_attention_heads"}, 4);
  const std::int64_t ffn = c.dim({"ffn_dim"}, 512);
  const std::string activation = c.text({"activation_function"}, "gelu");
  const std::string norm_type = c.text({"norm_type"}, "batchnorm");
  const std::string positions = c.text({"positional_encoding_type"}, "sincos");
  const bool pre_norm = c.flag({"pre_norm"}, true);
  const bool channel_attention = c.flag({"channel_attention"}, false);
  const bool cls = c.flag({"use_cls_token"}, false);
  const bool shared = c.flag({"share_embedding"}, true);
  const bool bias = c.flag({"bias"}, true);
  const double attention_dropout = c.number({"attention_dropout"}, 0.0);
  const double ff_dropout = c.number({"ff_dropout"}, 0.0);
  if (norm_type != "batchnorm" && norm_type != "layernorm")
    throw Error(ErrorKind::InvalidInput, c.origin() + ": key 'norm_type'",
                fmt::format("{} is not a supported norm layer type", norm_type));
  if (positions != "sincos" && positions != "random")
    throw Error(ErrorKind::InvalidInput, c.origin() + ": key 'positional_encoding_type'",
                fmt::format("{} is not a valid positional encoder (random, sincos)", positions));
  const bool batchnorm = norm_type == "batchnorm";

  auto values = b.input({context, channels}, "time_series", "past_values");
  const std::int64_t patches = (std::max(context, patch) - patch) / stride + 1;
  const std::int64_t tokens = patches + (cls ? 1 : 0);

  const Scope encoder("encoder");
  const Scope embedder = encoder / "embedder" / "input_embedding";
  auto x = b.node(NodeType::PatchEmbed, "Patch_Embed", {channels, patches, d_model}, {values}, embedder);
  if (shared) {
    linear_tensors(b, x, embedder, patch, d_model, true);
  } else {
    for (std::int64_t i = 0; i < channels; ++i) linear_tensors(b, x, embedder / i, patch, d_model, true);
  }
  const Scope pe = encoder / "positional_encoder";
  auto pos = b.node(NodeType::LearnedPosEmbed, "Position_Embedding", {channels, tokens, d_model}, {x}, pe);
  if (cls) b.parameter(pos, pe("cls_token"), {1, 1, 1, d_model}, graph::TensorRole::Other);
  b.parameter(pos, pe("position_enc"), {tokens, d_model}, graph::TensorRole::Other);
  // The sinusoid is an nn.Parameter with requires_grad=False.
  if (positions == "sincos") b.freeze_if([&](std::string_view name) { return name.ends_with("position_enc"); });
  x = pos;

  for (std::int64_t i = 0; i < layers; ++i) {
    b.set_block(static_cast<int>(i));
    const Scope l = encoder / "layers" / i;
    const BlockNames n{i};
    int k = 0;
    auto sublayer = [&](const Value& input, const Scope& norm_module, auto&& body) {
      ++k;
      const std::string norm_name = n.norm(k, NormKind::LayerNorm);
      if (pre_norm) return add(b, body(sublayer_norm(b, input, norm_name, norm_module, batchnorm, d_model)), input,
                               n.add(k));
      return sublayer_norm(b, add(b, body(input), input, n.add(k)), norm_name, norm_module, batchnorm, d_model);
    };
    auto self_attention = [&](const Scope& module, const std::string& name) {
      return [&b, module, name, d_model, heads, attention_dropout](const Value& h) {
        return attention(b, h, name,
                         {.hidden = d_model, .heads = heads, .module = module, .q = module / "q_proj",
                          .k = module / "k_proj", .v = module / "v_proj", .o = module / "out_proj",
                          .dropout = attention_dropout});
      };
    };
    x = sublayer(x, l / "norm_sublayer1", self_attention(l / "self_attn", n.attention()));
    if (channel_attention) {
      // The same module attends across channels: each patch position over the channels.
      x = sublayer(x, l / "norm_sublayer2", [&](const Value& h) {
        auto a = b.node(NodeType::MultiHeadAttention, fmt::format("Channel_Attention_{}", i), h.shape, {h},
                        l / "self_attn");
        b.at(a).attention = graph::AttentionAttrs{heads, heads, d_model / heads, channels, channels, false, 0,
                                                  attention_dropout};
        return a;
      });
    }
    x = sublayer(x, l / "norm_sublayer3", [&](const Value& h) {
      return feed_forward(b, h, n.ffn(),
                          {.hidden = d_model, .intermediate = ffn, .activation = activation, .module = l / "ff",
                           .up = l / "ff" / 0, .down = l / "ff" / 3, .bias = bias, .down_bias = bias,
                           .inner_dropout = ff_dropout});
    });
  }
  b.set_block(-1);
  return x;
}

}  // namespace
}  // namespace patchtst_impl

const Family& patchtst_family() {
  static const Family family{"patchtst", "models/patchtst/modeling_patchtst.py", {{"PatchTSTModel", Head::Base}},
                             patchtst_impl::build};
  return family;
}

}  // namespace neurarch::families
