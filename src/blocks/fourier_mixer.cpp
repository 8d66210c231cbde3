#include "blocks/fourier_mixer.hpp"

#include <fmt/format.h>

namespace neurarch::blocks {

Value fourier_mixer(GraphBuilder& b, const Value& x, const std::string& name, const Scope& module) {
  // The transform is square in each axis: the output has the input's shape (its real part, a view).
  auto out = b.node(graph::NodeType::FourierMixer, name, x.shape, {x}, module);
  if (x.shape.size() != 2)
    b.fail(out, fmt::format("expects a [seq, hidden] stream, receives {} dimensions", x.shape.size()));
  return out;
}

}  // namespace neurarch::blocks
