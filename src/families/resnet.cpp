// ResNet (models/resnet/modeling_resnet.py, transformers 4.47.1): a 7x7 stride-2 conv + BatchNorm + ReLU stem
// and a 3x3 stride-2 max pool, then stages of bottleneck (1x1 reduce to out/4, 3x3, 1x1 expand) or basic
// (3x3, 3x3) layers with a 1x1 conv + BatchNorm shortcut wherever channels or stride change, a ReLU after each
// residual sum, and a global average pool. Every conv is bias-free and followed by a BatchNorm (running
// statistics and num_batches_tracked are saved). Stage 0 keeps the resolution unless downsample_in_first_stage;
// downsample_in_bottleneck moves the stride to the first 1x1 conv. The head flattens and applies
// classifier.1 (a Linear). Any image size runs; 224 (the image processor's) is the default.
#include <fmt/format.h>

#include "families/config_lists.hpp"
#include "families/family.hpp"

namespace neurarch::families {
namespace {

using namespace blocks;

struct Layer {
  std::int64_t in, out, stride;
  bool bottleneck, downsample_in_bottleneck;
  std::string activation;
};

// ResNetConvLayer: convolution (padding kernel / 2, no bias) -> normalization -> activation.
Value conv_layer(GraphBuilder& b, const Value& x, const std::string& name, const Scope& module, std::int64_t in,
                 std::int64_t out, std::int64_t kernel, std::int64_t stride, const std::string& activation) {
  auto h = conv2d(b, x, "Conv_" + name, {.module = module / "convolution", .in = in, .out = out, .kernel = kernel,
                                         .stride = stride, .padding = kernel / 2, .bias = false});
  return batch_norm(b, h, "BatchNorm_" + name, module / "normalization", activation);
}

Value residual_layer(GraphBuilder& b, const Value& x, const Scope& l, std::int64_t block, const Layer& s) {
  Value residual = x;
  if (s.in != s.out || s.stride != 1) {
    const Scope shortcut = l / "shortcut";
    residual = conv2d(b, x, fmt::format("Shortcut_Conv_{}", block),
                      {.module = shortcut / "convolution", .in = s.in, .out = s.out, .kernel = 1, .stride = s.stride,
                       .bias = false});
    residual = batch_norm(b, residual, fmt::format("Shortcut_BatchNorm_{}", block), shortcut / "normalization");
  }
  const Scope layer = l / "layer";
  Value h = x;
  if (s.bottleneck) {
    const std::int64_t reduced = s.out / 4;
    const std::int64_t first_stride = s.downsample_in_bottleneck ? s.stride : 1;
    h = conv_layer(b, h, fmt::format("{}_1", block), layer / 0, s.in, reduced, 1, first_stride, s.activation);
    h = conv_layer(b, h, fmt::format("{}_2", block), layer / 1, reduced, reduced, 3, s.stride / first_stride,
                   s.activation);
    h = conv_layer(b, h, fmt::format("{}_3", block), layer / 2, reduced, s.out, 1, 1, "");
  } else {
    h = conv_layer(b, h, fmt::format("{}_1", block), layer / 0, s.in, s.out, 3, s.stride, s.activation);
    h = conv_layer(b, h, fmt::format("{}_2", block), layer / 1, s.out, s.out, 3, 1, "");
  }
  auto sum = add(b, h, residual, fmt::format("Add_{}", block));
  b.at(sum).activation = s.activation;  // the ReLU after the residual sum
  return sum;
}

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config& c = in.config;
  const std::int64_t channels = c.dim({"num_channels"}, 3);
  const std::int64_t embedding = c.dim({"embedding_size"}, 64);
  const auto hidden = size_list(c, "hidden_sizes", {256, 512, 1024, 2048});
  const auto depths = size_list(c, "depths", {3, 4, 6, 3});
  require_length(c, "depths", depths, hidden.size());
  const std::string type = c.text({"layer_type"}, "bottleneck");
  const std::string act = c.text({"hidden_act"}, "relu");
  const bool first_stage_down = c.flag({"downsample_in_first_stage"}, false);
  const bool bottleneck_down = c.flag({"downsample_in_bottleneck"}, false);
  const std::int64_t image = in.image_size(224);

  const Scope root = in.head == Head::Base ? Scope() : Scope("resnet");
  auto x = b.input({channels, image, image}, "pixels");
  x = conv_layer(b, x, "Stem", root / "embedder" / "embedder", channels, embedding, 7, 2, act);
  x = pool(b, x, "Stem_MaxPool", true, 3, 2, 1);

  std::int64_t block = 0;
  std::int64_t width = embedding;
  for (std::size_t s = 0; s < hidden.size(); ++s) {
    const std::int64_t stride = s == 0 && !first_stage_down ? 1 : 2;
    for (std::int64_t j = 0; j < depths[s]; ++j, ++block) {
      b.set_block(static_cast<int>(block));
      const Layer layer{j == 0 ? width : hidden[s], hidden[s], j == 0 ? stride : 1, type == "bottleneck",
                        bottleneck_down, act};
      x = residual_layer(b, x, root / "encoder" / "stages" / static_cast<std::int64_t>(s) / "layers" / j, block, layer);
    }
    width = hidden[s];
  }
  b.set_block(-1);
  x = pool(b, x, "Pooler", false);
  if (in.head == Head::Base) return x;
  return classifier(b, Value{x.node, {width}}, "Classifier", Scope("classifier") / 1, width, in.num_labels(), true);
}

}  // namespace

const Family& resnet_family() {
  static const Family family{"resnet", "models/resnet/modeling_resnet.py",
                             {{"ResNetModel", Head::Base}, {"ResNetForImageClassification", Head::ImageClassification}},
                             build};
  return family;
}

}  // namespace neurarch::families
