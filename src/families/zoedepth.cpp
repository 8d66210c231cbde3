// ZoeDepth (models/zoedepth/modeling_zoedepth.py + configuration_zoedepth.py, transformers 4.47.1, checked against
// 5.24): a BEiT backbone (load_backbone: BeitBackbone, the token sequences after the out_features layers; BEiT-large at
// 384 px when backbone_config is absent), DPT's neck (readout "project"), DPT's relative-depth head (relative_head),
// and a metric head: seed bins regressed from the coarsest neck map, refined by one attractor per fused map, then a
// conditional log-binomial over the bins from the relative head's features (plus the relative depth). With several
// bin_configurations the metric head is ZoeDepthMultipleMetricDepthEstimationHeads: a small patch transformer and MLP
// vote for one configuration per batch, whose regressor, attractors and log-binomial run (the graph runs the first;
// the others are stored). The log-binomial's k_idx / k_minus_1 buffers are not persistent.
#include <algorithm>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "blocks/upsample.hpp"
#include "core/error.hpp"
#include "families/backbone_stages.hpp"
#include "families/config_lists.hpp"
#include "families/dpt_common.hpp"
#include "families/vit_common.hpp"

namespace neurarch::families {
namespace zoedepth_impl {
namespace {

using namespace blocks;
using graph::NodeType;

struct BinConfiguration {
  std::string name;
  std::int64_t bins = 64;
};

std::vector<BinConfiguration> bin_configurations(const Config& c) {
  const std::string where = c.origin() + ": key 'bin_configurations'";
  const auto* v = c.raw({"bin_configurations"});
  if (!v || v->is_null() || (v->is_array() && v->empty())) {
    c.record_default("bin_configurations",
                     nlohmann::json::array({{{"n_bins", 64}, {"min_depth", 0.001}, {"max_depth", 10.0}}}));
    return {{"", 64}};
  }
  if (!v->is_array()) throw Error(ErrorKind::InvalidInput, where, "expected a list of bin configurations");
  std::vector<BinConfiguration> out;
  for (const auto& conf : *v) {
    if (!conf.is_object() || !conf.contains("n_bins") || !conf["n_bins"].is_number_integer() ||
        conf["n_bins"].get<std::int64_t>() <= 0)
      throw Error(ErrorKind::InvalidInput, where, "each configuration needs a positive integer n_bins");
    BinConfiguration bc{"", conf["n_bins"].get<std::int64_t>()};
    if (conf.contains("name") && conf["name"].is_string()) bc.name = conf["name"].get<std::string>();
    out.push_back(bc);
  }
  if (out.size() > 1)
    for (const auto& bc : out)
      if (bc.name.empty())
        throw Error(ErrorKind::InvalidInput, where,
                    "with several configurations each needs a 'name' (a ModuleDict key)");
  return out;
}

// The metric head's sizes.
struct MetricSizes {
  std::int64_t fusion = 256, bottleneck = 256, embedding = 128, relative = 32;
  std::vector<std::int64_t> attractors;  ///< num_attractors
  bool normed = false;                   ///< bin_centers_type "normed" (else "softplus")
};

// ZoeDepthProjector: 1x1 conv, ReLU, 1x1 conv.
Value projector(GraphBuilder& b, const Value& x, const std::string& name, const Scope& m, std::int64_t in,
                std::int64_t mlp, std::int64_t out) {
  auto h = conv2d(b, x, name + "_Conv1", {.module = m / "conv1", .in = in, .out = mlp});
  b.at(h).activation = "relu";
  return conv2d(b, h, name + "_Conv2", {.module = m / "conv2", .in = mlp, .out = out});
}

// ZoeDepthSeedBinRegressor: 1x1 conv, ReLU, 1x1 conv to n_bins, ReLU (normed) or Softplus.
Value seed_bins(GraphBuilder& b, const Value& x, const Scope& m, const MetricSizes& h, std::int64_t mlp,
                std::int64_t bins) {
  auto y = conv2d(b, x, "Seed_Bin_Conv1", {.module = m / "conv1", .in = h.bottleneck, .out = mlp});
  b.at(y).activation = "relu";
  y = conv2d(b, y, "Seed_Bin_Conv2", {.module = m / "conv2", .in = mlp, .out = bins});
  b.at(y).activation = h.normed ? "relu" : "softplus";
  return y;
}

// ZoeDepthAttractorLayer(Unnormed) `m`: the previous embedding resized and added, 1x1 conv, ReLU, 1x1 conv to the
// attractors (x2 when normed), then the bin centres moved towards them (resized previous bins).
Value attractor(GraphBuilder& b, const Value& embedding, const Value& prev_bins, const Value& prev_embedding,
                const Scope& m, const MetricSizes& h, std::int64_t count, std::int64_t k) {
  const std::string name = fmt::format("Attractor_{}", k);
  const std::int64_t height = embedding.shape[1], width = embedding.shape[2];
  auto prev = resize(b, prev_embedding, name + "_Resize_Embedding", height, width);
  auto x = add(b, embedding, prev, name + "_Add");
  x = conv2d(b, x, name + "_Conv1", {.module = m / "conv1", .in = h.embedding, .out = h.embedding});
  b.at(x).activation = "relu";
  x = conv2d(b, x, name + "_Conv2", {.module = m / "conv2", .in = h.embedding, .out = h.normed ? 2 * count : count});
  b.at(x).activation = h.normed ? "relu" : "softplus";
  auto bins = resize(b, prev_bins, name + "_Resize_Bins", height, width);
  // The attractors pull every bin centre (a parameter-free sum over the attractors).
  return b.node(NodeType::Add, name + "_Bins", bins.shape, {bins, x});
}

// ZoeDepthConditionalLogBinomialSoftmax `m`: concat(main, condition) -> 1x1 conv, GELU, 1x1 conv to 4, Softplus ->
// probabilities and temperature -> a log-binomial softmax over `bins`.
Value log_binomial(GraphBuilder& b, const Value& main, const Value& condition, const Scope& m, std::int64_t bins,
                   std::int64_t factor) {
  const std::int64_t in = main.shape[0] + condition.shape[0];
  auto cat = b.node(NodeType::Add, "Log_Binomial_Concat", {in, main.shape[1], main.shape[2]}, {main, condition});
  auto x = conv2d(b, cat, "Log_Binomial_Conv1", {.module = m / "mlp" / 0, .in = in, .out = in / factor});
  b.at(x).activation = "gelu";
  x = conv2d(b, x, "Log_Binomial_Conv2", {.module = m / "mlp" / 2, .in = in / factor, .out = 4});
  b.at(x).activation = "softplus";
  return b.node(NodeType::Add, "Log_Binomial_Softmax", {bins, main.shape[1], main.shape[2]}, {x});
}

// ZoeDepthPatchTransformerEncoder + ZoeDepthMLPClassifier: the domain vote of the multiple-configuration head.
void domain_vote(GraphBuilder& b, const Config& c, const Value& x, const Scope& head, const MetricSizes& h) {
  const Scope pt = head / "patch_transformer";
  const std::int64_t layers = c.dim({"num_patch_transformer_layers"});
  const std::int64_t hidden = c.dim({"patch_transformer_hidden_size"});
  const std::int64_t intermediate = c.dim({"patch_transformer_intermediate_size"});
  const std::int64_t heads = c.dim({"patch_transformer_num_attention_heads"});
  auto e = conv2d(b, x, "Patch_Transformer_Embedding", {.module = pt / "embedding_convPxP", .in = h.bottleneck,
                                                        .out = hidden});
  // Flattened, a zero token padded in front, sinusoidal positions added: [1 + h w, hidden].
  Value t{e.node, {1 + e.shape[1] * e.shape[2], hidden}};
  for (std::int64_t i = 0; i < layers; ++i) {
    const Scope l = pt / "transformer_encoder" / i;
    const BlockNames n{i};
    if (i >= 4) {
      // forward() runs transformer_encoder[0:4]: later layers are stored only.
      for (const char* p : {"query", "key", "value", "out_proj"})
        linear_tensors(b, t, l / "self_attn" / p, hidden, hidden, true);
      linear_tensors(b, t, l / "linear1", hidden, intermediate, true);
      linear_tensors(b, t, l / "linear2", intermediate, hidden, true);
      for (const char* p : {"norm1", "norm2"}) {
        b.parameter(t, (l / p)("weight"), {hidden}, graph::TensorRole::Norm);
        b.parameter(t, (l / p)("bias"), {hidden}, graph::TensorRole::Bias);
      }
      continue;
    }
    const Scope attn = l / "self_attn";
    auto a = attention(b, t, "Patch_Transformer_" + n.attention(),
                       {.hidden = hidden, .heads = heads, .module = attn, .q = attn / "query", .k = attn / "key",
                        .v = attn / "value", .o = attn / "out_proj", .dropout = 0.1, .output_dropout = 0.1});
    const std::string tag = "Patch_Transformer_";
    auto s = norm(b, add(b, a, t, tag + n.add(1)), tag + n.norm(1, NormKind::LayerNorm), {l / "norm1"});
    auto f = feed_forward(b, s, "Patch_Transformer_" + n.ffn(),
                          {.hidden = hidden, .intermediate = intermediate, .activation = "relu", .module = l,
                           .up = l / "linear1", .down = l / "linear2", .output_dropout = 0.1, .inner_dropout = 0.1});
    t = norm(b, add(b, f, s, tag + n.add(2)), tag + n.norm(2, NormKind::LayerNorm), {l / "norm2"});
  }
  if (layers < 4)
    b.fail(t, fmt::format("the patch transformer runs 4 layers; num_patch_transformer_layers is {}", layers));
  const Scope mlp = head / "mlp_classifier";
  auto y = dense(b, vit::first_token(t), "MLP_Classifier_Linear1", mlp / "linear1", 128, 128, true, "relu");
  dense(b, y, "MLP_Classifier_Linear2", mlp / "linear2", 128, 2, true);
}

// The metric head over the neck's maps; returns metric depth [H', W'].
Value metric_head(GraphBuilder& b, const Config& c, const Value& bottleneck, const std::vector<Value>& feature_blocks,
                  const Value& outconv, const Value& relative_depth) {
  MetricSizes h;
  h.fusion = c.dim({"fusion_hidden_size"}, 256);
  h.bottleneck = c.dim({"bottleneck_features"}, 256);
  h.embedding = c.dim({"bin_embedding_dim"}, 128);
  h.relative = c.dim({"num_relative_features"}, 32);
  h.attractors = size_list(c, "num_attractors", {16, 8, 4, 1});
  const std::string centers = c.text({"bin_centers_type"}, "softplus");
  if (centers != "normed" && centers != "softplus")
    throw Error(ErrorKind::InvalidInput, c.origin() + ": key 'bin_centers_type'",
                fmt::format("'{}' is not 'normed' or 'softplus': the reference has no attractor for it", centers));
  h.normed = centers == "normed";
  const auto confs = bin_configurations(c);
  const bool multiple = confs.size() > 1;
  const Scope head("metric_head");

  auto x = conv2d(b, bottleneck, "Metric_Bottleneck_Conv", {.module = head / "conv2", .in = h.bottleneck,
                                                           .out = h.bottleneck});
  if (multiple) domain_vote(b, c, x, head, h);
  // The multiple head halves its MLPs to bin_embedding_dim / 2; the single head keeps the modules' defaults.
  const std::int64_t seed_mlp = multiple ? h.embedding / 2 : 256;
  const std::int64_t projector_mlp = multiple ? h.embedding / 2 : 128;
  const auto run = confs.front();
  Value bins = seed_bins(b, x, multiple ? head / "seed_bin_regressors" / run.name : head / "seed_bin_regressor", h,
                         seed_mlp, run.bins);
  Value embedding =
      projector(b, x, "Seed_Projector", head / "seed_projector", h.bottleneck, projector_mlp, h.embedding);

  const std::size_t attractor_count = multiple ? h.attractors.size() : 4;
  if (!multiple && h.attractors.size() < 4)
    throw Error(ErrorKind::InvalidInput, c.origin() + ": key 'num_attractors'",
                fmt::format("the metric head builds 4 attractors and reads {} entries", h.attractors.size()));
  // The attractor of configuration `name`, layer i (multiple heads: n_attractors keeps its default, 16).
  auto conv_tensors = [&](const Value& owner, const Scope& m, std::int64_t from, std::int64_t to) {
    b.parameter(owner, m("weight"), {to, from, 1, 1}, graph::TensorRole::Conv);
    b.parameter(owner, m("bias"), {to}, graph::TensorRole::Bias);
  };
  auto attractor_scope = [&](const std::string& name, std::int64_t i) {
    return multiple ? head / "attractors" / name / i : head / "attractors" / i;
  };
  auto attractor_count_of = [&](std::size_t i) { return multiple ? std::int64_t{16} : h.attractors[i]; };
  const std::size_t steps = std::min({std::size_t{4}, attractor_count, feature_blocks.size()});
  for (std::size_t i = 0; i < steps; ++i) {
    const auto k = static_cast<std::int64_t>(i);
    auto e = projector(b, feature_blocks[i], fmt::format("Projector_{}", i), head / "projectors" / k, h.fusion,
                       projector_mlp, h.embedding);
    bins = attractor(b, e, bins, embedding, attractor_scope(run.name, k), h, attractor_count_of(i), k);
    embedding = e;
  }
  // Projectors the zip never reaches (fewer neck maps than 4) still hold weights.
  for (std::size_t i = steps; i < 4; ++i) {
    const Scope m = head / "projectors" / static_cast<std::int64_t>(i);
    conv_tensors(embedding, m / "conv1", h.fusion, projector_mlp);
    conv_tensors(embedding, m / "conv2", projector_mlp, h.embedding);
  }
  for (std::size_t i = steps; i < attractor_count; ++i) {
    const Scope m = attractor_scope(run.name, static_cast<std::int64_t>(i));
    const std::int64_t out = h.normed ? 2 * attractor_count_of(i) : attractor_count_of(i);
    conv_tensors(bins, m / "conv1", h.embedding, h.embedding);
    conv_tensors(bins, m / "conv2", h.embedding, out);
  }

  Value last = outconv;
  const std::int64_t height = last.shape[1], width = last.shape[2];
  if (!multiple) {
    // The relative depth, resized, is one more channel of the conditioning features.
    auto rel = resize(b, Value{relative_depth.node, {1, relative_depth.shape[0], relative_depth.shape[1]}},
                      "Relative_Depth_Resize", height, width);
    last = b.node(NodeType::Add, "Relative_Concat", {last.shape[0] + 1, height, width}, {last, rel});
  }
  embedding = resize(b, embedding, "Bin_Embedding_Resize", height, width);
  const Scope lb = multiple ? head / "conditional_log_binomial" / run.name : head / "conditional_log_binomial";
  auto probabilities = log_binomial(b, last, embedding, lb, run.bins, multiple ? 4 : 2);
  auto centres = resize(b, bins, "Bin_Centres_Resize", height, width);
  auto depth = b.node(NodeType::Add, "Metric_Depth", {height, width}, {probabilities, centres});

  // The configurations the vote did not pick: stored only.
  for (std::size_t k = 1; k < confs.size(); ++k) {
    const std::string& name = confs[k].name;
    const Scope seed = head / "seed_bin_regressors" / name;
    conv_tensors(depth, seed / "conv1", h.bottleneck, seed_mlp);
    conv_tensors(depth, seed / "conv2", seed_mlp, confs[k].bins);
    for (std::size_t i = 0; i < attractor_count; ++i) {
      const Scope m = attractor_scope(name, static_cast<std::int64_t>(i));
      conv_tensors(depth, m / "conv1", h.embedding, h.embedding);
      conv_tensors(depth, m / "conv2", h.embedding, h.normed ? 2 * attractor_count_of(i) : attractor_count_of(i));
    }
    const Scope other = head / "conditional_log_binomial" / name;
    const std::int64_t in = h.relative + h.embedding;
    conv_tensors(depth, other / "mlp" / 0, in, in / 4);
    conv_tensors(depth, other / "mlp" / 2, in / 4, 4);
  }
  return depth;
}

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config& c = in.config;
  if (const auto* v = c.raw({"backbone"}); v && !v->is_null())
    throw Error(ErrorKind::InvalidInput, c.origin() + ": key 'backbone'",
                  "ZoeDepth over a named (timm) backbone is not built; give backbone_config");
  const Config bc = c.child("backbone_config", {{"model_type", "beit"},
                                                {"image_size", 384},
                                                {"num_hidden_layers", 24},
                                                {"hidden_size", 1024},
                                                {"intermediate_size", 4096},
                                                {"num_attention_heads", 16},
                                                {"use_relative_position_bias", true},
                                                {"reshape_hidden_states", false},
                                                {"out_features", {"stage6", "stage12", "stage18", "stage24"}}});
  const std::string backbone_type = bc.text({"model_type"}, "beit");
  if (backbone_type != "beit")
    throw Error(ErrorKind::InvalidInput, c.origin() + ": key 'backbone_config.model_type'",
                fmt::format("ZoeDepth over a '{}' backbone is not built; only BEiT is", backbone_type));
  if (bc.flag({"add_fpn"}, false))
    throw Error(ErrorKind::InvalidInput, c.origin() + ": key 'backbone_config.add_fpn'",
                "BeitBackbone's FPN turns the tokens into maps, which ZoeDepth's reassemble stage cannot read");
  if (!bc.flag({"use_mean_pooling"}, true))
    throw Error(ErrorKind::InvalidInput, c.origin() + ": key 'backbone_config.use_mean_pooling'",
                "a BEiT backbone without mean pooling (a final layernorm on the tokens) is not built");

