#include "blocks/blocks.hpp"

namespace neurarch::blocks {

Value pre_norm_layer(GraphBuilder& b, const Value& x, std::int64_t i, const PreNormLayer& l) {
  BlockNames n{i};
  auto h = norm(b, x, n.norm(1, l.norm1.kind), l.norm1);
  h = attention(b, h, n.attention(), l.attention);
  if (l.scale1) h = layer_scale(b, h, n.scale(1), *l.scale1);
  auto residual = add(b, h, x, n.add(1));
  h = norm(b, residual, n.norm(2, l.norm2.kind), l.norm2);
  h = feed_forward(b, h, n.ffn(), l.ffn);
  if (l.scale2) h = layer_scale(b, h, n.scale(2), *l.scale2);
  return add(b, h, residual, n.add(2));
}

Value post_norm_layer(GraphBuilder& b, const Value& x, std::int64_t i, const PostNormLayer& l) {
  BlockNames n{i};
  auto h = attention(b, x, n.attention(), l.attention);
  h = add(b, h, x, n.add(1));
  auto normed = norm(b, h, n.norm(1, l.norm1.kind), l.norm1);
  h = feed_forward(b, normed, n.ffn(), l.ffn);
  h = add(b, h, normed, n.add(2));
  return norm(b, h, n.norm(2, l.norm2.kind), l.norm2);
}

}  // namespace neurarch::blocks
