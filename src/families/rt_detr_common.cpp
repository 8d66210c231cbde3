#include "families/rt_detr_common.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "blocks/deformable_attention.hpp"
#include "blocks/upsample.hpp"
#include "core/error.hpp"
#include "families/backbone_stages.hpp"
#include "families/config_lists.hpp"
#include "families/hgnet_v2.hpp"
#include "families/rt_detr_resnet.hpp"

namespace neurarch::families::rt_detr {
namespace rt_detr_common_impl {
namespace {

using namespace blocks;
using graph::NodeType;

struct Dims {
  std::int64_t d = 256;                  ///< d_model: the decoder's width
  std::int64_t e = 256;                  ///< encoder_hidden_dim: the hybrid encoder's width
  std::vector<std::int64_t> encoder_in;  ///< encoder_in_channels: its length is the number of fused levels
  std::vector<std::int64_t> encode_proj_layers;
  std::int64_t encoder_layers = 1, encoder_heads = 8, encoder_ffn = 1024;
  std::string encoder_activation = "gelu", activation = "silu";
  bool normalize_before = false;
  double hidden_expansion = 1.0;
  std::vector<std::int64_t> decoder_in;
  std::int64_t levels = 3;  ///< num_feature_levels: the value levels the decoder samples from
  std::int64_t decoder_layers = 6, decoder_heads = 8, decoder_ffn = 1024, decoder_points = 4;
  std::int64_t attention_levels = 3;  ///< the deformable attention's n_levels (v2: decoder_n_levels)
  std::string decoder_activation = "relu";
  double dropout = 0.0, attention_dropout = 0.0, activation_dropout = 0.0;
  std::int64_t queries = 300, denoising = 100;
  bool learn_initial_query = false;
  // D-FINE
  std::vector<std::int64_t> points_per_level;  ///< decoder_n_points as a list (one entry a level)
  std::int64_t fpn_blocks = 3;                 ///< RepVGG blocks per CSP branch: round(3 depth_mult)
  std::int64_t eval_idx = 5;  ///< the layer whose heads run at inference (config eval_idx, from the end if < 0)
  double layer_scale = 1.0;
  std::int64_t bins = 32, top_prob_values = 4, lqe_hidden = 64, lqe_layers = 2;
};

Dims read_dims(const Config& c, const Layout& layout) {
  Dims d;
  d.d = c.dim({"d_model"}, 256);
  d.e = c.dim({"encoder_hidden_dim"}, 256);
  d.encoder_in = size_list(c, "encoder_in_channels", {512, 1024, 2048});
  d.encode_proj_layers.clear();
  if (const auto* v = c.raw({"encode_proj_layers"}); v && v->is_array()) {
    for (const auto& e : *v) {
      if (!e.is_number_integer())
        throw Error(ErrorKind::InvalidInput, fmt::format("{}: key 'encode_proj_layers'", c.origin()),
                    "expected integers");
      d.encode_proj_layers.push_back(e.get<std::int64_t>());
    }
  } else {
    c.record_default("encode_proj_layers", nlohmann::json::array({2}));
    d.encode_proj_layers = {2};
  }
  d.encoder_layers = c.integer({"encoder_layers"}, 1);
  d.encoder_heads = c.dim({"encoder_attention_heads"}, 8);
  d.encoder_ffn = c.dim({"encoder_ffn_dim"}, 1024);
  d.encoder_activation = c.text({"encoder_activation_function"}, "gelu");
  d.activation = c.text({"activation_function"}, "silu");
  d.normalize_before = c.flag({"normalize_before"}, false);
  d.hidden_expansion = c.number({"hidden_expansion"}, 1.0);
  d.decoder_in = size_list(c, "decoder_in_channels", {256, 256, 256});
  d.levels = c.dim({"num_feature_levels"}, 3);
  d.decoder_layers = c.dim({"decoder_layers"}, 6);
  d.decoder_heads = c.dim({"decoder_attention_heads"}, 8);
  d.decoder_ffn = c.dim({"decoder_ffn_dim"}, 1024);
  if (const auto* v = c.raw({"decoder_n_points"}); !(layout.variant == Variant::DFine && v && v->is_array()))
    d.decoder_points = c.dim({"decoder_n_points"}, 4);
  d.attention_levels = layout.variant == Variant::V2 ? c.dim({"decoder_n_levels"}, 3) : d.levels;
  d.decoder_activation = c.text({"decoder_activation_function"}, "relu");
  d.dropout = c.number({"dropout"}, 0.0);
  d.attention_dropout = c.number({"attention_dropout"}, 0.0);
  d.activation_dropout = c.number({"activation_dropout"}, 0.0);
  d.queries = c.dim({"num_queries"}, 300);
  d.denoising = c.integer({"num_denoising"}, 100);
  d.learn_initial_query = c.flag({"learn_initial_query"}, false);
  if (layout.variant == Variant::DFine) {
    // decoder_n_points: one count for every level, or a list of per-level counts.
    if (const auto* v = c.raw({"decoder_n_points"}); v && v->is_array()) {
      d.points_per_level = size_list(c, "decoder_n_points", {});
    } else {
      d.points_per_level.assign(static_cast<std::size_t>(d.levels), d.decoder_points);
    }
    d.fpn_blocks = static_cast<std::int64_t>(std::nearbyint(3.0 * c.number({"depth_mult"}, 1.0)));
    const std::int64_t eval_idx = c.integer({"eval_idx"}, -1);
    d.eval_idx = eval_idx >= 0 ? eval_idx : d.decoder_layers + eval_idx;
    d.layer_scale = c.number({"layer_scale"}, 1.0);
    d.bins = c.dim({"max_num_bins"}, 32);
    d.top_prob_values = c.dim({"top_prob_values"}, 4);
    d.lqe_hidden = c.dim({"lqe_hidden_dim"}, 64);
    d.lqe_layers = c.dim({"lqe_layers"}, 2);
  }
  return d;
}

// RTDetrConvNormLayer (and the projections' Conv2d + BatchNorm2d): a bias-free convolution padded (kernel - 1) / 2,
// a trained BatchNorm2d, then `activation`. `conv` and `norm` name the two modules.
Value conv_norm(GraphBuilder& b, const Value& x, const std::string& name, const Scope& conv, const Scope& norm_module,
                std::int64_t in, std::int64_t out, std::int64_t kernel, std::int64_t stride,
                const std::string& activation, std::int64_t groups = 1) {
  auto h = conv2d(b, x, name + "_Conv", {.module = conv, .in = in, .out = out, .kernel = kernel, .stride = stride,
                                         .padding = (kernel - 1) / 2, .groups = groups, .bias = false});
  return batch_norm(b, h, name + "_BatchNorm", norm_module, activation);
}

Value conv_norm_layer(GraphBuilder& b, const Value& x, const std::string& name, const Scope& module, std::int64_t in,
                      std::int64_t out, std::int64_t kernel, std::int64_t stride, const std::string& activation,
                      std::int64_t groups = 1) {
  return conv_norm(b, x, name, module / "conv", module / "norm", in, out, kernel, stride, activation, groups);
}

// torch.concat of two [C, H, W] maps along the channels (an Add node: no parameters, nothing saved).
Value concat(GraphBuilder& b, const Value& x, const Value& y, const std::string& name) {
  const bool maps = x.shape.size() == 3 && y.shape.size() == 3;
  auto out = b.node(NodeType::Add, name,
                    maps ? graph::Shape{x.shape[0] + y.shape[0], x.shape[1], x.shape[2]} : x.shape, {x, y});
  if (!maps || x.shape[1] != y.shape[1] || x.shape[2] != y.shape[2])
    b.fail(out, fmt::format("concatenates maps of different sizes: [{}] and [{}]", fmt::join(x.shape, ", "),
                            fmt::join(y.shape, ", ")));
  return out;
}

// DFineCSPRepLayer: RT-DETR's CSP layer between any widths, with `blocks` RepVGG blocks (a ModuleList) and conv3
// only where the branches' width differs from the output's (never, at expansion 1).
Value dfine_csp(GraphBuilder& b, const Value& x, const std::string& name, const Scope& module, std::int64_t in,
                std::int64_t out, const Dims& d) {
  auto h1 = conv_norm_layer(b, x, name + "_1", module / "conv1", in, out, 1, 1, d.activation);
  for (std::int64_t k = 0; k < d.fpn_blocks; ++k) {
    const Scope block = module / "bottlenecks" / k;
    const std::string bname = fmt::format("{}_RepVGG_{}", name, k);
    auto a = conv_norm_layer(b, h1, bname + "_3x3", block / "conv1", out, out, 3, 1, "");
    auto c = conv_norm_layer(b, h1, bname + "_1x1", block / "conv2", out, out, 1, 1, "");
    h1 = add(b, a, c, bname + "_Add");
    b.at(h1).activation = d.activation;
  }
  auto h2 = conv_norm_layer(b, x, name + "_2", module / "conv2", in, out, 1, 1, d.activation);
  return add(b, h1, h2, name + "_Add");
}

// DFineRepNCSPELAN4 (D-FINE's FPN and PAN block; SiLU whatever activation_function says): conv1 widens the 2E fused
// map to 2E and splits it in halves; the second half runs CSP -> 3x3 conv -> CSP -> 3x3 conv, keeping both
// intermediate maps; conv4 aggregates the two halves and both maps to E.
Value rep_ncsp_elan4(GraphBuilder& b, const Value& x, const std::string& name, const Scope& module, const Dims& d) {
  const auto c4 = static_cast<std::int64_t>(std::floor(d.hidden_expansion * static_cast<double>(d.e) / 2.0));
  auto h = conv_norm_layer(b, x, name + "_1", module / "conv1", 2 * d.e, 2 * d.e, 1, 1, "silu");
  const Value half{h.node, {d.e, h.shape.size() == 3 ? h.shape[1] : 0, h.shape.size() == 3 ? h.shape[2] : 0}};
  auto branch1 = dfine_csp(b, half, name + "_CSP_1", module / "csp_rep1", d.e, c4, d);
  branch1 = conv_norm_layer(b, branch1, name + "_2", module / "conv2", c4, c4, 3, 1, "silu");
  auto branch2 = dfine_csp(b, branch1, name + "_CSP_2", module / "csp_rep2", c4, c4, d);
  branch2 = conv_norm_layer(b, branch2, name + "_3", module / "conv3", c4, c4, 3, 1, "silu");
  auto merged = concat(b, concat(b, h, branch1, name + "_Concat_1"), branch2, name + "_Concat_2");
  return conv_norm_layer(b, merged, name + "_4", module / "conv4", 2 * d.e + 2 * c4, d.e, 1, 1, "silu");
}

// RTDetrCSPRepLayer: two 1x1 branches from the 2E-channel fused map; the first runs three RepVGG blocks (a 3x3 and a
// 1x1 convolution summed, then the activation); the sum of both branches goes through conv3 when hidden_expansion
// makes the branches narrower than E.
Value csp_rep_layer(GraphBuilder& b, const Value& x, const std::string& name, const Scope& module, const Dims& d) {
  const auto hidden = static_cast<std::int64_t>(static_cast<double>(d.e) * d.hidden_expansion);
  auto h1 = conv_norm_layer(b, x, name + "_1", module / "conv1", 2 * d.e, hidden, 1, 1, d.activation);
  for (std::int64_t k = 0; k < 3; ++k) {
    const Scope block = module / "bottlenecks" / k;
    const std::string bname = fmt::format("{}_RepVGG_{}", name, k);
    auto a = conv_norm_layer(b, h1, bname + "_3x3", block / "conv1", hidden, hidden, 3, 1, "");
    auto c = conv_norm_layer(b, h1, bname + "_1x1", block / "conv2", hidden, hidden, 1, 1, "");
    h1 = add(b, a, c, bname + "_Add");
    b.at(h1).activation = d.activation;
  }
  auto h2 = conv_norm_layer(b, x, name + "_2", module / "conv2", 2 * d.e, hidden, 1, 1, d.activation);
  auto sum = add(b, h1, h2, name + "_Add");
  if (hidden == d.e) return sum;
  return conv_norm_layer(b, sum, name + "_3", module / "conv3", hidden, d.e, 1, 1, d.activation);
}

// AIFI: transformer encoder layers over one level's tokens, with 2-D sine positions (no parameters) added to the
// queries and keys. Post-norm unless normalize_before.
Value aifi(GraphBuilder& b, const Value& map, const Dims& d, const Scope& stack, std::int64_t index) {
  const std::int64_t h = map.shape.size() == 3 ? map.shape[1] : 0, w = map.shape.size() == 3 ? map.shape[2] : 0;
  Value x{map.node, {h * w, d.e}};
  const std::string p = fmt::format("AIFI_{}_", index);
  auto pos = b.node(NodeType::LearnedPosEmbed, p + "Sine_Positions", x.shape, {x});
  const int first = b.next_block();
  for (std::int64_t i = 0; i < d.encoder_layers; ++i) {
    b.set_block(first + static_cast<int>(i));
    const Scope l = stack / "layers" / i;
    const BlockNames n{i};
    const AttentionSpec attn{.hidden = d.e, .heads = d.encoder_heads, .module = l / "self_attn",
                             .q = l / "self_attn" / "q_proj", .k = l / "self_attn" / "k_proj",
                             .v = l / "self_attn" / "v_proj", .o = l / "self_attn" / "out_proj",
                             .dropout = d.dropout, .output_dropout = d.dropout};
    const FeedForwardSpec ffn{.hidden = d.e, .intermediate = d.encoder_ffn, .activation = d.encoder_activation,
                              .module = l, .up = l / "fc1", .down = l / "fc2", .output_dropout = d.dropout,
                              .inner_dropout = d.activation_dropout};
    const NormSpec norm1{l / "self_attn_layer_norm"}, norm2{l / "final_layer_norm"};
    if (d.normalize_before) {
      auto hn = norm(b, x, p + n.norm(1, NormKind::LayerNorm), norm1);
      auto a = attention(b, add(b, hn, pos, p + n.attention() + "_Pos_Add"), p + n.attention(), attn);
      x = add(b, a, x, p + n.add(1));
      hn = norm(b, x, p + n.norm(2, NormKind::LayerNorm), norm2);
      x = add(b, feed_forward(b, hn, p + n.ffn(), ffn), x, p + n.add(2));
    } else {
      auto a = attention(b, add(b, x, pos, p + n.attention() + "_Pos_Add"), p + n.attention(), attn);
      x = norm(b, add(b, a, x, p + n.add(1)), p + n.norm(1, NormKind::LayerNorm), norm1);
      x = norm(b, add(b, feed_forward(b, x, p + n.ffn(), ffn), x, p + n.add(2)), p + n.norm(2, NormKind::LayerNorm),
               norm2);
    }
  }
  b.set_block(-1);
  return Value{x.node, {d.e, h, w}};
}

// RTDetrHybridEncoder: AIFI on the levels in encode_proj_layers, then CCFM: top-down (lateral 1x1 conv, nearest
// 2x upsampling, concatenation with the level below, CSP block) and bottom-up (3x3 stride-2 conv, concatenation with
// the FPN level, CSP block). Returns one E-channel map per level, finest first.
std::vector<Value> hybrid_encoder(GraphBuilder& b, std::vector<Value> maps, const Dims& d, const Scope& enc,
                                  bool dfine, const std::string& origin) {
  const auto n = static_cast<std::int64_t>(maps.size());
  for (std::size_t i = 0; i < d.encode_proj_layers.size(); ++i) {
    std::int64_t level = d.encode_proj_layers[i];
    if (level < 0) level += n;
    if (level < 0 || level >= n)
      throw Error(ErrorKind::InvalidInput, fmt::format("{}: key 'encode_proj_layers'", origin),
                  fmt::format("level {} is not one of the {} encoder levels", d.encode_proj_layers[i], n));
    if (d.encoder_layers > 0)
      maps[static_cast<std::size_t>(level)] =
          aifi(b, maps[static_cast<std::size_t>(level)], d, enc / "encoder" / static_cast<std::int64_t>(i),
               static_cast<std::int64_t>(i));
  }
  std::vector<Value> fpn{maps.back()};
  for (std::int64_t idx = 0; idx + 1 < n; ++idx) {
    auto top = conv_norm_layer(b, fpn.back(), fmt::format("FPN_Lateral_{}", idx), enc / "lateral_convs" / idx, d.e,
                               d.e, 1, 1, dfine ? "" : d.activation);
    fpn.back() = top;
    const std::int64_t h = top.shape.size() == 3 ? top.shape[1] : 0, w = top.shape.size() == 3 ? top.shape[2] : 0;
    auto up = resize(b, top, fmt::format("FPN_Upsample_{}", idx), 2 * h, 2 * w);
    auto fused = concat(b, up, maps[static_cast<std::size_t>(n - idx - 2)], fmt::format("FPN_Concat_{}", idx));
    const std::string block = fmt::format("FPN_Block_{}", idx);
    fpn.push_back(dfine ? rep_ncsp_elan4(b, fused, block, enc / "fpn_blocks" / idx, d)
                        : csp_rep_layer(b, fused, block, enc / "fpn_blocks" / idx, d));
  }
  std::reverse(fpn.begin(), fpn.end());
  std::vector<Value> pan{fpn.front()};
  for (std::int64_t idx = 0; idx + 1 < n; ++idx) {
    // D-FINE's SCDown: a 1x1 conv, then a depthwise 3x3 stride-2 conv, neither activated.
    const Scope down_module = enc / "downsample_convs" / idx;
    const std::string down_name = fmt::format("PAN_Downsample_{}", idx);
    auto down = dfine ? conv_norm_layer(b, conv_norm_layer(b, pan.back(), down_name + "_1", down_module / "conv1", d.e,
                                                           d.e, 1, 1, ""),
                                        down_name + "_2", down_module / "conv2", d.e, d.e, 3, 2, "", d.e)
                      : conv_norm_layer(b, pan.back(), down_name, down_module, d.e, d.e, 3, 2, d.activation);
    auto fused = concat(b, down, fpn[static_cast<std::size_t>(idx + 1)], fmt::format("PAN_Concat_{}", idx));
    const std::string block = fmt::format("PAN_Block_{}", idx);
    pan.push_back(dfine ? rep_ncsp_elan4(b, fused, block, enc / "pan_blocks" / idx, d)
                        : csp_rep_layer(b, fused, block, enc / "pan_blocks" / idx, d));
  }
  return pan;
}

// Where a head's weights live, and (v2) the top-level module that aliases them.
Value head_linear(GraphBuilder& b, const Value& x, const std::string& name, const Scope& module, const Scope& alias,
                  std::int64_t in, std::int64_t out, const std::string& activation, NodeType type = NodeType::Linear) {
  graph::Shape shape = x.shape;
  shape.back() = out;
  auto node = b.node(type, name, shape, {x}, module);
  b.at(node).activation = activation;
  linear_tensors(b, node, module, in, out, true);
  if (!alias.empty()) {
    b.tied(node, alias("weight"), {out, in}, module("weight"), graph::TensorRole::Linear);
    b.tied(node, alias("bias"), {out}, module("bias"), graph::TensorRole::Bias);
  }
  return node;
}

// RTDetrMLPPredictionHead: `layers` Linear layers (module.layers.k), ReLU between them.
Value mlp_head(GraphBuilder& b, const Value& x, const std::string& name, const Scope& module, const Scope& alias,
               std::int64_t in, std::int64_t hidden, std::int64_t out, std::int64_t layers,
               const std::string& last_activation = "") {
  Value h = x;
  for (std::int64_t k = 0; k < layers; ++k) {
    const bool last = k + 1 == layers;
    h = head_linear(b, h, fmt::format("{}_{}", name, k + 1), module / "layers" / k,
                    alias.empty() ? Scope() : alias / "layers" / k, k == 0 ? in : hidden, last ? out : hidden,
                    last ? last_activation : "relu");
  }
  return h;
}

// The backbone's feature maps (stage outputs) and their channels: RTDetrConvEncoder's load_backbone(config), an
// RTDetrResNet (RT-DETR, v2) or an HGNetV2 (D-FINE) from backbone_config (by default stages 2-4), its BatchNorms
// frozen unless freeze_backbone_batch_norms is false.
struct BackboneMaps {
  std::vector<Value> maps;
  std::vector<std::int64_t> channels;
};

BackboneMaps backbone(const Config& c, GraphBuilder& b, std::int64_t image, const Scope& root, bool dfine) {
  if (c.flag({"use_timm_backbone"}, false))
    throw Error(ErrorKind::Unsupported, fmt::format("{}: key 'use_timm_backbone'", c.origin()),
                "a timm backbone is not modelled here; give backbone_config instead");
  if (const auto* named = c.raw({"backbone"}); named && named->is_string())
    throw Error(ErrorKind::Unsupported, fmt::format("{}: key 'backbone'", c.origin()),
                fmt::format("'{}' is a Hub checkpoint whose config is not in this file; give backbone_config instead",
                            named->get<std::string>()));
  const std::string expected = dfine ? "hgnet_v2" : "rt_detr_resnet";
  const Config bc = c.child("backbone_config", nlohmann::json{{"model_type", expected}, {"out_indices", {2, 3, 4}}});
  if (const std::string type = bc.text({"model_type"}, expected); type != expected)
    throw Error(ErrorKind::Unsupported, fmt::format("{}: key 'model_type'", bc.origin()),
                fmt::format("only a '{}' backbone is modelled, not '{}'", expected, type));
  const bool frozen = c.flag({"freeze_backbone_batch_norms"}, true);
  const std::int64_t channels = bc.dim({"num_channels"}, 3);
  auto pixels = b.input({channels, image, image}, "pixels");
  std::vector<Value> stages;
  std::vector<std::int64_t> widths;
  if (dfine) {
    // HGNetV2Backbone reports [embedding_size] + hidden_sizes as its channels, which size encoder_input_proj even
    // where they disagree with the stage_out_channels the maps have (the forward then fails, as the reference's).
    auto f = hgnet_v2::trunk(bc, b, pixels, root, frozen);
    stages = std::move(f.stages);
    widths = size_list(bc, "hidden_sizes", {256, 512, 1024, 2048});
    widths.insert(widths.begin(), bc.dim({"embedding_size"}, 64));
    if (widths.size() != stages.size())
      throw Error(ErrorKind::InvalidInput, fmt::format("{}: key 'hidden_sizes'", bc.origin()),
                  fmt::format("lists {} stages but the backbone has {}", widths.size() - 1, stages.size() - 1));
  } else {
    const resnet::HfConfig cfg = resnet::read_hf_config(bc);
    auto f = rt_detr_resnet::trunk(b, pixels, cfg, root, frozen ? resnet::Norm::Frozen : resnet::Norm::Trained);
    stages = std::move(f.stages);
    widths = std::move(f.channels);
  }
  const auto count = static_cast<std::int64_t>(stages.size()) - 1;
  BackboneMaps out;
  for (const std::int64_t s : backbone_stages(bc, count, {count})) {
    out.maps.push_back(stages[static_cast<std::size_t>(s)]);
    out.channels.push_back(widths[static_cast<std::size_t>(s)]);
  }
  return out;
}

// DFineMultiscaleDeformableAttention: sampling_offsets and attention_weights over heads x sum(points per level),
// the num_points_scale buffer; no value or output projection (the values are the encoder tokens themselves).
Value dfine_cross_attention(GraphBuilder& b, const Value& queries, const Value& value, const std::string& name,
                            const Dims& d, const Scope& m) {
  std::int64_t points = 0, most = 0;
  for (const std::int64_t p : d.points_per_level) {
    points += p;
    most = std::max(most, p);
  }
  const std::int64_t q = queries.shape.empty() ? 0 : queries.shape.front();
  auto out = b.node(NodeType::DeformableAttention, name, queries.shape, {queries, value}, m);
  b.at(out).deformable = graph::DeformableAttrs{.heads = d.decoder_heads,
                                                .head_dim = d.decoder_heads > 0 ? d.d / d.decoder_heads : 0,
                                                .levels = static_cast<std::int64_t>(d.points_per_level.size()),
                                                .points = most,
                                                .samples = points,
                                                .queries = q,
                                                .value_len = value.shape.empty() ? 0 : value.shape.front(),
                                                .value_input = value.node,
                                                .reference_coords = 4};
  b.at(out).dropout = d.dropout;
  b.buffer(out, m("num_points_scale"), {points}, DType::F32);
  linear_tensors(b, out, m / "sampling_offsets", d.d, d.decoder_heads * points * 2, true);
  linear_tensors(b, out, m / "attention_weights", d.d, d.decoder_heads * points, true);
  if (d.decoder_heads <= 0 || d.d % d.decoder_heads != 0)
    b.fail(out, fmt::format("d_model {} is not divisible by {} heads", d.d, d.decoder_heads));
  return out;
}

}  // namespace
}  // namespace rt_detr_common_impl
using namespace rt_detr_common_impl;

Value build(const BuildInput& in, GraphBuilder& b, const Layout& layout) {
  const Config& c = in.config;
  const rt_detr_common_impl::Dims d = rt_detr_common_impl::read_dims(c, layout);
  const bool v2 = layout.variant == Variant::V2, dfine = layout.variant == Variant::DFine;
  const bool detection = in.class_name.ends_with("ForObjectDetection");
  const Scope model = detection ? Scope("model") : Scope();
  const std::int64_t image = in.image_size(kDefaultImageSize);
  const std::int64_t labels = in.num_labels();

  const rt_detr_common_impl::BackboneMaps bb = rt_detr_common_impl::backbone(c, b, image, model / "backbone" / "model", dfine);
  // encoder_input_proj.N: each backbone map to E channels (1x1 conv, BatchNorm2d).
  std::vector<Value> maps;
  for (std::size_t i = 0; i < bb.maps.size(); ++i) {
    const Scope proj = model / "encoder_input_proj" / static_cast<std::int64_t>(i);
    maps.push_back(rt_detr_common_impl::conv_norm(b, bb.maps[i], fmt::format("Encoder_Input_Projection_{}", i), proj / 0, proj / 1,
                             bb.channels[i], d.e, 1, 1, ""));
  }
  // The hybrid encoder fuses len(encoder_in_channels) levels; the reference indexes the backbone's maps by them.
  if (maps.size() != d.encoder_in.size())
    throw Error(ErrorKind::InvalidInput, fmt::format("{}: key 'encoder_in_channels'", c.origin()),
                fmt::format("lists {} levels but the backbone hands on {} feature maps", d.encoder_in.size(),
                            maps.size()));
  const std::vector<Value> fused = rt_detr_common_impl::hybrid_encoder(b, maps, d, model / "encoder", dfine, c.origin());

  // decoder_input_proj.N: each fused level to d_model (1x1 conv + BatchNorm2d); levels beyond them (up to
  // num_feature_levels) are 3x3 stride-2 convolutions of the coarsest fused map. D-FINE reads every projection
  // from decoder_in_channels[-1] channels and makes them all identities when that is d_model.
  const auto projections = static_cast<std::int64_t>(d.decoder_in.size());
  const auto fused_count = static_cast<std::int64_t>(fused.size());
  if (fused_count > std::max(projections, d.levels))
    throw Error(ErrorKind::InvalidInput, fmt::format("{}: key 'decoder_in_channels'", c.origin()),
                fmt::format("has {} entries for {} encoder levels", projections, fused.size()));
  const bool identity = dfine && d.d == d.decoder_in.back();
  std::vector<Value> sources;
  std::int64_t in_channels = d.decoder_in.back();
  const std::int64_t total_levels = std::max(d.levels, fused_count);
  for (std::int64_t level = 0; level < std::max(total_levels, projections); ++level) {
    const Scope proj = model / "decoder_input_proj" / level;
    const bool direct = level < fused_count;
    const Value& src = direct ? fused[static_cast<std::size_t>(level)] : fused.back();
    const std::int64_t ch = dfine ? d.decoder_in.back()
                            : level < projections ? d.decoder_in[static_cast<std::size_t>(level)]
                                                  : in_channels;
    const bool extra = level >= projections;  // a stride-2 level beyond decoder_in_channels
    Value out = src;
    if (!identity)
      out = rt_detr_common_impl::conv_norm(b, src, fmt::format("Decoder_Input_Projection_{}", level), proj / 0, proj / 1, ch, d.d,
                      extra ? 3 : 1, extra ? 2 : 1, "");
    if (extra && !dfine) in_channels = d.d;
    // Projections past num_feature_levels are built but never run; their nodes hold the saved tensors.
    if (level < total_levels) sources.push_back(out);
  }
  Value memory;
  for (std::size_t i = 0; i < sources.size(); ++i) {
    const Value& m = sources[i];
    const std::int64_t hw = m.shape.size() == 3 ? m.shape[1] * m.shape[2] : 0;
    const Value flat{m.node, {hw, d.d}};
    memory = i == 0 ? flat
                    : b.node(NodeType::Add, fmt::format("Flatten_Levels_{}", i), {memory.shape.front() + hw, d.d},
                             {memory, flat});
  }

  // Contrastive denoising: in training with labels, noised ground-truth labels (denoising_class_embed, num_labels + 1
  // rows, the last the padding row) and boxes join the decoder's queries: 2 max_gt (num_denoising // max_gt)
  // queries, positive and negative groups, at most 2 num_denoising. The graph plans that bound.
  const std::int64_t denoising_queries = d.denoising > 0 ? 2 * d.denoising : 0;
  std::optional<Value> dn;
  if (d.denoising > 0) {
    dn = b.node(NodeType::Embedding, "Denoising_Class_Embedding", {denoising_queries, d.d}, {memory},
                model / "denoising_class_embed");
    b.parameter(*dn, (model / "denoising_class_embed")("weight"), {labels + 1, d.d}, graph::TensorRole::Embedding);
  }
  const std::int64_t queries = d.queries + denoising_queries;
  // Query selection: enc_output (Linear + LayerNorm) over every encoder token, scored by enc_score_head; the
  // top num_queries tokens' boxes (enc_bbox_head plus anchors) become the reference boxes and their features the
  // content queries (or weight_embedding with learn_initial_query).
  auto out_mem = dense(b, memory, "Encoder_Output_Projection", model / "enc_output" / 0, d.d, d.d, true);
  out_mem = norm(b, out_mem, "Encoder_Output_LayerNorm", {model / "enc_output" / 1});
  rt_detr_common_impl::head_linear(b, out_mem, "Encoder_Score_Head", model / "enc_score_head", Scope(), d.d, labels, "",
              NodeType::Classifier);
  rt_detr_common_impl::mlp_head(b, out_mem, "Encoder_Box_Head", model / "enc_bbox_head", Scope(), d.d, d.d, 4, 3);
  Value x;
  if (d.learn_initial_query) {
    const Scope table = model / "weight_embedding";
    x = b.node(NodeType::Embedding, "Initial_Queries", {d.queries, d.d}, {out_mem}, table);
    b.parameter(x, table("weight"), {d.queries, d.d}, graph::TensorRole::Embedding);
  } else {
    x = b.node(NodeType::Add, "Top_Query_Features", {d.queries, d.d}, {out_mem});
  }
  if (dn) x = b.node(NodeType::Add, "Decoder_Queries_With_Denoising", {queries, d.d}, {*dn, x});

  // The decoder: positions from the reference boxes (query_pos_head, 4 -> 2 d_model -> d_model), then post-norm
  // layers of self-attention, deformable cross-attention to the value tokens (boxes: 4 reference coordinates) and
  // the FFN. The detection class refines the boxes after every layer (decoder.bbox_embed.i) and scores every
  // layer's queries (decoder.class_embed.i); v2 and D-FINE also keep them at the top level, tied to the decoder's.
  const Scope dec = model / "decoder";
  auto boxes = b.node(NodeType::Add, "Reference_Boxes", {queries, 4}, {out_mem});
  const Value pos = rt_detr_common_impl::mlp_head(b, boxes, "Query_Position_Head", dec / "query_pos_head", Scope(), 4, 2 * d.d, d.d, 2);
  const bool top_heads = v2 || dfine;
  // D-FINE runs decoder_layers - eval_idx - 1 more layers after the first decoder_layers.
  const std::int64_t layers = dfine ? d.decoder_layers + std::max<std::int64_t>(0, d.decoder_layers - d.eval_idx - 1)
                                    : d.decoder_layers;
  const std::int64_t corners = 4 * (d.bins + 1);  // D-FINE's box heads: a distribution over bins per edge
  Value logits;
  const int first = b.next_block();
  for (std::int64_t i = 0; i < layers; ++i) {
    b.set_block(first + static_cast<int>(i));
    const Scope l = dec / "layers" / i;
    const BlockNames n{i};
    const std::string p = "Decoder_";
    auto self = attention(b, add(b, x, pos, p + n.attention() + "_Pos_Add"), p + n.attention(),
                          AttentionSpec{.hidden = d.d, .heads = d.decoder_heads, .module = l / "self_attn",
                                        .q = l / "self_attn" / "q_proj", .k = l / "self_attn" / "k_proj",
                                        .v = l / "self_attn" / "v_proj", .o = l / "self_attn" / "out_proj",
                                        .dropout = d.attention_dropout, .output_dropout = d.dropout});
    x = norm(b, add(b, self, x, p + n.add(1)), p + n.norm(1, NormKind::LayerNorm), {l / "self_attn_layer_norm"});
    const Scope cross_module = l / "encoder_attn";
    const std::string cross_name = fmt::format("Decoder_Cross_Attention_{}", i);
    auto cross_in = add(b, x, pos, cross_name + "_Pos_Add");
    if (dfine) {
      // The gateway replaces the residual sum and its LayerNorm: sigmoid gates from [residual, attention] weigh
      // the two before gateway.norm.
      auto cross = rt_detr_common_impl::dfine_cross_attention(b, cross_in, memory, cross_name, d, cross_module);
      auto both = b.node(NodeType::Add, p + fmt::format("Gate_Concat_{}", i), {queries, 2 * d.d}, {x, cross});
      auto gates = dense(b, both, p + fmt::format("Gate_{}", i), l / "gateway" / "gate", 2 * d.d, 2 * d.d, true,
                         "sigmoid");
      auto mixed = b.node(NodeType::Add, p + fmt::format("Gate_Mix_{}", i), {queries, d.d}, {gates, x});
      b.at(mixed).inputs.push_back(cross.node);
      x = norm(b, mixed, p + fmt::format("Gate_LayerNorm_{}", i), {l / "gateway" / "norm"});
    } else {
      auto cross = deformable_attention(
          b, cross_in, memory, cross_name,
          DeformableAttentionSpec{.hidden = d.d, .heads = d.decoder_heads, .levels = d.attention_levels,
                                  .points = d.decoder_points, .reference_coords = 4, .module = cross_module,
                                  .output_dropout = d.dropout});
      // v2 scales each sampling offset by 1 / points of its level (a persistent fp32 buffer).
      if (v2) b.buffer(cross, cross_module("n_points_scale"), {d.attention_levels * d.decoder_points}, DType::F32);
      x = norm(b, add(b, cross, x, p + n.add(2)), p + n.norm(2, NormKind::LayerNorm),
               {l / "encoder_attn_layer_norm"});
    }
    auto f = feed_forward(b, x, p + n.ffn(),
                          FeedForwardSpec{.hidden = d.d, .intermediate = d.decoder_ffn,
                                          .activation = d.decoder_activation, .module = l, .up = l / "fc1",
                                          .down = l / "fc2", .output_dropout = d.dropout,
                                          .inner_dropout = d.activation_dropout});
    x = norm(b, add(b, f, x, p + n.add(3)), p + n.norm(3, NormKind::LayerNorm), {l / "final_layer_norm"});
    if (dfine && i == 0) {
      // pre_bbox_head refines the initial boxes after the first layer; the integral turns each edge's bin
      // distribution into an offset, weighted by reg_scale and up (parameters without gradient).
      auto pre = rt_detr_common_impl::mlp_head(b, x, "Decoder_Pre_Box_Head", dec / "pre_bbox_head", Scope(), d.d, d.d, 4, 3);
      auto integral = b.node(NodeType::Add, "Decoder_Box_Integral", pre.shape, {pre});
      b.parameter(integral, dec("reg_scale"), {1}, graph::TensorRole::Other);
      b.parameter(integral, dec("up"), {1}, graph::TensorRole::Other);
      b.freeze(integral);
    }
    if (dfine && i < d.decoder_layers) {
      // DFineLQE: the top top_prob_values bin probabilities of each edge and their mean score the box quality.
      auto stat = b.node(NodeType::Add, fmt::format("Decoder_LQE_Statistics_{}", i),
                         {queries, 4 * (d.top_prob_values + 1)}, {x});
      rt_detr_common_impl::mlp_head(b, stat, fmt::format("Decoder_LQE_{}", i), dec / "lqe_layers" / i / "reg_conf", Scope(),
               4 * (d.top_prob_values + 1), d.lqe_hidden, 1, d.lqe_layers);
    }
    if (detection && i < d.decoder_layers) {
      if (dfine) {
        // Heads after eval_idx read round(layer_scale * d_model) features.
        const std::int64_t width = i <= d.eval_idx ? d.d
                                                   : static_cast<std::int64_t>(std::nearbyint(
                                                         d.layer_scale * static_cast<double>(d.d)));
        rt_detr_common_impl::mlp_head(b, Value{x.node, {queries, width}}, fmt::format("Decoder_Box_Distribution_{}", i),
                 dec / "bbox_embed" / i, Scope("bbox_embed") / i, width, width, corners, 3);
      } else {
        rt_detr_common_impl::mlp_head(b, x, fmt::format("Decoder_Box_Refine_{}", i), dec / "bbox_embed" / i,
                 top_heads ? Scope("bbox_embed") / i : Scope(), d.d, d.d, 4, 3, "sigmoid");
      }
      logits = rt_detr_common_impl::head_linear(b, x, fmt::format("Class_Logits_{}", i), dec / "class_embed" / i,
                           top_heads ? Scope("class_embed") / i : Scope(), d.d, labels, "", NodeType::Classifier);
    }
  }
  b.set_block(-1);
  return detection ? logits : x;
}

}  // namespace neurarch::families::rt_detr
