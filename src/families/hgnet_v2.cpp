// HGNet-V2 (models/hgnet_v2/modular_hgnet_v2.py, transformers 4.57.6 and 5.24): RT-DETR's conv layer (bias-free conv
// with padding (k - 1) / 2, BatchNorm, activation, and a learnable scale/bias `lab` after activated layers when
// use_learnable_affine_block). Stem: stem1 (3x3), a two-step 2x2 branch (stem2a, stem2b, each after a one-pixel pad)
// concatenated with a 2x2 stride-1 max pool of stem1's output, stem3 (3x3) and stem4 (1x1), with stem_strides.
// Stages: an optional depthwise 3x3 downsample (no activation), then stage_num_blocks blocks of
// stage_numb_of_layers conv layers (3x3, or light: 1x1 without activation then a depthwise k x k) whose input and
// every output are concatenated and aggregated by a 1x1 squeeze to out / 2 and a 1x1 excitation to out; blocks after
// the first add their input. HGNetV2Backbone ends in the last stage's map; HGNetV2ForImageClassification averages it
// into `fc`. The trunk is exported (hgnet_v2.hpp) for D-FINE, which runs it with frozen batch norm.
#include "families/hgnet_v2.hpp"

#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "blocks/frozen_norm.hpp"
#include "core/error.hpp"
#include "families/config_lists.hpp"
#include "families/family.hpp"

