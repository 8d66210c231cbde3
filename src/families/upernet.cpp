// UperNet (models/upernet/modeling_upernet.py, transformers 4.47.1): a backbone's feature pyramid (backbone_config;
// HF ResNet here, UperNetConfig's default, with stages 1-4) under `backbone`, then UperHead: a pyramid pooling
// module on the deepest map (adaptive average pools to pool_scales, each a 1x1 conv module, upsampled back and
// concatenated with the map, then a 3x3 conv module "bottleneck"), 1x1 lateral conv modules on the other maps,
// a top-down pathway of upsample-and-add, 3x3 fpn conv modules, everything upsampled to the finest map,
// concatenated, a 3x3 fpn_bottleneck and a 1x1 classifier; the logits are resized to the image. Conv modules
// are bias-free conv -> BatchNorm -> ReLU. With use_auxiliary_head an FCN head reads backbone map 2 (auxiliary_
// num_convs conv modules over auxiliary_in_channels, optionally concatenated with its input). Other backbones
// are refused for now.
#include <algorithm>
#include <initializer_list>

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "blocks/upsample.hpp"
#include "core/error.hpp"
#include "families/backbone_stages.hpp"
#include "families/clip_common.hpp"
#include "families/config_lists.hpp"
#include "families/family.hpp"
#include "families/resnet_common.hpp"

namespace neurarch::families {
namespace upernet_impl {
namespace {

using namespace blocks;
using graph::NodeType;

// UperNetConvModule: bias-free Conv2d -> BatchNorm2d -> ReLU, named conv / batch_norm.
Value conv_module(GraphBuilder& b, const Value& x, const std::string& name, const Scope& module, std::int64_t in,
                  std::int64_t out, std::int64_t kernel, std::int64_t padding, std::int64_t dilation = 1) {
  if (dilation != 1)
    throw Error(ErrorKind::Unsupported, name, "dilated convolutions are not described");
  Value h = conv2d(b, x, name + "_Conv",
                   {.module = module / "conv", .in = in, .out = out, .kernel = kernel, .padding = padding, .bias = false});
  return batch_norm(b, h, name + "_BatchNorm", module / "batch_norm", "relu");
}

// torch.cat along channels: no parameters, nothing saved for backward.
Value concat(GraphBuilder& b, const std::vector<Value>& parts, const std::string& name) {
  std::int64_t channels = 0;
  for (const auto& p : parts) channels += p.shape.empty() ? 0 : p.shape.front();
  const auto& first = parts.front();
  auto out = b.node(NodeType::Add, name, {channels, first.shape[1], first.shape[2]}, {first});
  for (std::size_t i = 1; i < parts.size(); ++i) b.at(out).inputs.push_back(parts[i].node);
  for (const auto& p : parts)
    if (p.shape.size() != 3 || p.shape[1] != first.shape[1] || p.shape[2] != first.shape[2])
      b.fail(out, "concatenates maps of different sizes");
  return out;
}

// nn.AdaptiveAvgPool2d(scale): PyTorch's windows of ceil / floor bounds; nothing saved.
Value adaptive_pool(GraphBuilder& b, const Value& x, const std::string& name, std::int64_t scale) {
  const std::int64_t h = x.shape.size() == 3 ? x.shape[1] : 0, w = x.shape.size() == 3 ? x.shape[2] : 0;
  auto out = b.node(NodeType::Pool, name, {x.shape.empty() ? 0 : x.shape.front(), scale, scale}, {x});
  b.at(out).spatial = graph::SpatialAttrs{(h + scale - 1) / scale, (w + scale - 1) / scale, 1, 0, 1, false};
  if (h == 0 || w == 0) b.fail(out, "expects a [channels, height, width] feature map");
  return out;
}

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config& c = in.config;
  if (const auto* v = c.raw({"backbone"}); v && !v->is_null())
    throw Error(ErrorKind::Unsupported, fmt::format("{}: key 'backbone'", c.origin()),
                "a named (timm or Hub) backbone is not built; give backbone_config");
  const auto* raw_backbone = c.raw({"backbone_config"});
  const bool defaulted = !raw_backbone || raw_backbone->is_null();
  const Config bc = c.child("backbone_config");
  if (const std::string type = bc.text({"model_type"}, "resnet"); type != "resnet")
    throw Error(ErrorKind::Unsupported, fmt::format("{}: key 'backbone_config.model_type'", c.origin()),
                fmt::format("UperNet over a '{}' backbone is not built yet (only ResNet)", type));

  const resnet::HfConfig cfg = resnet::read_hf_config(bc);
  const auto stage_count = static_cast<std::int64_t>(cfg.depths.size());
  // UperNetConfig's own ResNetConfig returns stages 1-4; a ResNetConfig alone only the last.
  const auto stages = defaulted ? std::vector<std::int64_t>{1, 2, 3, 4} : backbone_stages(bc, stage_count, {stage_count});
  const std::int64_t image = in.image_size(512);
  auto pixels = b.input({cfg.channels, image, image}, "pixels");
  const auto trunk = resnet::hf_trunk(b, pixels, cfg, Scope("backbone"), resnet::Norm::Trained);
  std::vector<Value> maps;
  std::vector<std::int64_t> widths;
  for (std::int64_t s : stages) {
    maps.push_back(trunk.stages.at(static_cast<std::size_t>(s)));
    widths.push_back(s == 0 ? cfg.embedding : cfg.hidden.at(static_cast<std::size_t>(s - 1)));
  }
  b.set_block(-1);

