#include "families/timm_resnet.hpp"

#include <array>
#include <vector>

#include <fmt/format.h>

#include "core/error.hpp"

namespace neurarch::families::timm {

using namespace blocks;

namespace timm_resnet_impl {
namespace {

struct Layout {
  std::string_view name;
  std::array<std::int64_t, 4> depths;
  bool bottleneck;
};

constexpr Layout kLayouts[] = {{"resnet18", {2, 2, 2, 2}, false},   {"resnet26", {2, 2, 2, 2}, true},
                               {"resnet34", {3, 4, 6, 3}, false},   {"resnet50", {3, 4, 6, 3}, true},
                               {"resnet101", {3, 4, 23, 3}, true},  {"resnet152", {3, 8, 36, 3}, true}};

Value conv_bn(GraphBuilder& b, const Value& x, const std::string& name, const Scope& conv, const Scope& bn,
              std::int64_t in, std::int64_t out, std::int64_t kernel, std::int64_t stride, bool relu) {
  auto h = conv2d(b, x, name + "_Conv",
                  {.module = conv, .in = in, .out = out, .kernel = kernel, .stride = stride, .padding = kernel / 2,
                   .bias = false});
  return batch_norm(b, h, name + "_BatchNorm", bn, relu ? "relu" : "");
}

}  // namespace
}  // namespace timm_resnet_impl
using namespace timm_resnet_impl;

Value resnet(const BuildInput& in, GraphBuilder& b, const Config& c, const ResNetSpec& spec) {
  const timm_resnet_impl::Layout* layout = nullptr;
  std::vector<std::string_view> known;
  for (const auto& l : timm_resnet_impl::kLayouts) {
    known.push_back(l.name);
    if (l.name == spec.architecture) layout = &l;
  }
  if (!layout)
    throw Error(ErrorKind::Unsupported, fmt::format("{}: key '{}'", c.origin(), spec.key),
                fmt::format("timm architecture '{}' is built by timm's own code, which the config does not describe; "
                            "neurarch builds {}",
                            spec.architecture, fmt::join(known, ", ")));
  const Scope& r = spec.root;
  const std::int64_t image = in.image_size(224);
  auto x = b.input({spec.channels, image, image}, "pixels");
  x = timm_resnet_impl::conv_bn(b, x, "Stem", r / "conv1", r / "bn1", spec.channels, 64, 7, 2, true);
  x = pool(b, x, "Stem_MaxPool", true, 3, 2, 1);

  const std::int64_t expansion = layout->bottleneck ? 4 : 1;
  std::int64_t channels = 64;
  std::int64_t block = 0;
  for (std::int64_t s = 0; s < spec.last_stage; ++s) {
    const std::int64_t width = 64 << s;
    for (std::int64_t j = 0; j < layout->depths[static_cast<std::size_t>(s)]; ++j, ++block) {
      b.set_block(static_cast<int>(block));
      const Scope l = r / fmt::format("layer{}", s + 1) / j;
      const std::int64_t stride = j == 0 && s > 0 ? 2 : 1;
      const std::string n = fmt::format("Block_{}", block);
      Value shortcut = x;
      if (j == 0 && (stride != 1 || channels != width * expansion))
        shortcut = timm_resnet_impl::conv_bn(b, x, n + "_Downsample", l / "downsample" / 0, l / "downsample" / 1, channels,
                           width * expansion, 1, stride, false);
      Value h;
      if (layout->bottleneck) {
        h = timm_resnet_impl::conv_bn(b, x, n + "_1", l / "conv1", l / "bn1", channels, width, 1, 1, true);
        h = timm_resnet_impl::conv_bn(b, h, n + "_2", l / "conv2", l / "bn2", width, width, 3, stride, true);
        h = timm_resnet_impl::conv_bn(b, h, n + "_3", l / "conv3", l / "bn3", width, width * expansion, 1, 1, false);
      } else {
        h = timm_resnet_impl::conv_bn(b, x, n + "_1", l / "conv1", l / "bn1", channels, width, 3, stride, true);
        h = timm_resnet_impl::conv_bn(b, h, n + "_2", l / "conv2", l / "bn2", width, width, 3, 1, false);
      }
      x = add(b, h, shortcut, n + "_Add");
      b.at(x).activation = "relu";
      channels = width * expansion;
    }
  }
  b.set_block(-1);
  return x;
}

}  // namespace neurarch::families::timm
