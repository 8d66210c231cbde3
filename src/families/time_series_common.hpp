#pragma once
// The time-series encoder-decoder of Time Series Transformer (families/time_series_transformer.cpp), which
// Informer and Autoformer extend: Informer adds distilling convolutions between its encoder layers, Autoformer
// its series decomposition's trend and seasonality projections.
#include "families/family.hpp"

namespace neurarch::families::time_series {

struct Variant {
  double dropout = 0.1;  ///< the config class's dropout default
  bool distil = false;   ///< Informer: encoder.conv_layers between the encoder layers when config.distil
  /// Autoformer: each layer's last norm wrapped as `final_layer_norm.layernorm`, a bias-free trend_projection
  /// Conv1d per decoder layer, decoder.seasonality_projection, and a decoder of label_length + prediction_length.
  bool autoformer = false;
};

/// The base model (TimeSeriesTransformerModel / InformerModel): the decoder's last hidden state.
graph::Value model(const BuildInput& in, graph::GraphBuilder& b, const Variant& variant);

}  // namespace neurarch::families::time_series