  const std::int64_t channels = c.dim({"hidden_size"}, 512);
  const auto scales = size_list(c, "pool_scales", {1, 2, 3, 6});
  const std::int64_t labels = in.num_labels();
  const Scope head("decode_head");
  const std::size_t n = maps.size();

  // Pyramid pooling on the deepest map.
  const Value& deepest = maps.back();
  std::vector<Value> psp{deepest};
  for (std::size_t i = 0; i < scales.size(); ++i) {
    const auto index = static_cast<std::int64_t>(i);
    const std::string name = fmt::format("PSP_{}", i);
    Value p = adaptive_pool(b, deepest, name + "_Pool", scales[i]);
    p = conv_module(b, p, name, head / "psp_modules" / index / 1, widths.back(), channels, 1, 0);
    psp.push_back(resize(b, p, name + "_Upsample", deepest.shape[1], deepest.shape[2]));
  }
  Value top = conv_module(b, concat(b, psp, "PSP_Concat"), "PSP_Bottleneck", head / "bottleneck",
                          widths.back() + static_cast<std::int64_t>(scales.size()) * channels, channels, 3, 1);

  std::vector<Value> laterals;
  for (std::size_t i = 0; i + 1 < n; ++i)
    laterals.push_back(conv_module(b, maps[i], fmt::format("Lateral_{}", i), head / "lateral_convs" / static_cast<std::int64_t>(i),
                                   widths[i], channels, 1, 0));
  laterals.push_back(top);
  for (std::size_t i = n - 1; i > 0; --i) {
    const Value up = resize(b, laterals[i], fmt::format("TopDown_Upsample_{}", i), laterals[i - 1].shape[1],
                            laterals[i - 1].shape[2]);
    laterals[i - 1] = add(b, laterals[i - 1], up, fmt::format("TopDown_Add_{}", i - 1));
  }
  std::vector<Value> outs;
  for (std::size_t i = 0; i + 1 < n; ++i)
    outs.push_back(conv_module(b, laterals[i], fmt::format("FPN_{}", i), head / "fpn_convs" / static_cast<std::int64_t>(i),
                               channels, channels, 3, 1));
  outs.push_back(laterals.back());
  for (std::size_t i = 1; i < n; ++i)
    outs[i] = resize(b, outs[i], fmt::format("FPN_Upsample_{}", i), outs[0].shape[1], outs[0].shape[2]);
  Value fused = conv_module(b, concat(b, outs, "FPN_Concat"), "FPN_Bottleneck", head / "fpn_bottleneck",
                            static_cast<std::int64_t>(n) * channels, channels, 3, 1);
  Value logits = conv2d(b, fused, "Classifier", {.module = head / "classifier", .in = channels, .out = labels, .kernel = 1});
  logits = resize(b, logits, "Logits_Upsample", image, image);

  if (c.flag({"use_auxiliary_head"}, true)) {
    const Scope aux("auxiliary_head");
    const std::size_t at = std::min<std::size_t>(2, n - 1);
    const std::int64_t aux_channels = c.dim({"auxiliary_channels"}, 256);
    const std::int64_t convs = c.integer({"auxiliary_num_convs"}, 1);
    const bool concat_input = c.flag({"auxiliary_concat_input"}, false);
    if (n < 3)
      throw Error(ErrorKind::InvalidInput, fmt::format("{}: key 'backbone_config.out_indices'", c.origin()),
                  "the auxiliary head reads the third feature map; the backbone returns fewer");
    // Declared by auxiliary_in_channels, not by the map it reads: a mismatch (as in UperNetConfig's own
    // defaults, 384 against ResNet's 1024) builds and fails in forward.
    const std::int64_t width = c.dim({"auxiliary_in_channels"}, 384);
    Value h = maps[at];
    for (std::int64_t i = 0; i < convs; ++i)
      h = conv_module(b, h, fmt::format("Auxiliary_Conv_{}", i), aux / "convs" / i, i == 0 ? width : aux_channels,
                      aux_channels, 3, 1);
    std::int64_t h_width = convs > 0 ? aux_channels : width;
    if (concat_input) {
      h = conv_module(b, concat(b, {maps[at], h}, "Auxiliary_Concat"), "Auxiliary_Conv_Cat", aux / "conv_cat",
                      width + h_width, aux_channels, 3, 1);
      h_width = aux_channels;
    }
    h = conv2d(b, h, "Auxiliary_Classifier", {.module = aux / "classifier", .in = h_width, .out = labels, .kernel = 1});
    resize(b, h, "Auxiliary_Logits_Upsample", image, image);
  }
  return logits;
}

}  // namespace
}  // namespace upernet_impl

const Family& upernet_family() {
  static const Family family{"upernet", "models/upernet/modeling_upernet.py",
                             {{"UperNetForSemanticSegmentation", Head::TokenClassification}}, upernet_impl::build};
  return family;
}

}  // namespace neurarch::families
