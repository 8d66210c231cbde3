// YOSO (models/yoso/modeling_yoso.py, transformers 4.47.1): BERT's tensors with LSH-sampled
// attention (hash settings add no tensors; conv_window adds a depthwise conv per attention
// over the values). Positions use max_position_embeddings + 2 rows numbered from 2, always
// added; no pooler and no cross-attention. cls.predictions for MLM, classifier.dense +
// hidden_act + out_proj on the first token for sequence classification; the QA class forces
// num_labels to 2.
#include <fmt/format.h>

#include "families/bert_common.hpp"

namespace neurarch::families {
namespace yoso_impl {
namespace {

void value_conv(const BuildInput& in, graph::GraphBuilder& b, const graph::Value& attention, const graph::Scope& self,
                std::int64_t heads) {
  if (!in.config.has("conv_window")) return;
  b.parameter(attention, self("conv.weight"), {heads, 1, in.config.dim({"conv_window"}), 1}, graph::TensorRole::Conv);
}

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  // YosoConfig: 4096 positions, one token type, RoBERTa's vocabulary and pad id.
  static const bert::Layout layout{.prefix = "yoso",
                                   .defaults = {.vocab = 50265, .max_positions = 4096, .type_vocab = 1, .pad = 1},
                                   .heads = bert::HeadStyle::BertWithFirstTokenClassifier,
                                   .pooler = bert::PoolerUse::Never,
                                   .qa_forces_two_labels = true,
                                   .position_start = 2,
                                   .position_type_key = false,
                                   .relative_attention = false,
                                   .cross_attention = false,
                                   .attention_extras = value_conv};
  if (!in.config.flag({"use_expectation"}, true))
    b.note("use_expectation=false samples hashes with YOSO's custom CUDA kernels, which must be available");
  return bert::build(in, b, layout);
}

}  // namespace
}  // namespace yoso_impl

const Family& yoso_family() {
  static const Family family{"yoso", "models/yoso/modeling_yoso.py", classes("Yoso", heads::kEncoder), yoso_impl::build};
  return family;
}

}  // namespace neurarch::families
