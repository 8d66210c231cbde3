// Chinese-CLIP's text encoder alone (models/chinese_clip/modeling_chinese_clip.py, transformers 5.24):
// ChineseCLIPTextModel is BERT under BERT-base's defaults with its modules at the root; built alone it keeps the
// tanh pooler (add_pooling_layer defaults to true) that ChineseCLIPModel leaves out.
#include "families/bert_common.hpp"

namespace neurarch::families {
namespace chinese_clip_text_model_impl {
namespace {

using namespace blocks;

Value build(const BuildInput& in, GraphBuilder& b) {
  static const bert::Layout layout{.prefix = "", .defaults = {}, .pooler = bert::PoolerUse::BaseOnly};
  auto t = bert::trunk(in, b, layout);
  return bert::pooler(in, b, layout, t).value_or(t.x);
}

}  // namespace
}  // namespace chinese_clip_text_model_impl

const Family& chinese_clip_text_model_family() {
  static const Family family{"chinese_clip_text_model", "models/chinese_clip/modeling_chinese_clip.py",
                             classes("ChineseCLIPText"), chinese_clip_text_model_impl::build};
  return family;
}

}  // namespace neurarch::families
