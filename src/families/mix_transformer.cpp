#include "families/mix_transformer.hpp"

#include <initializer_list>
#include <utility>

#include <fmt/format.h>

#include "families/config_lists.hpp"

namespace neurarch::families::mix {

using namespace blocks;

// PVT v2's linear attention pools keys and values to a fixed 7 x 7 grid.
constexpr std::int64_t kLinearAttentionGrid = 7;

StageDefaults segformer_defaults() {
  return {.lists = {.depths = {2, 2, 2, 2},
                    .hidden = {32, 64, 160, 256},
                    .sr = {8, 4, 2, 1},
                    .patches = {7, 3, 3, 3},
                    .strides = {4, 2, 2, 2},
                    .heads = {1, 2, 5, 8},
                    .ratios = {4, 4, 4, 4}}};
}

StageDefaults pvt_v2_defaults() {
  StageDefaults d = segformer_defaults();
  d.lists.ratios = {8, 8, 4, 4};
  return d;
}

Stages read_stages(const Config& c, const StageDefaults& d, std::optional<std::int64_t> stages) {
  Stages s{.depths = size_list(c, "depths", d.lists.depths),
           .hidden = size_list(c, "hidden_sizes", d.lists.hidden),
           .sr = size_list(c, d.sr_key, d.lists.sr),
           .patches = size_list(c, "patch_sizes", d.lists.patches),
           .strides = size_list(c, "strides", d.lists.strides),
           .heads = size_list(c, "num_attention_heads", d.lists.heads),
           .ratios = size_list(c, "mlp_ratios", d.lists.ratios)};
  if (stages) require_length(c, "depths", s.depths, static_cast<std::size_t>(*stages));
  const std::size_t count = s.depths.size();
  using Named = std::pair<std::string_view, const std::vector<std::int64_t>*>;
  for (const auto& [key, list] : std::initializer_list<Named>{{"hidden_sizes", &s.hidden},
                                                              {d.sr_key, &s.sr},
                                                              {"patch_sizes", &s.patches},
                                                              {"strides", &s.strides},
                                                              {"num_attention_heads", &s.heads},
                                                              {"mlp_ratios", &s.ratios}})
    require_length(c, key, *list, count);
  return s;
}

Value as_tokens(const Value& map) { return Value{map.node, {map.shape[1] * map.shape[2], map.shape[0]}}; }
Value as_map(const Value& tokens, std::int64_t h, std::int64_t w) {
  return Value{tokens.node, {tokens.shape.back(), h, w}};
}

Value layer(GraphBuilder& b, const Value& x, std::int64_t block, const LayerSpec& s, const LayerNames& n) {
  b.set_block(static_cast<int>(block));
  BlockNames names{block};
  auto normed = norm(b, x, names.norm(1, NormKind::LayerNorm), {n.norm1});
  Value kv = normed;
  if (s.linear_attention) {
    auto pooled = b.node(graph::NodeType::Pool, fmt::format("Reduction_Pool_{}", block),
                         {s.dim, kLinearAttentionGrid, kLinearAttentionGrid}, {as_map(normed, s.h, s.w)});
    b.at(pooled).spatial = graph::SpatialAttrs{s.h / kLinearAttentionGrid, s.w / kLinearAttentionGrid, 1, 0, 1, false};
    auto reduced = conv2d(b, pooled, fmt::format("Reduction_Conv_{}", block),
                          {.module = n.reduction, .in = s.dim, .out = s.dim});
    // The GELU after this LayerNorm keeps a 49-token map: too small to model separately.
    kv = norm(b, as_tokens(reduced), fmt::format("Reduction_LayerNorm_{}", block), {n.reduction_norm});
  } else if (s.sr_ratio > 1) {
    auto reduced = conv2d(b, as_map(normed, s.h, s.w), fmt::format("Reduction_Conv_{}", block),
                          {.module = n.reduction, .in = s.dim, .out = s.dim, .kernel = s.sr_ratio,
                           .stride = s.sr_ratio});
    kv = norm(b, as_tokens(reduced), fmt::format("Reduction_LayerNorm_{}", block), {n.reduction_norm});
  }
  auto attn = attention(b, normed, names.attention(),
                        {.hidden = s.dim, .heads = s.heads, .module = n.attention, .q = n.q, .k = n.k, .v = n.v,
                         .o = n.o, .qkv_bias = s.qkv_bias, .dropout = s.attention_dropout,
                         .output_dropout = s.hidden_dropout});
  if (kv.node != normed.node) {
    // Keys and values come from the reduced map.
    b.at(attn).inputs.push_back(kv.node);
    b.at(attn).attention->kv_len = kv.shape.front();
  }
  auto residual = add(b, attn, x, names.add(1));
  auto h = norm(b, residual, names.norm(2, NormKind::LayerNorm), {n.norm2});
  if (n.dwconv.empty()) {
    // PVT v1's plain MLP.
    h = dense(b, h, fmt::format("FFN_Dense1_{}", block), n.dense1, s.dim, s.inner, true, s.activation);
    b.at(h).dropout = s.hidden_dropout;
    h = dense(b, h, fmt::format("FFN_Dense2_{}", block), n.dense2, s.inner, s.dim, true);
    b.at(h).dropout = s.hidden_dropout;
    return add(b, h, residual, names.add(2));
  }
  h = dense(b, h, fmt::format("FFN_Dense1_{}", block), n.dense1, s.dim, s.inner, true,
            s.linear_attention ? "relu" : "");
  auto dw = conv2d(b, as_map(h, s.h, s.w), fmt::format("FFN_DWConv_{}", block),
                   {.module = n.dwconv, .in = s.inner, .out = s.inner, .kernel = 3, .padding = 1, .groups = s.inner});
  b.at(dw).activation = s.activation;
  b.at(dw).dropout = s.hidden_dropout;
  h = dense(b, as_tokens(dw), fmt::format("FFN_Dense2_{}", block), n.dense2, s.inner, s.dim, true);
  b.at(h).dropout = s.hidden_dropout;
  return add(b, h, residual, names.add(2));
}

}  // namespace neurarch::families::mix
