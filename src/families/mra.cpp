// MRA (models/mra/modeling_mra.py, transformers 4.47.1): BERT's tensors with multi-resolution
// block attention (block_per_row, approx_mode: no tensors), computed only by MRA's custom CUDA
// kernels. Positions use max_position_embeddings + 2 rows numbered from 2, and unlike its
// relatives MRA saves embeddings.position_ids (int64, [1, max_position_embeddings]). No pooler,
// no cross-attention; YOSO-style heads, QA forced to 2 labels.
#include "families/bert_common.hpp"

namespace neurarch::families {
namespace mra_impl {
namespace {

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  // MraConfig: 512 positions, one token type, RoBERTa's vocabulary and pad id.
  static const bert::Layout layout{.prefix = "mra",
                                   .defaults = {.vocab = 50265, .type_vocab = 1, .pad = 1},
                                   .heads = bert::HeadStyle::BertWithFirstTokenClassifier,
                                   .pooler = bert::PoolerUse::Never,
                                   .qa_forces_two_labels = true,
                                   .position_start = 2,
                                   .position_ids_buffer = true,
                                   .relative_attention = false,
                                   .cross_attention = false};
  b.note("MRA attention runs only through its custom CUDA kernels");
  return bert::build(in, b, layout);
}

}  // namespace
}  // namespace mra_impl

const Family& mra_family() {
  static const Family family{"mra", "models/mra/modeling_mra.py", classes("Mra", heads::kEncoder), mra_impl::build};
  return family;
}

}  // namespace neurarch::families
