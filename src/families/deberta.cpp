// DeBERTa (models/deberta/modeling_deberta.py + configuration_deberta.py, transformers 4.47.1): see
// deberta_common.hpp. v1 fuses q/k/v in one bias-free in_proj with separate q_bias and v_bias,
// projects relative positions with pos_proj (c2p, no bias) and pos_q_proj (p2c), and keeps
// 2 * max_relative_positions rows of relative embeddings. Defaults are deberta-base's sizes with
// relative attention off.
#include "families/deberta_common.hpp"

namespace neurarch::families {
namespace deberta_impl {
namespace {

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  return deberta::build(in, b, deberta::Version::V1,
                        {.vocab = 50265, .hidden = 768, .layers = 12, .heads = 12, .intermediate = 3072});
}

}  // namespace
}  // namespace deberta_impl

const Family& deberta_family() {
  static const Family family{"deberta", "models/deberta/modeling_deberta.py",
                             classes("Deberta", heads::kEncoder), deberta_impl::build};
  return family;
}

}  // namespace neurarch::families
