// TimmBackbone (models/timm_backbone/modeling_timm_backbone.py, transformers 4.47.1): a timm model created by name
// from `backbone` with features_only, under `_backbone`; it keeps the stages up to the last of out_indices (timm's
// feature indices: 0 the stem, 1..4 the stages; default the last) and no pooling or classifier.
#include <algorithm>

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "families/timm_resnet.hpp"

namespace neurarch::families {
namespace timm_backbone_impl {
namespace {

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  const Config& c = in.config;
  std::int64_t last = 4;
  if (const auto* indices = c.raw({"out_indices"}); indices && indices->is_array() && !indices->empty()) {
    last = 0;
    for (const auto& e : *indices) {
      if (!e.is_number_integer())
        throw Error(ErrorKind::InvalidInput, c.origin() + ": key 'out_indices'", "expected integer feature indices");
      std::int64_t i = e.get<std::int64_t>();
      if (i < 0) i += 5;
      if (i < 0 || i > 4)
        throw Error(ErrorKind::InvalidInput, c.origin() + ": key 'out_indices'",
                    fmt::format("feature index {} is outside the 5 features", e.get<std::int64_t>()));
      last = std::max(last, i);
    }
  }
  return timm::resnet(in, b, c,
                      {.key = "backbone", .architecture = c.text({"backbone"}, "resnet50"),
                       .root = graph::Scope("_backbone"), .channels = c.dim({"num_channels"}, 3),
                       .last_stage = last});
}

}  // namespace
}  // namespace timm_backbone_impl

const Family& timm_backbone_family() {
  static const Family family{"timm_backbone", "models/timm_backbone/modeling_timm_backbone.py",
                             {{"TimmBackbone", Head::Base}}, timm_backbone_impl::build};
  return family;
}

}  // namespace neurarch::families