  // BeitBackbone under `backbone`: BEiT's embeddings and encoder, no pooler.
  const BuildInput backbone_in{bc, in.class_name, Head::Base, in.requested_seq, in.requested_image_size};
  const std::int64_t layers = bc.dim({"num_hidden_layers"}, 12);
  const std::size_t first = b.graph().nodes.size();
  {
    graph::Nested nest(b, {.module = "backbone", .label = "Backbone_", .first_block = 0});
    vit::beit_model(backbone_in, b, "", false);
  }
  const auto stages = backbone_stages(bc, layers, {layers});
  // hidden_states[stage]: stage 0 is the embeddings (layer 0's input), stage i the output of layer i - 1.
  auto find = [&](const std::string& name) {
    for (std::size_t k = first; k < b.graph().nodes.size(); ++k)
      if (b.graph().nodes[k].name == name) return Value{static_cast<int>(k), b.graph().nodes[k].out};
    throw std::logic_error("zoedepth: BEiT node " + name + " not built");
  };
  std::vector<Value> tokens;
  for (std::int64_t stage : stages) {
    if (stage == 0) {
      const auto& n = b.graph().nodes.at(static_cast<std::size_t>(find("Backbone_LayerNorm_0_1").node));
      const auto& src = b.graph().nodes.at(static_cast<std::size_t>(n.inputs.at(0)));
      tokens.push_back(Value{src.index, src.out});
    } else {
      tokens.push_back(find(fmt::format("Backbone_Add_{}_2", stage - 1)));
    }
  }
  if (bc.flag({"reshape_hidden_states"}, true))
    b.fail(tokens.back(), "backbone_config.reshape_hidden_states gives maps without the CLS token, which ZoeDepth's "
                          "reassemble stage reads: the reference fails");

