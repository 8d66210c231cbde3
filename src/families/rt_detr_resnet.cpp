// RT-DETR's ResNet-vd (models/rt_detr/modeling_rt_detr_resnet.py, transformers 5.24; the shared default is 4.47.1,
// saved in the same layout): see rt_detr_resnet.hpp. Quirks kept from the reference: the convolutions inside a
// layer use ReLU whatever hidden_act says (only the stem and the activation after each residual sum read it); the
// first basic layer of every stage has a shortcut even where channels and stride do not change; a bottleneck layer
// of stride 2 always pools its shortcut. RTDetrResNetBackbone hands on the stages named by out_indices /
// out_features (the last stage by default); its BatchNorms train (RT-DETR freezes them, rt_detr_common.cpp).
#include "families/rt_detr_resnet.hpp"

#include <fmt/format.h>

#include "blocks/frozen_norm.hpp"
#include "families/backbone_stages.hpp"

namespace neurarch::families {
namespace rt_detr_resnet {
namespace rt_detr_resnet_impl {
namespace {

using namespace blocks;
using resnet::Norm;

// RTDetrResNetConvLayer: convolution (padding kernel / 2, no bias) -> BatchNorm2d -> activation.
Value conv_layer(GraphBuilder& b, const Value& x, const std::string& name, const Scope& module, std::int64_t in,
                 std::int64_t out, std::int64_t kernel, std::int64_t stride, const std::string& activation, Norm norm) {
  auto h = conv2d(b, x, "Conv_" + name, {.module = module / "convolution", .in = in, .out = out, .kernel = kernel,
                                         .stride = stride, .padding = kernel / 2, .bias = false});
  const Scope n = module / "normalization";
  return norm == Norm::Frozen ? frozen_batch_norm(b, h, "BatchNorm_" + name, n, activation)
                              : batch_norm(b, h, "BatchNorm_" + name, n, activation);
}

// nn.AvgPool2d(2, 2, ceil_mode=True): an odd side rounds up.
Value avg_pool_ceil(GraphBuilder& b, const Value& x, const std::string& name) {
  auto out = pool(b, x, name, false, 2, 2, 0);
  if (x.shape.size() != 3) return out;
  const Shape ceil{x.shape[0], (x.shape[1] + 1) / 2, (x.shape[2] + 1) / 2};
  b.at(out).out = ceil;
  return Value{out.node, ceil};
}

struct LayerShape {
  std::int64_t in, out, stride;
  bool first;  ///< the stage's first layer (a basic layer's shortcut)
};

Value residual_layer(GraphBuilder& b, const Value& x, const Scope& l, std::int64_t block, const LayerShape& s,
                     const resnet::HfConfig& cfg, Norm norm) {
  // Which shortcut: a pooled one (`shortcut.1` after the AvgPool2d) or a plain strided one (`shortcut`).
  bool pooled = false, plain = false;
  if (cfg.bottleneck) {
    const bool project = s.in != s.out || s.stride != 1;
    pooled = s.stride == 2;
    plain = !pooled && project;
  } else if (s.first) {
    pooled = s.in != s.out;
    plain = !pooled;
  }
  Value residual = x;
  if (pooled) {
    residual = avg_pool_ceil(b, x, fmt::format("Shortcut_AvgPool_{}", block));
    if (!cfg.bottleneck || s.in != s.out || s.stride != 1)
      residual = conv_layer(b, residual, fmt::format("Shortcut_{}", block), l / "shortcut" / 1, s.in, s.out, 1, 1, "",
                            norm);
  } else if (plain) {
    residual = conv_layer(b, x, fmt::format("Shortcut_{}", block), l / "shortcut", s.in, s.out, 1, s.stride, "", norm);
  }
  const Scope layer = l / "layer";
  Value h = x;
  if (cfg.bottleneck) {
    const std::int64_t reduced = s.out / 4;
    const std::int64_t first_stride = cfg.bottleneck_down ? s.stride : 1;
    h = conv_layer(b, h, fmt::format("{}_1", block), layer / 0, s.in, reduced, 1, first_stride, "relu", norm);
    h = conv_layer(b, h, fmt::format("{}_2", block), layer / 1, reduced, reduced, 3, cfg.bottleneck_down ? 1 : s.stride,
                   "relu", norm);
    h = conv_layer(b, h, fmt::format("{}_3", block), layer / 2, reduced, s.out, 1, 1, "", norm);
  } else {
    h = conv_layer(b, h, fmt::format("{}_1", block), layer / 0, s.in, s.out, 3, s.stride, "relu", norm);
    h = conv_layer(b, h, fmt::format("{}_2", block), layer / 1, s.out, s.out, 3, 1, "", norm);
  }
  auto sum = add(b, h, residual, fmt::format("Add_{}", block));
  b.at(sum).activation = cfg.activation;
  return sum;
}

}  // namespace
}  // namespace rt_detr_resnet_impl
using namespace rt_detr_resnet_impl;

resnet::Features trunk(GraphBuilder& b, const Value& pixels, const resnet::HfConfig& cfg, const Scope& root,
                       Norm norm) {
  resnet::Features f;
  const Scope stem = root / "embedder" / "embedder";
  const std::int64_t half = cfg.embedding / 2;
  auto x = conv_layer(b, pixels, "Stem_1", stem / 0, cfg.channels, half, 3, 2, cfg.activation, norm);
  x = conv_layer(b, x, "Stem_2", stem / 1, half, half, 3, 1, cfg.activation, norm);
  x = conv_layer(b, x, "Stem_3", stem / 2, half, cfg.embedding, 3, 1, cfg.activation, norm);
  x = pool(b, x, "Stem_MaxPool", true, 3, 2, 1);
  f.stages.push_back(x);
  f.channels.push_back(cfg.embedding);
  std::int64_t block = 0, width = cfg.embedding;
  for (std::size_t s = 0; s < cfg.hidden.size(); ++s) {
    const std::int64_t stride = s == 0 && !cfg.first_stage_down ? 1 : 2;
    for (std::int64_t j = 0; j < cfg.depths[s]; ++j, ++block) {
      b.set_block(static_cast<int>(block));
      const LayerShape shape{j == 0 ? width : cfg.hidden[s], cfg.hidden[s], j == 0 ? stride : 1, j == 0};
      x = residual_layer(b, x, root / "encoder" / "stages" / static_cast<std::int64_t>(s) / "layers" / j, block, shape,
                         cfg, norm);
    }
    width = cfg.hidden[s];
    f.stages.push_back(x);
    f.channels.push_back(width);
  }
  b.set_block(-1);
  f.last = x;
  return f;
}

}  // namespace rt_detr_resnet

namespace rt_detr_resnet_impl {
namespace {

using namespace blocks;

// RTDetrResNetBackbone alone: 224 pixels, as ResNet's image processor (RT-DETR itself runs it at 640).
Value build(const BuildInput& in, GraphBuilder& b) {
  const resnet::HfConfig cfg = resnet::read_hf_config(in.config);
  const std::int64_t image = in.image_size(224);
  auto pixels = b.input({cfg.channels, image, image}, "pixels");
  const auto f = rt_detr_resnet::trunk(b, pixels, cfg, Scope(), resnet::Norm::Trained);
  const auto stages = backbone_stages(in.config, static_cast<std::int64_t>(cfg.hidden.size()),
                                      {static_cast<std::int64_t>(cfg.hidden.size())});
  // The feature maps it returns; the deepest one is the graph's output.
  return f.stages[static_cast<std::size_t>(stages.back())];
}

}  // namespace
}  // namespace rt_detr_resnet_impl

const Family& rt_detr_resnet_family() {
  static const Family family{"rt_detr_resnet", "models/rt_detr/modeling_rt_detr_resnet.py",
                             {{"RTDetrResNetBackbone", Head::Base}}, rt_detr_resnet_impl::build};
  return family;
}

}  // namespace neurarch::families
