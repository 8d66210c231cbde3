// TextNet (models/textnet/modeling_textnet.py, transformers 4.57.6 and 5.24): FAST's text-detection backbone. A stem
// (bias-free stem_kernel_size conv with stride stem_stride, BatchNorm, stem_act_func), then stages of RepVGG-style
// layers: per layer a bias-free k_h x k_w main conv + BatchNorm, plus a k_h x 1 vertical branch when k_w != 1 and a
// 1 x k_w horizontal one when k_h != 1 (each + BatchNorm; so a 1 x 3 kernel gets a 1 x 1 "vertical" conv), plus an identity BatchNorm when the width and the
// resolution stay, all summed and ReLU'd. conv_layer_kernel_sizes / conv_layer_strides give every layer; a stage
// goes from hidden_sizes[i] to hidden_sizes[i + 1]. TextNetModel ends in a 2x2 average pool of the last map;
// TextNetForImageClassification averages it to 1x1 into `fc`; TextNetBackbone is the model under `textnet`.
#include <stdexcept>
#include <vector>

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "families/config_lists.hpp"
#include "families/family.hpp"

namespace neurarch::families {
namespace textnet_impl {
namespace {

using namespace blocks;
using graph::NodeType;

struct Kernel {
  std::int64_t h = 3, w = 3;
};

// A list per stage of per-layer values read by `read` (kernel pairs or strides); errors name the key.
template <typename T, typename Read>
std::vector<std::vector<T>> nested(const Config& c, std::string_view key, std::vector<std::vector<T>> fallback,
                                   Read read) {
  const auto* v = c.raw({key});
  if (!v || v->is_null()) return fallback;
  std::vector<std::vector<T>> out;
  try {
    if (!v->is_array()) throw std::invalid_argument("not a list");
    for (const auto& stage : *v) {
      std::vector<T> layers;
      for (const auto& e : stage) layers.push_back(read(e));
      out.push_back(layers);
    }
  } catch (const std::exception&) {
    throw Error(ErrorKind::InvalidInput, fmt::format("{}: key '{}'", c.origin(), key),
                fmt::format("expected a list of per-layer lists, found {}", v->dump()));
  }
  return out;
}

// nn.Conv2d(in, out, (kh, kw), stride, padding (ph, pw), bias=False) over [C, H, W].
Value rect_conv(GraphBuilder& b, const Value& x, const std::string& name, const Scope& module, std::int64_t out,
                Kernel k, std::int64_t stride) {
  const std::int64_t ph = (k.h - 1) / 2, pw = (k.w - 1) / 2;
  const std::int64_t h = (x.shape[1] + 2 * ph - k.h) / stride + 1, w = (x.shape[2] + 2 * pw - k.w) / stride + 1;
  auto y = b.node(NodeType::Conv2d, name, {out, h, w}, {x}, module);
  b.at(y).spatial = graph::SpatialAttrs{k.h, k.w, stride, ph, 1, false};
  b.parameter(y, module("weight"), {out, x.shape[0], k.h, k.w}, graph::TensorRole::Conv);
  return y;
}

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config& c = in.config;
  const std::int64_t stem_kernel = c.dim({"stem_kernel_size"}, 3);
  const std::int64_t stem_stride = c.dim({"stem_stride"}, 2);
  const std::int64_t channels = c.dim({"stem_num_channels"}, 3);
  const std::int64_t stem_out = c.dim({"stem_out_channels"}, 64);
  const std::string stem_act = c.text({"stem_act_func"}, "relu");
  const auto hidden = size_list(c, "hidden_sizes", {64, 64, 128, 256, 512});
  const auto kernels = nested<Kernel>(
      c, "conv_layer_kernel_sizes",
      {{{3, 3}, {3, 3}, {3, 3}}, {{3, 3}, {1, 3}, {3, 3}, {3, 1}}, {{3, 3}, {3, 3}, {3, 1}, {1, 3}},
       {{3, 3}, {3, 1}, {1, 3}, {3, 3}}},
      [](const nlohmann::json& e) { return Kernel{e.at(0).get<std::int64_t>(), e.at(1).get<std::int64_t>()}; });
  const auto strides = nested<std::int64_t>(c, "conv_layer_strides", {{1, 2, 1}, {2, 1, 1, 1}, {2, 1, 1, 1}, {2, 1, 1, 1}},
                                            [](const nlohmann::json& e) { return e.get<std::int64_t>(); });
  if (strides.size() != kernels.size() || hidden.size() != kernels.size() + 1)
    throw Error(ErrorKind::InvalidInput, fmt::format("{}: key 'conv_layer_kernel_sizes'", c.origin()),
                fmt::format("{} stages of kernels, {} of strides and {} hidden_sizes (one more than the stages needed)",
                            kernels.size(), strides.size(), hidden.size()));
  const std::int64_t image = in.image_size(640);  // TextNetImageProcessor: 640 x 640
  const bool wrapped = in.class_name.ends_with("ForImageClassification") || in.class_name.ends_with("Backbone");
  const Scope root = wrapped ? Scope("textnet") : Scope();

