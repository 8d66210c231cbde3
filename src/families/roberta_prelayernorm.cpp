// RoBERTa-PreLayerNorm (models/roberta_prelayernorm/modeling_roberta_prelayernorm.py,
// transformers 4.47.1): RoBERTa with each sublayer's norm moved in front of it
// (attention.LayerNorm, intermediate.LayerNorm) and one more LayerNorm on the model itself,
// applied to the last hidden state before the pooler. The embedding LayerNorm stays.
#include "families/bert_common.hpp"

namespace neurarch::families {
namespace roberta_prelayernorm_impl {
namespace {

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  static const bert::Layout layout = [] {
    bert::Layout l = bert::roberta_layout("roberta_prelayernorm", {.vocab = 50265});
    l.pre_norm = bert::PreNormNames{.attention = "LayerNorm", .ffn = "intermediate.LayerNorm", .final = "LayerNorm"};
    return l;
  }();
  return bert::build(in, b, layout);
}

}  // namespace
}  // namespace roberta_prelayernorm_impl

const Family& roberta_prelayernorm_family() {
  static const Family family{"roberta-prelayernorm", "models/roberta_prelayernorm/modeling_roberta_prelayernorm.py",
                             classes("RobertaPreLayerNorm", heads::kRoberta), roberta_prelayernorm_impl::build};
  return family;
}

}  // namespace neurarch::families
