// DeBERTa-v2 / v3 (models/deberta_v2/modeling_deberta_v2.py + configuration_deberta_v2.py,
// transformers 4.47.1): see deberta_common.hpp. Separate query_proj/key_proj/value_proj; relative
// positions reuse them when share_att_key, else get pos_key_proj (c2p) and pos_query_proj (p2c).
// position_buckets > 0 sizes the relative table at 2 * buckets (v3: 512 rows); norm_rel_ebd
// "layer_norm" adds encoder.LayerNorm; conv_kernel_size > 0 adds encoder.conv after layer 0.
// Defaults are deberta-v2-xlarge's sizes with relative attention off.
#include "families/deberta_common.hpp"

namespace neurarch::families {
namespace deberta_v2_impl {
namespace {

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  return deberta::build(in, b, deberta::Version::V2,
                        {.vocab = 128100, .hidden = 1536, .layers = 24, .heads = 24, .intermediate = 6144});
}

}  // namespace
}  // namespace deberta_v2_impl

const Family& deberta_v2_family() {
  static const Family family{"deberta-v2", "models/deberta_v2/modeling_deberta_v2.py",
                             classes("DebertaV2", heads::kEncoder), deberta_v2_impl::build};
  return family;
}

}  // namespace neurarch::families
