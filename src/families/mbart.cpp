// mBART (models/mbart/modeling_mbart.py + configuration_mbart.py, transformers 4.47.1): BART with
// pre-norm layers and a layer_norm after each stack; learned positions keep BART's offset of 2.
#include "families/bart_common.hpp"

namespace neurarch::families {
namespace mbart_impl {
namespace {
graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  return bart::build(in, b, {.pre_norm = true});
}
}  // namespace
}  // namespace mbart_impl

const Family& mbart_family() {
  static const Family family{"mbart", "models/mbart/modeling_mbart.py",
                             classes("MBart",
                                     {heads::ForConditionalGeneration, heads::ForSequenceClassification, heads::ForQuestionAnswering, heads::ForCausalLM}),
                             mbart_impl::build};
  return family;
}

}  // namespace neurarch::families
