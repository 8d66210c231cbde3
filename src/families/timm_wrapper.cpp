// TimmWrapperModel / TimmWrapperForImageClassification (models/timm_wrapper/modeling_timm_wrapper.py, transformers
// 4.57.6): a timm model created by name from `architecture`, saved under timm's own names (no prefix). The base
// model has no classifier (num_classes=0) and pools (do_pooling); the classification class keeps timm's `fc`
// with one row per label (label_names, else num_classes).
#include <nlohmann/json.hpp>

#include "families/timm_resnet.hpp"

namespace neurarch::families {
namespace timm_wrapper_impl {
namespace {

using namespace blocks;

std::int64_t labels(const BuildInput& in) {
  const Config& c = in.config;
  if (const auto* names = c.raw({"label_names"}); names && names->is_array() && !names->empty())
    return static_cast<std::int64_t>(names->size());
  if (c.has("num_classes")) return c.dim({"num_classes"});
  return in.num_labels();
}

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config& c = in.config;
  auto x = timm::resnet(in, b, c,
                        {.key = "architecture", .architecture = c.text({"architecture"}, "resnet50"),
                         .root = Scope(), .channels = 3});
  const std::int64_t features = x.shape.front();
  if (in.head == Head::Base && !c.flag({"do_pooling"}, true)) return x;
  auto pooled = pool(b, x, "Global_Pool", false);
  pooled = Value{pooled.node, {features}};
  if (in.head == Head::Base) return pooled;
  return classifier(b, pooled, "Classifier", Scope("fc"), features, labels(in), true);
}

}  // namespace
}  // namespace timm_wrapper_impl

const Family& timm_wrapper_family() {
  static const Family family{"timm_wrapper",
                             "models/timm_wrapper/modeling_timm_wrapper.py",
                             {{"TimmWrapperModel", Head::Base},
                              {"TimmWrapperForImageClassification", Head::ImageClassification}},
                             timm_wrapper_impl::build};
  return family;
}

}  // namespace neurarch::families