  auto pixels = b.input({channels, image, image}, "pixels");
  auto x = conv2d(b, pixels, "Stem_Conv",
                  {.module = root / "stem" / "conv", .in = channels, .out = stem_out, .kernel = stem_kernel,
                   .stride = stem_stride, .padding = stem_kernel / 2, .bias = false});
  x = batch_norm(b, x, "Stem_BatchNorm", root / "stem" / "batch_norm", stem_act);
  if (stem_out != hidden.front())
    b.fail(x, fmt::format("stem_out_channels {} is not hidden_sizes[0] {}", stem_out, hidden.front()));

  for (std::size_t s = 0; s < kernels.size(); ++s) {
    if (strides[s].size() != kernels[s].size())
      throw Error(ErrorKind::InvalidInput, fmt::format("{}: key 'conv_layer_strides'", c.origin()),
                  fmt::format("stage {} has {} strides for {} kernels", s, strides[s].size(), kernels[s].size()));
    for (std::size_t j = 0; j < kernels[s].size(); ++j) {
      b.set_block(b.next_block());
      const Scope layer = root / "encoder" / "stages" / static_cast<std::int64_t>(s) / "stage" /
                          static_cast<std::int64_t>(j);
      const std::string name = fmt::format("Stage_{}_Layer_{}", s, j);
      const Kernel k = kernels[s][j];
      const std::int64_t out = hidden[s + 1], stride = strides[s][j];
      auto main = rect_conv(b, x, name + "_Main", layer / "main_conv", out, k, stride);
      Value sum = batch_norm(b, main, name + "_Main_BatchNorm", layer / "main_batch_norm");
      if (k.w != 1) {
        auto v = rect_conv(b, x, name + "_Vertical", layer / "vertical_conv", out, {k.h, 1}, stride);
        v = batch_norm(b, v, name + "_Vertical_BatchNorm", layer / "vertical_batch_norm");
        sum = add(b, sum, v, name + "_Vertical_Add");
      }
      if (k.h != 1) {
        auto h = rect_conv(b, x, name + "_Horizontal", layer / "horizontal_conv", out, {1, k.w}, stride);
        h = batch_norm(b, h, name + "_Horizontal_BatchNorm", layer / "horizontal_batch_norm");
        sum = add(b, sum, h, name + "_Horizontal_Add");
      }
      if (out == x.shape[0] && stride == 1) {
        auto id = batch_norm(b, x, name + "_Identity_BatchNorm", layer / "rbr_identity");
        sum = add(b, sum, id, name + "_Identity_Add");
      }
      b.at(sum).activation = "relu";
      x = sum;
    }
  }
  b.set_block(-1);
  if (in.class_name.ends_with("ForImageClassification")) {
    auto pooled = pool(b, x, "Pooler", false);
    return classifier(b, Value{pooled.node, {x.shape[0]}}, "Classifier", Scope("fc"), x.shape[0], in.num_labels(),
                      true);
  }
  if (in.class_name.ends_with("Backbone")) return x;
  // TextNetModel's pooler: AdaptiveAvgPool2d((2, 2)).
  return b.node(NodeType::Pool, "Pooler", {x.shape[0], 2, 2}, {x});
}

}  // namespace
}  // namespace textnet_impl

const Family& textnet_family() {
  static const Family family{"textnet", "models/textnet/modeling_textnet.py",
                             {{"TextNetModel", Head::Base},
                              {"TextNetForImageClassification", Head::ImageClassification},
                              {"TextNetBackbone", Head::Base}},
                             textnet_impl::build};
  return family;
}

}  // namespace neurarch::families
