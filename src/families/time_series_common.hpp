#pragma once
// The time-series encoder-decoder of Time Series Transformer (families/time_series_transformer.cpp), which
// Informer extends: Informer adds distilling convolutions between its encoder layers.
#include "families/family.hpp"

namespace neurarch::families::time_series {

struct Variant {
  double dropout = 0.1;  ///< the config class's dropout default
  bool distil = false;   ///< Informer: encoder.conv_layers between the encoder layers when config.distil
};

/// The base model (TimeSeriesTransformerModel / InformerModel): the decoder's last hidden state.
graph::Value model(const BuildInput& in, graph::GraphBuilder& b, const Variant& variant);

}  // namespace neurarch::families::time_series
