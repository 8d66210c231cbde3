#include "families/wav2vec2_common.hpp"

#include <vector>

#include <fmt/format.h>

#include "blocks/conv.hpp"
#include "core/error.hpp"

namespace neurarch::families::wav2vec2 {
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

}  // namespace

Value build(const BuildInput& in, GraphBuilder& b, const Layout& layout) {
  const Config& c = in.config;
  const std::int64_t hidden = c.dim({"hidden_size"}, 768);
  const std::int64_t layers = c.dim({"num_hidden_layers"}, 12);
  const std::int64_t heads = c.dim({"num_attention_heads"}, 12);
  const std::int64_t intermediate = c.dim({"intermediate_size"}, 3072);
  const std::string act = c.text({"hidden_act"}, "gelu");
  const std::string conv_act = c.text({"feat_extract_activation"}, "gelu");
  const std::string conv_norm = c.text({"feat_extract_norm"}, "group");
  const bool conv_bias = c.flag({"conv_bias"}, false);
  const bool stable = c.flag({"do_stable_layer_norm"}, false);
  const auto dims = int_list(c, "conv_dim", {512, 512, 512, 512, 512, 512, 512});
  const auto kernels = int_list(c, "conv_kernel", {10, 3, 3, 3, 3, 2, 2});
  const auto strides = int_list(c, "conv_stride", {5, 2, 2, 2, 2, 2, 2});
  const std::int64_t pos_kernel = c.dim({"num_conv_pos_embeddings"}, 128);
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
  if (c.flag({"add_adapter"}, false))
    throw Error(ErrorKind::Unsupported, c.origin() + ": key 'add_adapter'",
                "the adapter stack after the encoder is not modelled yet");

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

  const Scope projection = root / "feature_projection";
  if (!layout.projection_norm_from_config || c.flag({"feat_proj_layer_norm"}, true))
    x = norm(b, x, "Feature_Projection_LayerNorm", {projection / "layer_norm"});
  x = dense(b, x, "Feature_Projection", projection / "projection", channels, hidden, true);
  b.at(x).dropout = c.number({"feat_proj_dropout"}, 0.0);
  if (masked_spec) b.parameter(x, root("masked_spec_embed"), {hidden});

  // Positional convolution: kernel K with padding K/2 gives one extra frame when K is even,
  // which the reference's SamePad trims. weight_norm stores weight_g [1, 1, K] and weight_v.
  const Scope encoder = root / "encoder";
  const Scope pos = encoder / "pos_conv_embed" / "conv";
  const std::int64_t frames = x.shape.empty() ? 0 : x.shape.front();
  auto p = conv1d(b, x, "Positional_Conv",
                  {.module = pos, .in_channels = hidden, .out_channels = hidden, .kernel = pos_kernel,
                   .padding = pos_kernel / 2, .groups = pos_groups, .activation = conv_act,
                   .custom_weight = true});
  b.parameter(p, pos("weight_g"), {1, 1, pos_kernel});
  b.parameter(p, pos("weight_v"), {hidden, hidden / pos_groups, pos_kernel});
  b.at(p).out.front() = frames;
  p.shape.front() = frames;
  x = add(b, p, x, "Positional_Add");
  if (!stable) {
    x = norm(b, x, "Encoder_LayerNorm", {encoder / "layer_norm"});
    b.at(x).dropout = hidden_dropout;
  }

  for (std::int64_t i = 0; i < layers; ++i) {
    b.set_block(static_cast<int>(i));
    const Scope l = encoder / "layers" / i;
    const Scope attn = l / "attention";
    const Scope ff = l / "feed_forward";
    AttentionSpec a{.hidden = hidden, .heads = heads, .module = attn, .q = attn / "q_proj", .k = attn / "k_proj",
                    .v = attn / "v_proj", .o = attn / "out_proj", .dropout = attention_dropout,
                    .output_dropout = hidden_dropout};
    FeedForwardSpec f{.hidden = hidden, .intermediate = intermediate, .activation = act, .module = ff,
                      .up = ff / "intermediate_dense", .down = ff / "output_dense", .output_dropout = hidden_dropout,
                      .inner_dropout = activation_dropout};
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
  if (stable) x = norm(b, x, "Encoder_Final_LayerNorm", {encoder / "layer_norm"});

  switch (in.head) {
    case Head::CausalLM:  // ForCTC: per-frame logits over the characters
    case Head::MaskedLM: {
      b.at(x).dropout = c.number({"final_dropout"}, 0.1);
      const std::int64_t vocab = c.dim({"vocab_size"}, 32);
      return classifier(b, x, "LM_Head", Scope("lm_head"), hidden, vocab, true);
    }
    case Head::SequenceClassification: {
      const std::int64_t proj = c.dim({"classifier_proj_size"}, 256);
      if (c.flag({"use_weighted_layer_sum"}, false)) b.parameter(x, "layer_weights", {layers + 1});
      x = dense(b, x, "Projector", Scope("projector"), hidden, proj, true);
      auto pooled = b.node(graph::NodeType::Pooler, "Mean_Pool", {proj}, {x});
      return classifier(b, pooled, "Classifier", Scope("classifier"), proj, in.num_labels(), true);
    }
    default:
      return x;
  }
}

}  // namespace neurarch::families::wav2vec2
