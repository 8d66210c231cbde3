#include <fmt/format.h>

#include "blocks/blocks.hpp"

namespace neurarch::blocks {

Value token_embedding(GraphBuilder& b, const Value& ids, const std::string& name, const Scope& module,
                      std::int64_t vocab, std::int64_t dim) {
  Shape shape = ids.shape;
  shape.push_back(dim);
  auto out = b.node(graph::NodeType::Embedding, name, shape, {ids}, module);
  b.parameter(out, module("weight"), {vocab, dim}, graph::TensorRole::Embedding);
  return out;
}

Value added_embedding(GraphBuilder& b, const Value& x, const std::string& name, const Scope& module,
                      std::int64_t rows, std::int64_t dim) {
  auto out = b.node(graph::NodeType::Embedding, name, x.shape, {x}, module);
  b.parameter(out, module("weight"), {rows, dim}, graph::TensorRole::Embedding);
  if (x.shape.back() != dim) b.fail(out, fmt::format("embedding width {} does not match {}", dim, x.shape.back()));
  return out;
}

Value learned_positions(GraphBuilder& b, const Value& x, const std::string& name, const Scope& module,
                        std::int64_t rows, std::int64_t dim, std::int64_t offset) {
  auto out = b.node(graph::NodeType::LearnedPosEmbed, name, x.shape, {x}, module);
  b.parameter(out, module("weight"), {rows, dim}, graph::TensorRole::Embedding);
  std::int64_t seq = x.shape.size() >= 2 ? x.shape[x.shape.size() - 2] : 0;
  if (seq + offset > rows) {
    if (offset > 0)
      b.fail(out, fmt::format("requested sequence {} exceeds {} learned positions ({} usable after the offset of {})",
                              seq, rows, rows - offset, offset));
    else
      b.fail(out, fmt::format("requested sequence {} exceeds {} learned positions", seq, rows));
  }
  return out;
}

Value patch_embed(GraphBuilder& b, const Value& pixels, const std::string& name, const PatchEmbedSpec& s) {
  std::int64_t h = pixels.shape.size() == 3 ? pixels.shape[1] : 0;
  std::int64_t w = pixels.shape.size() == 3 ? pixels.shape[2] : 0;
  std::int64_t patches = (h / s.patch) * (w / s.patch);
  auto out = b.node(graph::NodeType::PatchEmbed, name, {s.extra_tokens + patches, s.dim}, {pixels}, s.projection);
  b.parameter(out, s.projection("weight"), {s.dim, s.channels, s.patch, s.patch}, graph::TensorRole::Conv);
  b.parameter(out, s.projection("bias"), {s.dim}, graph::TensorRole::Bias);
  if (pixels.shape.size() == 3 && pixels.shape[0] != s.channels)
    b.fail(out, fmt::format("expects {} channels, receives {}", s.channels, pixels.shape[0]));
  if (h < s.patch || w < s.patch)
    b.fail(out, fmt::format("image {}x{} is smaller than one {}-pixel patch", h, w, s.patch));
  return out;
}

}  // namespace neurarch::blocks
