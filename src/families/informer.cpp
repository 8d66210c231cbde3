// Informer (models/informer/modeling_informer.py + configuration_informer.py, transformers 4.47.1: InformerModel):
// Time Series Transformer's encoder-decoder (time_series::model) with dropout 0.05 by default and, with distil,
// a distilling convolution (encoder.conv_layers.<i>: downConv, BatchNorm1d norm, ELU, stride-2 max pool) after
// every encoder layer but the last. Its ProbSparse attention (attention_type "prob") has the same projections;
// the graph counts full attention, which errs high.
#include "families/time_series_common.hpp"

namespace neurarch::families {
namespace informer_impl {
namespace {
graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  return time_series::model(in, b, {.dropout = 0.05, .distil = true});
}
}  // namespace
}  // namespace informer_impl

const Family& informer_family() {
  static const Family family{"informer", "models/informer/modeling_informer.py", {{"InformerModel", Head::Base}},
                             informer_impl::build};
  return family;
}

}  // namespace neurarch::families
