// BiT (models/bit/modeling_bit.py, transformers 4.47.1): the ResNet-v2 trunk of bit_common.hpp, then, for the
// pre-activation layout, a final group norm + activation (`norm`, sized by the configured last hidden size),
// and a global average pool. The classifier (`classifier.1` behind a Flatten) reads the pooled map.
#include "blocks/group_norm.hpp"
#include "families/bit_common.hpp"
#include "families/family.hpp"

namespace neurarch::families {
namespace bit_impl {
namespace {

using namespace blocks;

Value build(const BuildInput& in, GraphBuilder& b) {
  const bit::Settings s = bit::read_settings(in.config);
  const std::int64_t image = in.image_size(in.config.dim({"image_size"}, 224));
  const Scope root = in.head == Head::Base ? Scope() : Scope("bit");
  auto pixels = b.input({s.channels, image, image}, "pixels");
  auto x = bit::trunk(b, pixels, s, root).last;
  if (s.preactivation) x = group_norm(b, x, "Final_GroupNorm", root / "norm", s.groups, s.activation);
  x = pool(b, x, "Global_AvgPool", false);
  const std::int64_t width = x.shape.empty() ? 0 : x.shape.front();
  if (in.head == Head::Base) return x;
  return classifier(b, Value{x.node, {width}}, "Classifier", Scope("classifier") / 1, s.hidden.back(),
                    in.num_labels(), true);
}

}  // namespace
}  // namespace bit_impl

const Family& bit_family() {
  static const Family family{"bit", "models/bit/modeling_bit.py",
                             classes("Bit", {heads::ForImageClassification}), bit_impl::build};
  return family;
}

}  // namespace neurarch::families
