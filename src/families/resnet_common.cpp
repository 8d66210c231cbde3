#include "families/resnet_common.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "blocks/frozen_norm.hpp"
#include "core/error.hpp"
#include "families/config_lists.hpp"

namespace neurarch::families::resnet {
namespace resnet_common_impl {
namespace {

using namespace blocks;

Value normalize(GraphBuilder& b, const Value& x, const std::string& name, const Scope& module, Norm norm,
                const std::string& activation) {
  return norm == Norm::Frozen ? frozen_batch_norm(b, x, name, module, activation)
                              : batch_norm(b, x, name, module, activation);
}

// ---- Hugging Face ResNet ----

struct HfLayer {
  std::int64_t in, out, stride;
};

// ResNetConvLayer: convolution (padding kernel / 2, no bias) -> normalization -> activation.
Value hf_conv_layer(GraphBuilder& b, const Value& x, const std::string& name, const Scope& module, std::int64_t in,
                    std::int64_t out, std::int64_t kernel, std::int64_t stride, const std::string& activation,
                    Norm norm) {
  auto h = conv2d(b, x, "Conv_" + name, {.module = module / "convolution", .in = in, .out = out, .kernel = kernel,
                                         .stride = stride, .padding = kernel / 2, .bias = false});
  return normalize(b, h, "BatchNorm_" + name, module / "normalization", norm, activation);
}

Value hf_residual_layer(GraphBuilder& b, const Value& x, const Scope& l, std::int64_t block, const HfLayer& s,
                        const HfConfig& cfg, Norm norm) {
  Value residual = x;
  if (s.in != s.out || s.stride != 1) {
    const Scope shortcut = l / "shortcut";
    residual = conv2d(b, x, fmt::format("Shortcut_Conv_{}", block),
                      {.module = shortcut / "convolution", .in = s.in, .out = s.out, .kernel = 1, .stride = s.stride,
                       .bias = false});
    residual = normalize(b, residual, fmt::format("Shortcut_BatchNorm_{}", block), shortcut / "normalization", norm, "");
  }
  const Scope layer = l / "layer";
  const std::string& act = cfg.activation;
  Value h = x;
  if (cfg.bottleneck) {
    const std::int64_t reduced = s.out / 4;
    const std::int64_t first_stride = cfg.bottleneck_down ? s.stride : 1;
    h = hf_conv_layer(b, h, fmt::format("{}_1", block), layer / 0, s.in, reduced, 1, first_stride, act, norm);
    h = hf_conv_layer(b, h, fmt::format("{}_2", block), layer / 1, reduced, reduced, 3, s.stride / first_stride, act,
                      norm);
    h = hf_conv_layer(b, h, fmt::format("{}_3", block), layer / 2, reduced, s.out, 1, 1, "", norm);
  } else {
    h = hf_conv_layer(b, h, fmt::format("{}_1", block), layer / 0, s.in, s.out, 3, s.stride, act, norm);
    h = hf_conv_layer(b, h, fmt::format("{}_2", block), layer / 1, s.out, s.out, 3, 1, "", norm);
  }
  auto sum = add(b, h, residual, fmt::format("Add_{}", block));
  b.at(sum).activation = act;  // the activation after the residual sum
  return sum;
}

// ---- timm ResNet ----

struct TimmBlock {
  std::int64_t in, planes, stride;
  bool downsample;
};

Value timm_conv(GraphBuilder& b, const Value& x, const std::string& name, const Scope& module, std::int64_t in,
                std::int64_t out, std::int64_t kernel, std::int64_t stride) {
  return conv2d(b, x, name, {.module = module, .in = in, .out = out, .kernel = kernel, .stride = stride,
                             .padding = kernel / 2, .bias = false});
}

Value timm_block(GraphBuilder& b, const Value& x, const Scope& l, std::int64_t block, const TimmBlock& s,
                 bool bottleneck, Norm norm) {
  const std::int64_t out = s.planes * (bottleneck ? 4 : 1);
  Value residual = x;
  if (s.downsample) {
    residual = timm_conv(b, x, fmt::format("Shortcut_Conv_{}", block), l / "downsample" / 0, s.in, out, 1, s.stride);
    residual = normalize(b, residual, fmt::format("Shortcut_BatchNorm_{}", block), l / "downsample" / 1, norm, "");
  }
  // A dilated 3x3 (output_stride < 32) pads by its dilation: the map keeps its size like an undilated one.
  Value h = x;
  if (bottleneck) {
    h = timm_conv(b, h, fmt::format("Conv_{}_1", block), l / "conv1", s.in, s.planes, 1, 1);
    h = normalize(b, h, fmt::format("BatchNorm_{}_1", block), l / "bn1", norm, "relu");
    h = timm_conv(b, h, fmt::format("Conv_{}_2", block), l / "conv2", s.planes, s.planes, 3, s.stride);
    h = normalize(b, h, fmt::format("BatchNorm_{}_2", block), l / "bn2", norm, "relu");
    h = timm_conv(b, h, fmt::format("Conv_{}_3", block), l / "conv3", s.planes, out, 1, 1);
    h = normalize(b, h, fmt::format("BatchNorm_{}_3", block), l / "bn3", norm, "");
  } else {
    h = timm_conv(b, h, fmt::format("Conv_{}_1", block), l / "conv1", s.in, s.planes, 3, s.stride);
    h = normalize(b, h, fmt::format("BatchNorm_{}_1", block), l / "bn1", norm, "relu");
    h = timm_conv(b, h, fmt::format("Conv_{}_2", block), l / "conv2", s.planes, s.planes, 3, 1);
    h = normalize(b, h, fmt::format("BatchNorm_{}_2", block), l / "bn2", norm, "");
  }
  auto sum = add(b, h, residual, fmt::format("Add_{}", block));
  b.at(sum).activation = "relu";
  return sum;
}

}  // namespace
}  // namespace resnet_common_impl
using namespace resnet_common_impl;

HfConfig read_hf_config(const Config& c) {
  HfConfig cfg;
  cfg.channels = c.dim({"num_channels"}, 3);
  cfg.embedding = c.dim({"embedding_size"}, 64);
  cfg.hidden = size_list(c, "hidden_sizes", cfg.hidden);
  cfg.depths = size_list(c, "depths", cfg.depths);
  require_length(c, "depths", cfg.depths, cfg.hidden.size());
  cfg.bottleneck = c.text({"layer_type"}, "bottleneck") == "bottleneck";
  cfg.activation = c.text({"hidden_act"}, "relu");
  cfg.first_stage_down = c.flag({"downsample_in_first_stage"}, false);
  cfg.bottleneck_down = c.flag({"downsample_in_bottleneck"}, false);
  return cfg;
}

Features hf_trunk(GraphBuilder& b, const Value& pixels, const HfConfig& cfg, const Scope& root, Norm norm,
                  std::int64_t first_block) {
  Features f;
  auto x = resnet_common_impl::hf_conv_layer(b, pixels, "Stem", root / "embedder" / "embedder", cfg.channels, cfg.embedding, 7, 2,
                         cfg.activation, norm);
  x = pool(b, x, "Stem_MaxPool", true, 3, 2, 1);
  f.stages.push_back(x);
  f.channels.push_back(cfg.embedding);
  std::int64_t block = first_block;
  std::int64_t width = cfg.embedding;
  for (std::size_t s = 0; s < cfg.hidden.size(); ++s) {
    const std::int64_t stride = s == 0 && !cfg.first_stage_down ? 1 : 2;
    for (std::int64_t j = 0; j < cfg.depths[s]; ++j, ++block) {
      b.set_block(static_cast<int>(block));
      const resnet_common_impl::HfLayer layer{j == 0 ? width : cfg.hidden[s], cfg.hidden[s], j == 0 ? stride : 1};
      x = resnet_common_impl::hf_residual_layer(b, x, root / "encoder" / "stages" / static_cast<std::int64_t>(s) / "layers" / j, block,
                            layer, cfg, norm);
    }
    width = cfg.hidden[s];
    f.stages.push_back(x);
    f.channels.push_back(width);
  }
  b.set_block(-1);
  f.last = x;
  return f;
}

TimmConfig timm_layout(const Config& c, std::string_view key, const std::string& name) {
  // timm's resnet.py registrations with the default stem (one 7x7 conv) and plain blocks; the
  // deep-stem (c/d/t), SE, wide and ResNeXt variants have other modules.
  struct Known {
    std::string_view name;
    bool bottleneck;
    std::vector<std::int64_t> depths;
  };
  static const std::vector<Known> known{{"resnet10", false, {1, 1, 1, 1}}, {"resnet18", false, {2, 2, 2, 2}},
                                        {"resnet34", false, {3, 4, 6, 3}},  {"resnet26", true, {2, 2, 2, 2}},
                                        {"resnet50", true, {3, 4, 6, 3}},   {"resnet101", true, {3, 4, 23, 3}},
                                        {"resnet152", true, {3, 8, 36, 3}}, {"resnet200", true, {3, 24, 36, 3}}};
  // timm accepts pretrained tags ("resnet50.a1_in1k"); the architecture is the part before the dot.
  const std::string arch = name.substr(0, name.find('.'));
  for (const auto& k : known)
    if (k.name == arch) return TimmConfig{.depths = k.depths, .bottleneck = k.bottleneck};
  throw Error(ErrorKind::Unsupported, fmt::format("{}: key '{}'", c.origin(), key),
              fmt::format("timm backbone '{}' is not a plain ResNet (resnet10/18/26/34/50/101/152/200); its modules "
                          "are not modelled",
                          name));
}

Features timm_trunk(GraphBuilder& b, const Value& pixels, const TimmConfig& cfg, const Scope& root, Norm norm) {
  Features f;
  auto x = resnet_common_impl::timm_conv(b, pixels, "Stem_Conv", root / "conv1", cfg.channels, 64, 7, 2);
  x = resnet_common_impl::normalize(b, x, "Stem_BatchNorm", root / "bn1", norm, "relu");
  f.stages.push_back(x);
  f.channels.push_back(64);
  if (cfg.last_stage == 0) {
    f.last = x;
    return f;
  }
  x = pool(b, x, "Stem_MaxPool", true, 3, 2, 1);
  std::int64_t block = 0, in = 64, net_stride = 4;
  for (std::int64_t s = 0; s < cfg.last_stage && s < static_cast<std::int64_t>(cfg.depths.size()); ++s) {
    const std::int64_t planes = 64 << s;
    std::int64_t stride = s == 0 ? 1 : 2;
    if (net_stride >= cfg.output_stride)
      stride = 1;  // dilated instead
    else
      net_stride *= stride;
    const std::int64_t out = planes * (cfg.bottleneck ? 4 : 1);
    for (std::int64_t j = 0; j < cfg.depths[static_cast<std::size_t>(s)]; ++j, ++block) {
      b.set_block(static_cast<int>(block));
      const resnet_common_impl::TimmBlock spec{j == 0 ? in : out, planes, j == 0 ? stride : 1, j == 0 && (stride != 1 || in != out)};
      x = resnet_common_impl::timm_block(b, x, root / fmt::format("layer{}", s + 1) / j, block, spec, cfg.bottleneck, norm);
    }
    in = out;
    f.stages.push_back(x);
    f.channels.push_back(out);
  }
  b.set_block(-1);
  f.last = x;
  return f;
}

}  // namespace neurarch::families::resnet
