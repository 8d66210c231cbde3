#include "families/sliding_window.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace neurarch::families::sliding_window {

void apply(blocks::GraphBuilder& b, const blocks::Value& attention, std::int64_t window, std::int64_t layer,
           std::string_view model) {
  const std::int64_t one_sided = std::max<std::int64_t>(window / 2, 1);
  auto& at = *b.at(attention).attention;
  at.window = 2 * one_sided + 1;
  at.sdpa = false;
  const std::int64_t seq = at.query_len;
  const std::int64_t chunks = (seq + one_sided - 1) / one_sided;
  at.query_len = std::max<std::int64_t>(seq / std::max<std::int64_t>(chunks, 1), 1);
  at.kv_len = 2 * one_sided + 1;
  if (window <= 0 || window % 2 != 0)
    b.fail(attention, fmt::format("attention_window {} of layer {} must be even and positive ({}'s self-attention "
                                  "asserts it)",
                                  window, layer, model));
  if (layer != 0) return;
  b.note(fmt::format("{} attention slides: each token scores the {} tokens on either side ({} keys) rather than all "
                     "{}; the probabilities are counted per token",
                     model, one_sided, 2 * one_sided + 1, seq));
  if (window > 0 && seq % window != 0)
    b.note(fmt::format("{} pads the {}-token input to a multiple of attention_window {} ({} tokens); the padding is "
                       "not counted",
                       model, seq, window, (seq + window - 1) / window * window));
}

void global_projections(blocks::GraphBuilder& b, const blocks::Value& owner, const blocks::Scope& module,
                        std::int64_t hidden, graph::Operand operand) {
  for (const char* proj : {"query_global", "key_global", "value_global"})
    blocks::linear_tensors(b, owner, module / proj, hidden, hidden, true, operand);
}

}  // namespace neurarch::families::sliding_window
