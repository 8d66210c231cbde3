#pragma once
// XLM's encoder, shared with FlauBERT (which copies it and adds pre_norm and layerdrop): token,
// position and optional language embeddings, then ModuleLists of attentions (q_lin/k_lin/v_lin/
// out_lin), layer_norm1, ffns (lin1/lin2) and layer_norm2 under the base model, and the heads
// pred_layer.proj (tied, own bias), sequence_summary, classifier and qa_outputs.
#include "families/family.hpp"

namespace neurarch::families::xlm {

struct Options {
  bool pre_norm_key = false;  ///< FlauBERT reads pre_norm (norms before each sublayer, none after the stack)
};

graph::Value build(const BuildInput& in, graph::GraphBuilder& b, const Options& options);

}  // namespace neurarch::families::xlm
