// Autoformer (models/autoformer/modeling_autoformer.py + configuration_autoformer.py, transformers 4.47.1:
// AutoformerModel): Time Series Transformer's encoder-decoder (time_series::model) with series decomposition
// (moving averages: no parameters), AutoformerLayernorm as each layer's last norm, per decoder layer a bias-free
// circular Conv1d projecting the extracted trend back to the features, a final seasonality_projection, and a decoder
// that reads label_length + prediction_length steps. Its auto-correlation has the attention's projections and is
// counted as attention.
#include "families/time_series_common.hpp"

namespace neurarch::families {
namespace autoformer_impl {
namespace {
graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  return time_series::model(in, b, {.autoformer = true});
}
}  // namespace
}  // namespace autoformer_impl

const Family& autoformer_family() {
  static const Family family{"autoformer", "models/autoformer/modeling_autoformer.py",
                             {{"AutoformerModel", Head::Base}}, autoformer_impl::build};
  return family;
}

}  // namespace neurarch::families
