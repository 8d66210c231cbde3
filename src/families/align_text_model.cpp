// ALIGN's text encoder alone (models/align/modeling_align.py, transformers 5.24): AlignTextModel is ALIGN's BERT
// (align_common.hpp) with its modules at the root; pooler_output is the tanh-pooled first token.
#include "families/align_common.hpp"

namespace neurarch::families {
namespace align_text_model_impl {
namespace {

using namespace blocks;

Value build(const BuildInput& in, GraphBuilder& b) {
  auto t = bert::trunk(in, b, align::kTextLayout);
  return bert::pooler(in, b, align::kTextLayout, t).value_or(t.x);
}

}  // namespace
}  // namespace align_text_model_impl

const Family& align_text_model_family() {
  static const Family family{"align_text_model", "models/align/modeling_align.py", classes("AlignText"), align_text_model_impl::build};
  return family;
}

}  // namespace neurarch::families
