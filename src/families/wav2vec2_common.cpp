#include "families/wav2vec2_common.hpp"

#include <algorithm>
#include <optional>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "blocks/conv.hpp"
#include "blocks/seq2seq.hpp"
#include "core/error.hpp"
#include "families/conformer_common.hpp"
#include "families/deberta_common.hpp"

namespace neurarch::families::wav2vec2 {
namespace wav2vec2_common_impl {
namespace {

using namespace blocks;

// Bounds a conv size so that products of them cannot overflow before the graph checks them.
constexpr std::int64_t kMaxConvSize = std::int64_t{1} << 20;

std::vector<std::int64_t> int_list(const Config& c, std::string_view key, std::vector<std::int64_t> fallback) {
  const auto* v = c.raw({key});
  if (!v) return fallback;
  const std::string where = fmt::format("{}: key '{}'", c.origin(), key);
  if (!v->is_array() || v->empty() || v->size() > 64)
    throw Error(ErrorKind::InvalidInput, where, "expected a list of 1 to 64 positive integers");
  std::vector<std::int64_t> out;
  for (const auto& e : *v) {
    if (!e.is_number_integer() || e.get<std::int64_t>() <= 0 || e.get<std::int64_t>() > kMaxConvSize)
      throw Error(ErrorKind::InvalidInput, where, fmt::format("expected positive integers up to {}, got {}", kMaxConvSize, e.dump()));
    out.push_back(e.get<std::int64_t>());
  }
  return out;
}

struct SqueezeSpec {
  std::int64_t hidden = 0;
  std::int64_t kernel = 0;  ///< num_conv_pos_embeddings
  std::int64_t groups = 1;
  std::int64_t factor = 1;  ///< squeeze_factor
  std::string activation;
};

// SEW's encoder input: AvgPool1d(factor, factor) of the frames plus a weight-normed positional conv
// strided by the factor (padding kernel / 2, an even kernel's extra frame trimmed), both cut to the
// shorter of the two.
Value squeeze(GraphBuilder& b, const Value& x, const Scope& encoder, const SqueezeSpec& s) {
  const std::int64_t frames = x.shape.empty() ? 0 : x.shape.front();
  const Scope pos = encoder / "pos_conv_embed" / "conv";
  auto p = conv1d(b, x, "Positional_Conv",
                  {.module = pos, .in_channels = s.hidden, .out_channels = s.hidden, .kernel = s.kernel,
                   .stride = s.factor, .padding = s.kernel / 2, .groups = s.groups, .activation = s.activation,
                   .custom_weight = true});
  b.parameter(p, pos("weight_g"), {1, 1, s.kernel}, graph::TensorRole::Other);
  b.parameter(p, pos("weight_v"), {s.hidden, s.hidden / s.groups, s.kernel}, graph::TensorRole::Conv);
  const std::int64_t positions = std::max<std::int64_t>(p.shape.front() - (s.kernel % 2 == 0 ? 1 : 0), 0);
  const std::int64_t pooled = frames / s.factor;
  const std::int64_t kept = std::min(positions, pooled);
  b.at(p).out.front() = kept;
  p.shape.front() = kept;
  auto pool = b.node(graph::NodeType::Pool, "Squeeze_Pool", {kept, s.hidden}, {x});
  if (kept < 1) b.fail(pool, fmt::format("{} frames leave nothing after squeezing by {}", frames, s.factor));
  return add(b, pool, p, "Positional_Add");
}

// SEWUpsampling: Linear to factor x hidden and the activation, each frame unfolded into `factor`
// frames; zero-padded up to the frames the encoder received.
Value upsample(GraphBuilder& b, const Value& x, const Scope& module, std::int64_t hidden, std::int64_t factor,
               std::int64_t frames, const std::string& activation) {
  auto h = dense(b, x, "Upsample_Projection", module / "projection", hidden, hidden * factor, true, activation);
  const std::int64_t unfolded = (x.shape.empty() ? 0 : x.shape.front()) * factor;
  // A reshape and a pad: autograd keeps nothing for either.
  return b.node(graph::NodeType::Linear, "Upsample_Unfold", {std::max(unfolded, frames), hidden}, {h});
}

// Wav2Vec2Adapter: a projection (and LayerNorm) when output_hidden_size differs, then
// num_adapter_layers convs (C -> 2C, adapter_kernel_size, adapter_stride, padding 1) each halved by GLU.
Value adapter_stack(GraphBuilder& b, Value x, const Scope& module, std::int64_t hidden, std::int64_t width,
                    const Config& c) {
  if (width != hidden) {
    x = dense(b, x, "Adapter_Projection", module / "proj", hidden, width, true);
    x = norm(b, x, "Adapter_Projection_LayerNorm", {module / "proj_layer_norm"});
  }
  const std::int64_t kernel = c.dim({"adapter_kernel_size"}, 3);
  const std::int64_t stride = c.dim({"adapter_stride"}, 2);
  const std::int64_t layers = c.integer({"num_adapter_layers"}, 3);
  for (std::int64_t i = 0; i < layers; ++i) {
    x = conv1d(b, x, fmt::format("Adapter_Conv_{}", i),
               {.module = module / "layers" / i / "conv", .in_channels = width, .out_channels = 2 * width,
                .kernel = kernel, .stride = stride, .padding = 1});
    x = glu(b, x, fmt::format("Adapter_GLU_{}", i));
  }
  return x;
}

// One WavLM layer: wav2vec2's (post-norm, or pre-norm when stable) around an attention whose
// scores gain the shared bucketed bias, scaled per head by a gate computed from each query:
// sigmoid(gru_rel_pos_linear(q_head)) split in two, a * (b * gru_rel_pos_const - 1) + 2.
Value wavlm_layer(GraphBuilder& b, const Value& x, std::int64_t i, const Scope& l, const AttentionSpec& a,
                  const FeedForwardSpec& f, bool stable, std::optional<Value>& bias, const Config& c) {
  const BlockNames names{i};
  const Value in = stable ? norm(b, x, names.norm(1, NormKind::LayerNorm), {l / "layer_norm"}) : x;
  if (!bias)
    bias = relative_position_bias(b, in, "Relative_Position_Bias",
                                  {.module = a.module / "rel_attn_embed", .buckets = c.dim({"num_buckets"}, 320),
                                   .heads = a.heads});
  auto attn = attention(b, in, names.attention(), a);
  const std::int64_t head_dim = a.heads > 0 ? a.hidden / a.heads : 0;
  b.parameter(attn, a.module("gru_rel_pos_const"), {1, a.heads, 1, 1}, graph::TensorRole::Other);
  // The gate projects each head's query, inside the op.
  linear_tensors(b, attn, a.module / "gru_rel_pos_linear", head_dim, 8, true, graph::Operand::Internal);
  add_score_bias(b, attn, *bias);
  auto sum = add(b, attn, x, names.add(1));
  if (stable) {
    auto h = norm(b, sum, names.norm(2, NormKind::LayerNorm), {l / "final_layer_norm"});
    return add(b, feed_forward(b, h, names.ffn(), f), sum, names.add(2));
  }
  auto h = norm(b, sum, names.norm(1, NormKind::LayerNorm), {l / "layer_norm"});
  auto out = add(b, feed_forward(b, h, names.ffn(), f), h, names.add(2));
  return norm(b, out, names.norm(2, NormKind::LayerNorm), {l / "final_layer_norm"});
}

}  // namespace
}  // namespace wav2vec2_common_impl
using namespace wav2vec2_common_impl;

const ConvStack& squeezed_conv_stack() {
  static const ConvStack stack{{64, 128, 128, 128, 128, 256, 256, 256, 256, 512, 512, 512, 512},
                               {10, 3, 1, 3, 1, 3, 1, 3, 1, 2, 1, 2, 1},
                               {5, 2, 1, 2, 1, 2, 1, 2, 1, 2, 1, 2, 1}};
  return stack;
}

Value heads(const BuildInput& in, GraphBuilder& b, const Value& encoded, std::int64_t hidden, std::int64_t layers,
            std::int64_t projection_default, std::optional<std::int64_t> vocab_default) {
  const Config& c = in.config;
  Value x = encoded;
  switch (in.head) {
    case Head::CausalLM:  // ForCTC: per-frame logits over the characters
    case Head::MaskedLM: {
      b.at(x).dropout = c.number({"final_dropout"}, 0.1);
      const std::int64_t vocab = c.dim({"vocab_size"}, vocab_default);
      return classifier(b, x, "LM_Head", Scope("lm_head"), hidden, vocab, true);
    }
    case Head::SequenceClassification: {
      const std::int64_t proj = c.dim({"classifier_proj_size"}, projection_default);
      if (c.flag({"use_weighted_layer_sum"}, false)) b.parameter(x, "layer_weights", {layers + 1}, graph::TensorRole::Other);
      x = dense(b, x, "Projector", Scope("projector"), hidden, proj, true);
      auto pooled = b.node(graph::NodeType::Pooler, "Mean_Pool", {proj}, {x});
      return classifier(b, pooled, "Classifier", Scope("classifier"), proj, in.num_labels(), true);
    }
    default:
      return x;
  }
}

Value build(const BuildInput& in, GraphBuilder& b, const Layout& layout) {
  const Config& c = in.config;
  const std::int64_t hidden = c.dim({"hidden_size"}, 768);
  const std::int64_t layers = c.dim({"num_hidden_layers"}, 12);
  const std::int64_t heads_count = c.dim({"num_attention_heads"}, 12);
  const std::int64_t intermediate = c.dim({"intermediate_size"}, 3072);
  const bool conformer_layers = layout.encoder == Encoder::Conformer;
  const std::string act = c.text({"hidden_act"}, conformer_layers ? "swish" : "gelu");
  const std::string conv_act = c.text({"feat_extract_activation"}, "gelu");
  const std::string conv_norm = layout.every_conv_normed ? "layer" : c.text({"feat_extract_norm"}, "group");
  const bool conv_bias = c.flag({"conv_bias"}, false);
  const bool stable = layout.stable_option && c.flag({"do_stable_layer_norm"}, false);
  static const ConvStack wav2vec2_convs{{512, 512, 512, 512, 512, 512, 512}, {10, 3, 3, 3, 3, 2, 2}, {5, 2, 2, 2, 2, 2, 2}};
  const ConvStack& conv_defaults = layout.conv_defaults ? *layout.conv_defaults : wav2vec2_convs;
  const auto dims = wav2vec2_common_impl::int_list(c, "conv_dim", conv_defaults.dims);
  const auto kernels = wav2vec2_common_impl::int_list(c, "conv_kernel", conv_defaults.kernels);
  const auto strides = wav2vec2_common_impl::int_list(c, "conv_stride", conv_defaults.strides);
  const bool stacked_positions = layout.positional == PositionalConv::Stacked;
  const std::int64_t pos_kernel = stacked_positions ? c.dim({"conv_pos_kernel_size"}, 19)
                                                    : c.dim({"num_conv_pos_embeddings"}, 128);
  const std::int64_t pos_layers = stacked_positions ? c.dim({"num_conv_pos_embeddings"}, 5) : 1;
  const std::int64_t pos_groups = c.dim({"num_conv_pos_embedding_groups"}, 16);
  const double hidden_dropout = c.number({"hidden_dropout"}, 0.1);
  const double attention_dropout = c.number({"attention_dropout"}, 0.1);
  const double activation_dropout = c.number({"activation_dropout"}, 0.1);
  const bool masked_spec = c.number({"mask_time_prob"}, 0.05) > 0.0 || c.number({"mask_feature_prob"}, 0.0) > 0.0;
  if (dims.size() != kernels.size() || dims.size() != strides.size())
    throw Error(ErrorKind::InvalidInput, c.origin() + ": key 'conv_dim'",
                fmt::format("conv_dim ({}), conv_kernel ({}) and conv_stride ({}) must have one entry per layer",
                            dims.size(), kernels.size(), strides.size()));
  if (conv_norm != "group" && conv_norm != "layer")
    throw Error(ErrorKind::InvalidInput, c.origin() + ": key 'feat_extract_norm'",
                fmt::format("'{}' is neither 'group' nor 'layer'", conv_norm));
  const bool adapter = c.flag({"add_adapter"}, false);
  if (adapter && in.head == Head::SequenceClassification)
    throw Error(ErrorKind::InvalidInput, c.origin() + ": key 'add_adapter'",
                "sequence classification does not support the adapter (the reference refuses it)");

  conformer::LayerSpec conformer_spec;
  conformer::Positions positions = conformer::Positions::None;
  if (conformer_layers) {
    positions = conformer::positions_from(c, "relative");
    conformer_spec = {.hidden = hidden, .heads = heads_count, .intermediate = intermediate,
                      .depthwise_kernel = c.dim({"conv_depthwise_kernel_size"}, 31), .activation = act,
                      .hidden_dropout = hidden_dropout, .attention_dropout = attention_dropout,
                      .activation_dropout = activation_dropout,
                      .conv_dropout = c.number({"conformer_conv_dropout"}, 0.1), .positions = positions};
    if (conformer_spec.depthwise_kernel % 2 == 0)
      throw Error(ErrorKind::InvalidInput, c.origin() + ": key 'conv_depthwise_kernel_size'",
                  fmt::format("{} is even; the reference needs an odd kernel for 'SAME' padding",
                              conformer_spec.depthwise_kernel));
  }

  const Scope root = in.head == Head::Base ? Scope() : Scope(std::string(layout.prefix));
  auto x = b.input({in.requested_seq ? *in.requested_seq : kDefaultSamples}, "audio");

  // Feature encoder: with "group", only layer 0 normalises (GroupNorm with one group per
  // channel, drawn here as a norm over channels); with "layer", every layer has a LayerNorm.
  const Scope extractor = root / "feature_extractor" / "conv_layers";
  std::int64_t channels = 1;
  for (std::size_t i = 0; i < dims.size(); ++i) {
    const Scope l = extractor / static_cast<std::int64_t>(i);
    const bool normed = conv_norm == "layer" || i == 0;
    x = conv1d(b, x, fmt::format("Feature_Conv_{}", i),
               {.module = l / "conv", .in_channels = channels, .out_channels = dims[i], .kernel = kernels[i],
                .stride = strides[i], .bias = conv_bias, .activation = normed ? std::string() : conv_act},
               i == 0 ? TimeLayout::Mono : TimeLayout::TimeMajor);
    if (normed) {
      x = norm(b, x, fmt::format("Feature_{}_{}", conv_norm == "group" ? "GroupNorm" : "LayerNorm", i),
               {l / "layer_norm"});
      // The activation follows the norm; it keeps its input like a dense layer's.
      x = b.node(graph::NodeType::Linear, fmt::format("Feature_Activation_{}", i), x.shape, {x});
      b.at(x).activation = conv_act;
    }
    channels = dims[i];
  }

  const bool deberta_layers = layout.encoder == Encoder::SqueezedDeberta;
  const bool squeezed = layout.encoder == Encoder::Squeezed || deberta_layers;
  const Scope projection = root / "feature_projection";
  if (squeezed) {
    x = norm(b, x, "Feature_LayerNorm", {root / "layer_norm"});  // eps: SEW-D's feature_layer_norm_eps
    if (channels != hidden) x = dense(b, x, "Feature_Projection", projection, channels, hidden, true);
  } else {
    if (!layout.projection_norm_from_config || c.flag({"feat_proj_layer_norm"}, true))
      x = norm(b, x, "Feature_Projection_LayerNorm", {projection / "layer_norm"});
    x = dense(b, x, "Feature_Projection", projection / "projection", channels, hidden, true);
  }
  b.at(x).dropout = c.number({"feat_proj_dropout"}, 0.0);
  if (masked_spec) b.parameter(x, root("masked_spec_embed"), {hidden}, graph::TensorRole::Embedding);

  // Positional convolution: kernel K with padding K/2 gives one extra frame when K is even,
  // which the reference's SamePad trims. weight_norm stores weight_g [1, 1, K] and weight_v.
  const Scope encoder = root / "encoder";
  const std::int64_t frames = x.shape.empty() ? 0 : x.shape.front();
  if (conformer_layers) {
    // Wav2Vec2ConformerEncoder builds pos_conv_embed but its forward never calls it: the tensors are
    // saved and loaded, and no frame goes through them.
    const Scope pos = encoder / "pos_conv_embed" / "conv";
    auto unused = b.node(graph::NodeType::Linear, "Positional_Conv (unused)", {hidden}, {}, pos);
    b.parameter(unused, pos("bias"), {hidden}, graph::TensorRole::Bias);
    b.parameter(unused, pos("weight_g"), {1, 1, pos_kernel}, graph::TensorRole::Other);
    b.parameter(unused, pos("weight_v"), {hidden, hidden / pos_groups, pos_kernel}, graph::TensorRole::Conv);
    b.note("encoder.pos_conv_embed is built but never called by Wav2Vec2ConformerEncoder: its weights are saved "
           "and loaded, get no gradient, and AdamW keeps no state for them (the plan still counts both)");
    if (positions == conformer::Positions::Rotary) {
      // RoPE's inverse frequencies, a persistent buffer of the encoder: ceil(head_dim / 2) of them.
      const std::int64_t head_dim = hidden / heads_count;
      b.buffer(x, (encoder / "embed_positions")("inv_freq"), {(head_dim + 1) / 2}, DType::F32);
    }
  } else if (squeezed) {
    x = wav2vec2_common_impl::squeeze(b, x, encoder, {.hidden = hidden, .kernel = pos_kernel, .groups = pos_groups,
                                .factor = c.dim({"squeeze_factor"}, 2), .activation = conv_act});
    if (!deberta_layers) {
      x = norm(b, x, "Encoder_LayerNorm", {encoder / "layer_norm"});
      b.at(x).dropout = hidden_dropout;
    }
  } else {
    Value p = x;
    for (std::int64_t k = 0; k < pos_layers; ++k) {
      const Scope pos = stacked_positions ? encoder / "pos_conv_embed" / "layers" / k / "conv"
                                          : encoder / "pos_conv_embed" / "conv";
      const std::string name = stacked_positions ? fmt::format("Positional_Conv_{}", k) : "Positional_Conv";
      p = conv1d(b, p, name,
                 {.module = pos, .in_channels = hidden, .out_channels = hidden, .kernel = pos_kernel,
                  .padding = pos_kernel / 2, .groups = pos_groups,
                  .activation = stacked_positions ? std::string() : conv_act, .custom_weight = !stacked_positions});
      if (!stacked_positions) {
        b.parameter(p, pos("weight_g"), {1, 1, pos_kernel}, graph::TensorRole::Other);
        b.parameter(p, pos("weight_v"), {hidden, hidden / pos_groups, pos_kernel}, graph::TensorRole::Conv);
      }
      b.at(p).out.front() = frames;
      p.shape.front() = frames;
      if (stacked_positions) {
        // LayerNorm(elementwise_affine=False): statistics only, then the activation.
        p = b.node(graph::NodeType::LayerNorm, fmt::format("Positional_LayerNorm_{}", k), p.shape, {p});
        p = b.node(graph::NodeType::Linear, fmt::format("Positional_Activation_{}", k), p.shape, {p});
        b.at(p).activation = conv_act;
      }
    }
    x = add(b, p, x, "Positional_Add");
    if (!stable) {
      x = norm(b, x, "Encoder_LayerNorm", {encoder / "layer_norm"});
      b.at(x).dropout = hidden_dropout;
    }
  }

  std::optional<Value> position_bias;  // WavLM's, made by layer 0
  if (deberta_layers)
    x = deberta::v2_encoder(c, b, x, encoder / "encoder",
                            {.vocab = 32, .hidden = 768, .layers = 12, .heads = 12, .intermediate = 3072,
                             .sew_d = true});
  for (std::int64_t i = 0; i < (deberta_layers ? 0 : layers); ++i) {
    b.set_block(static_cast<int>(i));
    const Scope l = encoder / "layers" / i;
    if (conformer_layers) {
      x = conformer::layer(b, x, i, l, conformer_spec);
      continue;
    }
    const Scope attn = l / "attention";
    const Scope ff = l / "feed_forward";
    AttentionSpec a{.hidden = hidden, .heads = heads_count, .module = attn, .q = attn / "q_proj",
                    .k = attn / "k_proj", .v = attn / "v_proj", .o = attn / "out_proj",
                    .dropout = attention_dropout, .output_dropout = hidden_dropout};
    FeedForwardSpec f{.hidden = hidden, .intermediate = intermediate, .activation = act, .module = ff,
                      .up = ff / "intermediate_dense", .down = ff / "output_dense", .output_dropout = hidden_dropout,
                      .inner_dropout = activation_dropout};
    if (layout.encoder == Encoder::WavLM) {
      x = wav2vec2_common_impl::wavlm_layer(b, x, i, l, a, f, stable, position_bias, c);
      continue;
    }
    // Filled member by member: g++ 12 misreads the nested designated initializer under -fPIC
    // (a maybe-uninitialized false positive on the norms' module strings).
    if (stable) {
      PreNormLayer layer;
      layer.norm1.module = l / "layer_norm";
      layer.attention = a;
      layer.norm2.module = l / "final_layer_norm";
      layer.ffn = f;
      x = pre_norm_layer(b, x, i, layer);
    } else {
      PostNormLayer layer;
      layer.attention = a;
      layer.norm1.module = l / "layer_norm";
      layer.ffn = f;
      layer.norm2.module = l / "final_layer_norm";
      x = post_norm_layer(b, x, i, layer);
    }
  }
  b.set_block(-1);
  if (stable || conformer_layers) x = norm(b, x, "Encoder_Final_LayerNorm", {encoder / "layer_norm"});
  if (squeezed) x = wav2vec2_common_impl::upsample(b, x, encoder / "upsample", hidden, c.dim({"squeeze_factor"}, 2), frames, conv_act);
  std::int64_t width = hidden;
  if (adapter) {
    width = c.dim({"output_hidden_size"}, hidden);
    x = wav2vec2_common_impl::adapter_stack(b, x, root / "adapter", hidden, width, c);
  }
  return heads(in, b, x, width, layers, 256, layout.vocab_default);
}

}  // namespace neurarch::families::wav2vec2
