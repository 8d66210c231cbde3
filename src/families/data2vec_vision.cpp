// Data2VecVision (models/data2vec/modeling_data2vec_vision.py, transformers 4.47.1): a copy of BEiT
// (see beit.cpp) under the data2vec_vision prefix. Two differences: the bare model defaults to
// add_pooling_layer=False, and there is no masked-image-modeling head (the segmentation head, a
// UperNet, is not built here).
#include "families/vit_common.hpp"

namespace neurarch::families {
namespace data2vec_vision_impl {
namespace {

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  return vit::beit_model(in, b, "data2vec_vision", false);
}

}  // namespace
}  // namespace data2vec_vision_impl

const Family& data2vec_vision_family() {
  static const Family family{"data2vec-vision", "models/data2vec/modeling_data2vec_vision.py",
                             classes("Data2VecVision", {heads::ForImageClassification}), data2vec_vision_impl::build};
  return family;
}

}  // namespace neurarch::families
