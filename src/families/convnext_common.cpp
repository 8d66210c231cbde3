#include "families/convnext_common.hpp"

#include <fmt/format.h>

#include "blocks/response_norm.hpp"

namespace neurarch::families::convnext {

using namespace blocks;

Value channels_last(const Value& x) { return Value{x.node, {x.shape[1], x.shape[2], x.shape[0]}}; }
Value channels_first(const Value& x) { return Value{x.node, {x.shape[2], x.shape[0], x.shape[1]}}; }

Value channels_first_norm(GraphBuilder& b, const Value& x, const std::string& name, const Scope& module) {
  return channels_first(norm(b, channels_last(x), name, {module}));
}

Value layer(GraphBuilder& b, const Value& x, std::int64_t block, std::int64_t width, const std::string& activation,
            const LayerNames& names) {
  b.set_block(static_cast<int>(block));
  BlockNames n{block};
  auto h = conv2d(b, x, fmt::format("Depthwise_Conv_{}", block),
                  {.module = names.dwconv, .in = width, .out = width, .kernel = 7, .padding = 3, .groups = width});
  h = norm(b, channels_last(h), n.norm(1, NormKind::LayerNorm), {names.norm});
  if (names.grn.empty()) {
    h = feed_forward(b, h, n.ffn(),
                     {.hidden = width, .intermediate = 4 * width, .activation = activation, .module = names.layer,
                      .up = names.up, .down = names.down});
  } else {
    // GRN sits between the two pointwise layers, so they are separate nodes.
    h = dense(b, h, fmt::format("FFN_Up_{}", block), names.up, width, 4 * width, true, activation);
    h = global_response_norm(b, h, fmt::format("GRN_{}", block), names.grn);
    h = dense(b, h, fmt::format("FFN_Down_{}", block), names.down, 4 * width, width, true);
  }
  if (!names.scale.empty()) h = layer_scale(b, h, n.scale(1), names.scale);
  return add(b, channels_first(h), x, n.add(1));
}

}  // namespace neurarch::families::convnext