  const vit::Geometry g = vit::read_geometry(backbone_in, {224, 224, false}, 16);
  dpt::NeckSpec neck;
  neck.neck = Scope("neck");
  neck.token_width = bc.dim({"hidden_size"}, 768);
  neck.grid_h = g.input.h / g.patch.h;
  neck.grid_w = g.input.w / g.patch.w;
  neck.neck_hidden = size_list(c, "neck_hidden_sizes", {96, 192, 384, 768});
  neck.factors = dpt::factor_list(c, "reassemble_factors", {4, 2, 1, 0.5});
  neck.fusion = c.dim({"fusion_hidden_size"}, 256);
  neck.readout = dpt::read_readout(c);
  neck.readout_activation = c.text({"hidden_act"}, "gelu");
  neck.residual_batch_norm = c.flag({"use_batch_norm_in_fusion_residual"}, false);
  const auto* bias = c.raw({"use_bias_in_fusion_residual"});
  neck.residual_bias = bias && !bias->is_null() ? c.flag({"use_bias_in_fusion_residual"}) : !neck.residual_batch_norm;
  if (neck.factors.size() < neck.neck_hidden.size())
    throw Error(ErrorKind::InvalidInput, c.origin() + ": key 'reassemble_factors'",
                fmt::format("has {} entries for {} neck_hidden_sizes", neck.factors.size(), neck.neck_hidden.size()));
  neck.factors.resize(neck.neck_hidden.size());
  if (tokens.size() != neck.neck_hidden.size())
    throw Error(ErrorKind::InvalidInput, c.origin() + ": key 'backbone_config.out_features'",
                fmt::format("selects {} backbone stages for {} neck_hidden_sizes: the neck raises", tokens.size(),
                            neck.neck_hidden.size()));
  const std::size_t neck_first = b.graph().nodes.size();
  const auto fused = dpt::neck(b, tokens, neck);
  // The neck also returns features[-1], the coarsest map after its 3x3 conv: the metric head's bottleneck.
  Value bottleneck = fused.front();
  const std::string last_conv = fmt::format("Neck_Conv_{}", neck.neck_hidden.size() - 1);
  for (std::size_t k = neck_first; k < b.graph().nodes.size(); ++k)
    if (b.graph().nodes[k].name == last_conv) bottleneck = Value{static_cast<int>(k), b.graph().nodes[k].out};

