// FLAVA's text encoder alone (models/flava/modeling_flava.py, transformers 5.24): FlavaTextModel is BERT's
// embeddings and ViT-named pre-norm layers, `layernorm` and a tanh `pooler`, modules at the root
// (flava_common.hpp); pooler_output is the pooled first token.
#include "families/flava_common.hpp"

namespace neurarch::families {
namespace flava_text_model_impl {
namespace {

using namespace blocks;

Value build(const BuildInput& in, GraphBuilder& b) { return flava::text_model(in, b, in.config, Scope(), 0).states; }

}  // namespace
}  // namespace flava_text_model_impl

const Family& flava_text_model_family() {
  static const Family family{"flava_text_model", "models/flava/modeling_flava.py", classes("FlavaText"), flava_text_model_impl::build};
  return family;
}

}  // namespace neurarch::families
