#pragma once
// nn.LSTM over a time-major sequence [frames, input] (EnCodec's and Mimi's codec LSTMs). There is no
// recurrent node kind: each layer is written as what it computes per frame, with existing kinds —
//   the input projection x W_ih^T + b_ih over every frame (a Linear node, [frames, 4 hidden]),
//   the recurrent projection h_{t-1} W_hh^T + b_hh (a Linear node reading the layer's own hidden states),
//   the gates: their sum through sigmoid / tanh (an Add node keeping the [frames, 4 hidden] gate values), and
//   the cell update c_t, h_t = o * tanh(c_t) (an Add node keeping tanh's input, [frames, hidden]).
// The tensors are nn.LSTM's own: weight_ih_l<k> [4H, in], weight_hh_l<k> [4H, H], bias_ih_l<k>, bias_hh_l<k>.
#include <cstdint>
#include <string>

#include "blocks/blocks.hpp"

namespace neurarch::blocks {

struct LstmSpec {
  Scope module;  ///< the nn.LSTM, e.g. "encoder.layers.13.lstm"
  std::int64_t input = 0;
  std::int64_t hidden = 0;
  std::int64_t layers = 1;
  bool bias = true;
};

/// The last layer's hidden states [frames, hidden].
Value lstm(GraphBuilder& b, const Value& x, const std::string& name, const LstmSpec& spec);

}  // namespace neurarch::blocks