  // ZoeDepthRelativeDepthEstimationHead: conv1 (to fusion / 2), x2 bilinear upsample, conv2 + ReLU (the features
  // the metric head conditions on), conv3 + ReLU (relative depth).
  const Scope rel("relative_head");
  Value h = fused[dpt::python_index(c, "head_in_index", c.integer({"head_in_index"}, -1), fused.size())];
  if (c.flag({"add_projection"}, false)) {
    h = conv2d(b, h, "Relative_Projection", {.module = rel / "projection", .in = 256, .out = 256, .kernel = 3,
                                             .padding = 1});
    b.at(h).activation = "relu";
  }
  const std::int64_t relative = c.dim({"num_relative_features"}, 32);
  h = conv2d(b, h, "Relative_Conv1", {.module = rel / "conv1", .in = neck.fusion, .out = neck.fusion / 2, .kernel = 3,
                                      .padding = 1});
  h = resize(b, h, "Relative_Upsample", 2 * h.shape[1], 2 * h.shape[2]);
  auto features = conv2d(b, h, "Relative_Conv2", {.module = rel / "conv2", .in = neck.fusion / 2, .out = relative,
                                                  .kernel = 3, .padding = 1});
  b.at(features).activation = "relu";
  auto depth = conv2d(b, features, "Relative_Conv3", {.module = rel / "conv3", .in = relative, .out = 1});
  b.at(depth).activation = "relu";
  const Value relative_depth{depth.node, {depth.shape[1], depth.shape[2]}};

  return metric_head(b, c, bottleneck, fused, features, relative_depth);
}

}  // namespace
}  // namespace zoedepth_impl

const Family& zoedepth_family() {
  static const Family family{"zoedepth", "models/zoedepth/modeling_zoedepth.py",
                             {{"ZoeDepthForDepthEstimation", Head::PreTraining}}, zoedepth_impl::build};
  return family;
}

}  // namespace neurarch::families
