// Table Transformer (models/table_transformer/modeling_table_transformer.py, transformers 4.47.1): DETR's
// layout (detr_common.hpp) with pre-norm encoder and decoder layers (normalize_before) and an
// encoder.layernorm after the last encoder layer. Its published checkpoints use timm's resnet18. No
// segmentation class.
#include "families/detr_common.hpp"

namespace neurarch::families {
namespace table_transformer_impl {
namespace {

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  return detr::build(in, b, detr::Layout{.pre_norm = true, .encoder_final_norm = true});
}

}  // namespace
}  // namespace table_transformer_impl

const Family& table_transformer_family() {
  static const Family family{"table-transformer", "models/table_transformer/modeling_table_transformer.py",
                             classes("TableTransformer", {heads::ForObjectDetection}), table_transformer_impl::build};
  return family;
}

}  // namespace neurarch::families
