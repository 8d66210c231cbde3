// ViTMatte (models/vitmatte/modeling_vitmatte.py, transformers 4.47.1 and 5.24: VitMatteForImageMatting): a ViTDet
// backbone (backbone_config, VitDetBackbone under `backbone`; vitdet.hpp) and a detail-capture decoder: a ConvStream
// of stride-2 3x3 convs (bias-free, BatchNorm, ReLU) over the pixels to convstream_hidden_sizes, then fusion blocks
// from the backbone's map up: 2x bilinear upsample, concatenated with the ConvStream map of that size (the pixels
// last), a 3x3 conv + BatchNorm + ReLU to fusion_hidden_sizes[i]; the matting head is 3x3 conv (16) + BatchNorm +
// ReLU + 1x1 conv to one channel, sigmoid. The fusion's first in-width is the config's hidden_size, which must be the
// backbone's (the reference's defaults disagree: 384 against ViTDet's 768, so that model does not run).
#include <vector>

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "blocks/upsample.hpp"
#include "core/error.hpp"
#include "families/config_lists.hpp"
#include "families/vitdet.hpp"

namespace neurarch::families {
namespace vitmatte_impl {
namespace {

using namespace blocks;
using graph::NodeType;

// VitMatteBasicConv3x3: bias-free 3x3 conv, BatchNorm, ReLU.
Value basic_conv(GraphBuilder& b, const Value& x, const std::string& name, const Scope& module, std::int64_t in,
                 std::int64_t out, std::int64_t stride) {
  auto h = conv2d(b, x, name + "_Conv",
                  {.module = module / "conv", .in = in, .out = out, .kernel = 3, .stride = stride, .padding = 1,
                   .bias = false});
  return batch_norm(b, h, name + "_BatchNorm", module / "batch_norm", "relu");
}

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config& c = in.config;
  if (const auto* v = c.raw({"backbone"}); v && !v->is_null())
    throw Error(ErrorKind::Unsupported, fmt::format("{}: key 'backbone'", c.origin()),
                "a named (timm or Hub) backbone is not built; give backbone_config");
  const Config bc = c.child("backbone_config");
  if (const std::string type = bc.text({"model_type"}, "vitdet"); type != "vitdet")
    throw Error(ErrorKind::Unsupported, fmt::format("{}: key 'backbone_config.model_type'", c.origin()),
                fmt::format("only ViTDet backbones are built, not '{}'", type));
  const std::int64_t hidden = c.dim({"hidden_size"}, 384);
  const auto convstream = size_list(c, "convstream_hidden_sizes", {48, 96, 192});
  const auto fusion = size_list(c, "fusion_hidden_sizes", {256, 128, 64, 32});
  if (fusion.size() != convstream.size() + 1)
    throw Error(ErrorKind::InvalidInput, fmt::format("{}: key 'fusion_hidden_sizes'", c.origin()),
                fmt::format("has {} entries; convstream_hidden_sizes has {}, so {} are needed", fusion.size(),
                            convstream.size(), convstream.size() + 1));

  vitdet::Output backbone;
  {
    graph::Nested nest(b, {.module = "backbone", .label = "Backbone_", .first_block = 0});
    const BuildInput inner{.config = bc, .class_name = "VitDetBackbone", .head = Head::Base,
                           .requested_seq = in.requested_seq, .requested_image_size = in.requested_image_size};
    backbone = vitdet::model(inner, b);
  }

  const Scope decoder("decoder");
  // ConvStream: the pixels, then each stride-2 conv's map (detailed_feature_map_0 ...).
  std::vector<Value> details{backbone.pixels};
  for (std::size_t i = 0; i < convstream.size(); ++i)
    details.push_back(basic_conv(b, details.back(), fmt::format("ConvStream_{}", i),
                                 decoder / "convstream" / "convs" / static_cast<std::int64_t>(i),
                                 details.back().shape.front(), convstream[i], 2));

  Value features = backbone.map;
  std::int64_t width = hidden;
  for (std::size_t i = 0; i < fusion.size(); ++i) {
    const std::string name = fmt::format("Fusion_{}", i);
    const Value& detail = details[fusion.size() - 1 - i];
    auto up = resize(b, features, name + "_Upsample", 2 * features.shape[1], 2 * features.shape[2]);
    // torch.cat of the detail map and the upsampled features: no parameters, nothing saved for backward.
    auto joined = b.node(NodeType::Add, name + "_Concat",
                         {detail.shape.front() + up.shape.front(), detail.shape[1], detail.shape[2]}, {detail, up});
    if (up.shape.front() != width)
      b.fail(joined, fmt::format("hidden_size {} is not the {} channels the backbone hands the fusion", width,
                                 up.shape.front()));
    else if (up.shape[1] != detail.shape[1] || up.shape[2] != detail.shape[2])
      b.fail(joined, "the upsampled features and the detail map differ in size");
    features = basic_conv(b, joined, name, decoder / "fusion_blocks" / static_cast<std::int64_t>(i) / "conv",
                          width + detail.shape.front(), fusion[i], 1);
    width = fusion[i];
  }

  const Scope head = decoder / "matting_head" / "matting_convs";
  auto h = conv2d(b, features, "Matting_Conv1", {.module = head / 0, .in = width, .out = 16, .kernel = 3, .padding = 1});
  h = batch_norm(b, h, "Matting_BatchNorm", head / 1, "relu");
  h = conv2d(b, h, "Matting_Conv2", {.module = head / 3, .in = 16, .out = 1, .kernel = 1});
  b.at(h).activation = "sigmoid";
  return h;
}

}  // namespace
}  // namespace vitmatte_impl

const Family& vitmatte_family() {
  static const Family family{"vitmatte", "models/vitmatte/modeling_vitmatte.py",
                             {{"VitMatteForImageMatting", Head::PreTraining}}, vitmatte_impl::build};
  return family;
}

}  // namespace neurarch::families