namespace neurarch::families {
namespace hgnet_v2 {
namespace hgnet_v2_impl {
namespace {

using namespace blocks;
using graph::NodeType;

struct ConvLayer {
  std::int64_t out = 0, kernel = 1, stride = 1, groups = 1;
  std::string activation;  ///< empty: none
};

// HGNetV2ConvLayer under `module`.
Value conv_layer(GraphBuilder& b, const Value& x, const std::string& name, const Scope& module, const ConvLayer& l,
                 bool affine, bool frozen) {
  auto h = conv2d(b, x, name + "_Conv",
                  {.module = module / "convolution", .in = x.shape[0], .out = l.out, .kernel = l.kernel,
                   .stride = l.stride, .padding = (l.kernel - 1) / 2, .groups = l.groups, .bias = false});
  h = frozen ? frozen_batch_norm(b, h, name + "_BatchNorm", module / "normalization", l.activation)
             : batch_norm(b, h, name + "_BatchNorm", module / "normalization", l.activation);
  if (affine && !l.activation.empty()) {
    h = b.node(NodeType::LayerScale, name + "_Affine", h.shape, {h}, module / "lab");
    b.parameter(h, (module / "lab")("scale"), {1}, graph::TensorRole::Other);
    b.parameter(h, (module / "lab")("bias"), {1}, graph::TensorRole::Bias);
  }
  return h;
}

// F.pad(x, (0, 1, 0, 1)): one zero row and column, a copy with no parameters.
Value pad_one(GraphBuilder& b, const Value& x, const std::string& name) {
  return b.node(NodeType::Pool, name, {x.shape[0], x.shape[1] + 1, x.shape[2] + 1}, {x});
}

// torch.cat along channels: no parameters, nothing saved for backward.
Value concat(GraphBuilder& b, const std::vector<Value>& parts, const std::string& name) {
  std::int64_t channels = 0;
  for (const auto& p : parts) channels += p.shape[0];
  auto out = b.node(NodeType::Add, name, {channels, parts.front().shape[1], parts.front().shape[2]}, {parts.front()});
  for (std::size_t i = 1; i < parts.size(); ++i) {
    b.at(out).inputs.push_back(parts[i].node);
    if (parts[i].shape[1] != parts.front().shape[1] || parts[i].shape[2] != parts.front().shape[2])
      b.fail(out, "concatenates maps of different sizes");
  }
  return out;
}

}  // namespace
}  // namespace hgnet_v2_impl
using namespace hgnet_v2_impl;

Features trunk(const Config& c, GraphBuilder& b, const Value& pixels, const Scope& root, bool frozen) {
  const std::string act = c.text({"hidden_act"}, "relu");
  const bool affine = c.flag({"use_learnable_affine_block"}, false);
  const auto stem = size_list(c, "stem_channels", {3, 32, 48});
  const auto stem_strides = size_list(c, "stem_strides", {2, 1, 1, 2, 1});
  const auto in_channels = size_list(c, "stage_in_channels", {48, 128, 512, 1024});
  const auto mid = size_list(c, "stage_mid_channels", {48, 96, 192, 384});
  const auto out_channels = size_list(c, "stage_out_channels", {128, 512, 1024, 2048});
  const auto blocks_per_stage = size_list(c, "stage_num_blocks", {1, 1, 3, 1});
  const auto downsample = bool_list(c, "stage_downsample", {false, true, true, true});
  const auto strides = size_list(c, "stage_downsample_strides", {2, 2, 2, 2});
  const auto light = bool_list(c, "stage_light_block", {false, false, true, true});
  const auto kernels = size_list(c, "stage_kernel_size", {3, 3, 5, 5});
  const auto layers = size_list(c, "stage_numb_of_layers", {6, 6, 6, 6});
  require_length(c, "stem_channels", stem, 3);
  require_length(c, "stem_strides", stem_strides, 5);
  const std::size_t stages = in_channels.size();
  for (const auto& [key, list] : {std::pair{"stage_mid_channels", &mid}, std::pair{"stage_out_channels", &out_channels},
                                  std::pair{"stage_num_blocks", &blocks_per_stage},
                                  std::pair{"stage_downsample_strides", &strides},
                                  std::pair{"stage_kernel_size", &kernels}, std::pair{"stage_numb_of_layers", &layers}})
    require_length(c, key, *list, stages);
  if (downsample.size() != stages || light.size() != stages)
    throw Error(ErrorKind::InvalidInput, fmt::format("{}: key 'stage_downsample'", c.origin()),
                fmt::format("stage_downsample and stage_light_block need {} entries, one a stage", stages));
  if (pixels.shape.front() != stem[0])
    b.fail(pixels, fmt::format("num_channels {} is not stem_channels[0] {}", pixels.shape.front(), stem[0]));
  auto conv = [affine, frozen](GraphBuilder& g, const Value& x, const std::string& name, const Scope& module,
                               const ConvLayer& l, bool with_affine) {
    return conv_layer(g, x, name, module, l, affine && with_affine, frozen);
  };
  const Scope embedder = root / "embedder";
  auto stem1 = conv(b, pixels, "Stem1", embedder / "stem1",
                    {.out = stem[1], .kernel = 3, .stride = stem_strides[0], .activation = act}, true);
  auto padded = pad_one(b, stem1, "Stem1_Pad");
  auto branch = conv(b, padded, "Stem2a", embedder / "stem2a",
                     {.out = stem[1] / 2, .kernel = 2, .stride = stem_strides[1], .activation = act}, true);
  branch = pad_one(b, branch, "Stem2a_Pad");
  branch = conv(b, branch, "Stem2b", embedder / "stem2b",
                {.out = stem[1], .kernel = 2, .stride = stem_strides[2], .activation = act}, true);
  // MaxPool2d(2, stride 1, ceil_mode) over the padded map keeps its size less one.
  auto pooled = b.node(NodeType::Pool, "Stem_Pool", {stem[1], padded.shape[1] - 1, padded.shape[2] - 1}, {padded});
  b.at(pooled).spatial = graph::SpatialAttrs{2, 2, 1, 0, 1, true};
  auto x = concat(b, {pooled, branch}, "Stem_Concat");
  x = conv(b, x, "Stem3", embedder / "stem3",
           {.out = stem[1], .kernel = 3, .stride = stem_strides[3], .activation = act}, true);
  x = conv(b, x, "Stem4", embedder / "stem4",
           {.out = stem[2], .kernel = 1, .stride = stem_strides[4], .activation = act}, true);
  Features f;
  f.stages.push_back(x);
  f.channels.push_back(stem[2]);

  for (std::size_t s = 0; s < stages; ++s) {
    const Scope stage = root / "encoder" / "stages" / static_cast<std::int64_t>(s);
    if (downsample[s])
      x = conv(b, x, fmt::format("Stage_{}_Downsample", s), stage / "downsample",
               {.out = in_channels[s], .kernel = 3, .stride = strides[s], .groups = in_channels[s]}, false);
    for (std::int64_t k = 0; k < blocks_per_stage[s]; ++k) {
      b.set_block(b.next_block());
      const Scope block = stage / "blocks" / k;
      const std::string name = fmt::format("Stage_{}_Block_{}", s, k);
      const Value identity = x;
      std::vector<Value> outputs{x};
      Value h = x;
      for (std::int64_t j = 0; j < layers[s]; ++j) {
        const Scope layer = block / "layers" / j;
        const std::string lname = fmt::format("{}_Layer_{}", name, j);
        if (light[s]) {
          h = conv(b, h, lname + "_1", layer / "conv1", {.out = mid[s], .kernel = 1}, true);
          h = conv(b, h, lname + "_2", layer / "conv2",
                   {.out = mid[s], .kernel = kernels[s], .groups = mid[s], .activation = "relu"}, true);
        } else {
          h = conv(b, h, lname, layer, {.out = mid[s], .kernel = kernels[s], .activation = "relu"}, true);
        }
        outputs.push_back(h);
      }
      h = concat(b, outputs, name + "_Concat");
      h = conv(b, h, name + "_Squeeze", block / "aggregation" / 0,
               {.out = out_channels[s] / 2, .kernel = 1, .activation = "relu"}, true);
      h = conv(b, h, name + "_Excitation", block / "aggregation" / 1,
               {.out = out_channels[s], .kernel = 1, .activation = "relu"}, true);
      x = k == 0 ? h : add(b, h, identity, name + "_Residual");
    }
    f.stages.push_back(x);
    f.channels.push_back(out_channels[s]);
  }
  b.set_block(-1);
  return f;
}

}  // namespace hgnet_v2

namespace hgnet_v2_impl {
namespace {

using namespace blocks;

Value build(const BuildInput& in, GraphBuilder& b) {
  const std::int64_t channels = in.config.dim({"num_channels"}, 3);
  auto pixels = b.input({channels, in.image_size(224), in.image_size(224)}, "pixels");
  const Value x = hgnet_v2::trunk(in.config, b, pixels, Scope(), false).stages.back();
  if (in.head == Head::Base) return x;
  auto pooled_map = pool(b, x, "Pooler", false);
  return classifier(b, Value{pooled_map.node, {x.shape[0]}}, "Classifier", Scope("fc"), x.shape[0], in.num_labels(),
                    true);
}

}  // namespace
}  // namespace hgnet_v2_impl

const Family& hgnet_v2_family() {
  static const Family family{"hgnet_v2", "models/hgnet_v2/modular_hgnet_v2.py",
                             {{"HGNetV2Backbone", Head::Base},
                              {"HGNetV2ForImageClassification", Head::ImageClassification}},
                             hgnet_v2_impl::build};
  return family;
}

}  // namespace neurarch::families
