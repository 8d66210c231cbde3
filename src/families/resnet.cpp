// ResNet (models/resnet/modeling_resnet.py, transformers 4.47.1): a 7x7 stride-2 conv + BatchNorm + ReLU stem
// and a 3x3 stride-2 max pool, then stages of bottleneck (1x1 reduce to out/4, 3x3, 1x1 expand) or basic
// (3x3, 3x3) layers with a 1x1 conv + BatchNorm shortcut wherever channels or stride change, a ReLU after each
// residual sum, and a global average pool. Every conv is bias-free and followed by a BatchNorm (running
// statistics and num_batches_tracked are saved). Stage 0 keeps the resolution unless downsample_in_first_stage;
// downsample_in_bottleneck moves the stride to the first 1x1 conv. The head flattens and applies
// classifier.1 (a Linear). Any image size runs; 224 (the image processor's) is the default.
#include "families/resnet_common.hpp"

namespace neurarch::families {
namespace resnet_impl {
namespace {

using namespace blocks;

Value build(const BuildInput& in, GraphBuilder& b) {
  const resnet::HfConfig cfg = resnet::read_hf_config(in.config);
  const std::int64_t image = in.image_size(224);
  const Scope root = in.head == Head::Base ? Scope() : Scope("resnet");
  auto pixels = b.input({cfg.channels, image, image}, "pixels");
  const auto trunk = resnet::hf_trunk(b, pixels, cfg, root, resnet::Norm::Trained);
  auto x = pool(b, trunk.last, "Pooler", false);
  if (in.head == Head::Base) return x;
  const std::int64_t width = trunk.channels.back();
  return classifier(b, Value{x.node, {width}}, "Classifier", Scope("classifier") / 1, width, in.num_labels(), true);
}

}  // namespace
}  // namespace resnet_impl

const Family& resnet_family() {
  static const Family family{"resnet", "models/resnet/modeling_resnet.py",
                             classes("ResNet", {heads::ForImageClassification}), resnet_impl::build};
  return family;
}

}  // namespace neurarch::families
