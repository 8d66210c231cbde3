// Time Series Transformer (models/time_series_transformer/modeling_time_series_transformer.py + its configuration,
// transformers 4.47.1: TimeSeriesTransformerModel). A BART-style post-norm encoder-decoder over time steps instead
// of tokens: past_values (context_length + max(lags_sequence) steps of input_size values) are scaled (no
// parameters) and turned into lagged features; each step's feature_size = input_size x len(lags_sequence) +
// sum(embedding_dimension) + num_dynamic_real_features + num_time_features + num_static_real_features + 2 x
// input_size features go through value_embedding.value_projection (bias-free) into d_model, plus a frozen
// sinusoid embed_positions [context_length + prediction_length, d_model] and layernorm_embedding. The encoder
// reads context_length steps, the decoder prediction_length. Static categorical features each have an
// embedder.embedders.<i> table [cardinality_i, embedding_dimension_i].
#include <algorithm>
#include <numeric>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "blocks/seq2seq.hpp"
#include "core/error.hpp"
#include "families/config_lists.hpp"
#include "families/time_series_common.hpp"

namespace neurarch::families {
namespace time_series {

using namespace blocks;

namespace time_series_transformer_impl {
namespace {
using graph::NodeType;

struct Stack {
  std::int64_t layers, heads, ffn;
};

Value embed(GraphBuilder& b, const Value& x, const std::string& prefix, const Scope& stack, std::int64_t features,
            std::int64_t d_model, std::int64_t positions, double dropout) {
  auto h = dense(b, x, prefix + "Value_Embedding", stack / "value_embedding" / "value_projection", features, d_model,
                 false);
  auto pos = b.node(NodeType::LearnedPosEmbed, prefix + "Position_Embedding", h.shape, {h}, stack / "embed_positions");
  b.parameter(pos, (stack / "embed_positions")("weight"), {positions, d_model}, graph::TensorRole::Embedding);
  // The sinusoid table is an nn.Embedding with requires_grad False.
  b.freeze(pos);
  auto out = norm(b, pos, prefix + "Embedding_LayerNorm", {stack / "layernorm_embedding"});
  b.at(out).dropout = dropout;
  return out;
}

// Informer's distilling layer: a circular-padded Conv1d(d, d, 3), BatchNorm1d, ELU and a stride-2 max pool, which
// halves the steps the next encoder layer sees.
Value distil(GraphBuilder& b, const Value& x, const Scope& module, std::int64_t i) {
  const std::int64_t steps = x.shape[0], d = x.shape[1];
  auto conv = b.node(NodeType::Conv1d, fmt::format("Distil_Conv_{}", i), x.shape, {x}, module / "downConv");
  b.at(conv).conv = graph::ConvAttrs{d, d, 3, 1, 1, 1, steps, steps};
  b.parameter(conv, (module / "downConv")("weight"), {d, d, 3}, graph::TensorRole::Conv);
  b.parameter(conv, (module / "downConv")("bias"), {d}, graph::TensorRole::Bias);
  const Scope bn = module / "norm";
  auto normed = b.node(NodeType::BatchNorm, fmt::format("Distil_BatchNorm_{}", i), x.shape, {conv}, bn);
  b.at(normed).activation = "elu";
  b.parameter(normed, bn("weight"), {d}, graph::TensorRole::Norm);
  b.parameter(normed, bn("bias"), {d}, graph::TensorRole::Bias);
  b.buffer(normed, bn("running_mean"), {d}, b.param_dtype());
  b.buffer(normed, bn("running_var"), {d}, b.param_dtype());
  b.buffer(normed, bn("num_batches_tracked"), {}, DType::I64);
  auto pooled = b.node(NodeType::Pool, fmt::format("Distil_MaxPool_{}", i), {(steps - 1) / 2 + 1, d}, {normed});
  b.at(pooled).spatial = graph::SpatialAttrs{3, 1, 2, 1, 1, true};
  return pooled;
}

}  // namespace
}  // namespace time_series_transformer_impl
using namespace time_series_transformer_impl;

Value model(const BuildInput& in, GraphBuilder& b, const Variant& variant) {
  const Config& c = in.config;
  const std::int64_t prediction = c.dim({"prediction_length"});
  const std::int64_t context = c.has("context_length") ? c.dim({"context_length"}) : prediction;
  const std::int64_t input_size = c.dim({"input_size"}, 1);
  const auto lags = count_list(c, "lags_sequence", {1, 2, 3, 4, 5, 6, 7});
  const std::int64_t time_features = c.integer({"num_time_features"}, 0);
  const std::int64_t dynamic_real = c.integer({"num_dynamic_real_features"}, 0);
  const std::int64_t static_real = c.integer({"num_static_real_features"}, 0);
  const std::int64_t static_categorical = c.integer({"num_static_categorical_features"}, 0);
  std::vector<std::int64_t> cardinality = static_categorical > 0 ? count_list(c, "cardinality", {}) : std::vector<std::int64_t>{0};
  std::vector<std::int64_t> dims;
  if (static_categorical > 0) {
    if (static_cast<std::int64_t>(cardinality.size()) != static_categorical)
      throw Error(ErrorKind::InvalidInput, c.origin() + ": key 'cardinality'",
                  "needs one entry per static categorical feature");
    std::vector<std::int64_t> fallback;
    for (auto card : cardinality) fallback.push_back(std::min<std::int64_t>(50, (card + 1) / 2));
    dims = count_list(c, "embedding_dimension", fallback);
    if (dims.size() != cardinality.size())
      throw Error(ErrorKind::InvalidInput, c.origin() + ": key 'embedding_dimension'",
                  "needs one entry per static categorical feature");
  } else {
    dims = {0};
  }
  const std::int64_t d_model = c.dim({"d_model"}, 64);
  const Stack enc{c.dim({"encoder_layers"}, 2), c.dim({"encoder_attention_heads"}, 2), c.dim({"encoder_ffn_dim"}, 32)};
  const Stack dec{c.dim({"decoder_layers"}, 2), c.dim({"decoder_attention_heads"}, 2), c.dim({"decoder_ffn_dim"}, 32)};
  const std::string activation = c.text({"activation_function"}, "gelu");
  const double dropout = c.number({"dropout"}, variant.dropout);
  const double attention_dropout = c.number({"attention_dropout"}, 0.1);
  const double activation_dropout = c.number({"activation_dropout"}, 0.1);
  const std::int64_t features = input_size * static_cast<std::int64_t>(lags.size()) +
                                std::accumulate(dims.begin(), dims.end(), std::int64_t{0}) + dynamic_real +
                                time_features + static_real + 2 * input_size;
  const std::int64_t max_lag = lags.empty() ? 0 : *std::max_element(lags.begin(), lags.end());
  const std::int64_t positions = context + prediction;
  // Autoformer wraps each layer's last LayerNorm (AutoformerLayernorm: the norm, minus its mean over time).
  auto final_norm = [&](const Scope& l) {
    return variant.autoformer ? l / "final_layer_norm" / "layernorm" : l / "final_layer_norm";
  };

  auto past = b.input({context + max_lag, input_size}, "time_series", "past_values");
  auto x = b.node(NodeType::Linear, "Lagged_Features", {context, features}, {past});
  if (static_categorical > 0)
    for (std::size_t i = 0; i < cardinality.size(); ++i)
      b.parameter(x, (Scope("embedder") / "embedders" / static_cast<std::int64_t>(i))("weight"),
                  {cardinality[i], dims[i]}, graph::TensorRole::Embedding);

  auto layer_ffn = [&](const Value& h, const Scope& l, const std::string& name, std::int64_t ffn) {
    return feed_forward(b, h, name,
                        {.hidden = d_model, .intermediate = ffn, .activation = activation, .module = l, .up = l / "fc1",
                         .down = l / "fc2", .output_dropout = dropout, .inner_dropout = activation_dropout});
  };
  auto spec = [&](const Scope& module, std::int64_t heads, bool causal) {
    return AttentionSpec{.hidden = d_model, .heads = heads, .causal = causal, .module = module, .q = module / "q_proj",
                         .k = module / "k_proj", .v = module / "v_proj", .o = module / "out_proj",
                         .dropout = attention_dropout, .output_dropout = dropout};
  };

  const Scope encoder("encoder");
  auto h = embed(b, x, "Encoder_", encoder, features, d_model, positions, dropout);
  for (std::int64_t i = 0; i < enc.layers; ++i) {
    b.set_block(static_cast<int>(i));
    const Scope l = encoder / "layers" / i;
    const BlockNames n{i};
    auto a = attention(b, h, "Encoder_" + n.attention(), spec(l / "self_attn", enc.heads, false));
    h = norm(b, add(b, a, h, "Encoder_" + n.add(1)), "Encoder_" + n.norm(1, NormKind::LayerNorm),
             {l / "self_attn_layer_norm"});
    auto f = layer_ffn(h, l, "Encoder_" + n.ffn(), enc.ffn);
    h = norm(b, add(b, f, h, "Encoder_" + n.add(2)), "Encoder_" + n.norm(2, NormKind::LayerNorm),
             {final_norm(l)});
    if (variant.distil && c.flag({"distil"}, true) && i + 1 < enc.layers) h = distil(b, h, encoder / "conv_layers" / i, i);
  }
  const Value memory = h;

  const Scope decoder("decoder");
  // Autoformer's decoder starts from the last label_length context steps followed by the prediction window.
  const std::int64_t target = variant.autoformer ? c.integer({"label_length"}, 10) + prediction : prediction;
  auto future = b.node(NodeType::Linear, "Decoder_Lagged_Features", {target, features}, {past});
  auto y = embed(b, future, "Decoder_", decoder, features, d_model, positions, dropout);
  for (std::int64_t i = 0; i < dec.layers; ++i) {
    b.set_block(static_cast<int>(enc.layers + i));
    const Scope l = decoder / "layers" / i;
    const BlockNames n{i};
    auto a = attention(b, y, "Decoder_" + n.attention(), spec(l / "self_attn", dec.heads, true));
    y = norm(b, add(b, a, y, "Decoder_" + n.add(1)), "Decoder_" + n.norm(1, NormKind::LayerNorm),
             {l / "self_attn_layer_norm"});
    a = cross_attention(b, y, memory, fmt::format("Decoder_Cross_Attention_{}", i), spec(l / "encoder_attn", dec.heads, false));
    y = norm(b, add(b, a, y, "Decoder_" + n.add(2)), "Decoder_" + n.norm(2, NormKind::LayerNorm),
             {l / "encoder_attn_layer_norm"});
    auto f = layer_ffn(y, l, "Decoder_" + n.ffn(), dec.ffn);
    y = norm(b, add(b, f, y, "Decoder_" + n.add(3)), "Decoder_" + n.norm(3, NormKind::LayerNorm), {final_norm(l)});
    if (variant.autoformer) {
      // The trend each decomposition takes out is projected back to the features (circular Conv1d, kernel 3).
      auto trend = b.node(NodeType::Conv1d, fmt::format("Decoder_Trend_Projection_{}", i), {y.shape[0], features},
                          {y}, l / "trend_projection");
      b.at(trend).conv = graph::ConvAttrs{d_model, features, 3, 1, 1, 1, y.shape[0], y.shape[0]};
      b.parameter(trend, (l / "trend_projection")("weight"), {features, d_model, 3}, graph::TensorRole::Conv);
    }
  }
  b.set_block(-1);
  if (variant.autoformer)
    y = dense(b, y, "Decoder_Seasonality_Projection", decoder / "seasonality_projection", d_model, features, true);
  return y;
}

}  // namespace time_series

namespace time_series_transformer_impl {
namespace {
graph::Value build(const BuildInput& in, graph::GraphBuilder& b) { return time_series::model(in, b, {}); }
}  // namespace
}  // namespace time_series_transformer_impl

const Family& time_series_transformer_family() {
  static const Family family{"time_series_transformer",
                             "models/time_series_transformer/modeling_time_series_transformer.py",
                             {{"TimeSeriesTransformerModel", Head::Base}},
                             time_series_transformer_impl::build};
  return family;
}

}  // namespace neurarch::families
