// XLM-RoBERTa-XL (models/xlm_roberta_xl/modeling_xlm_roberta_xl.py, transformers 4.47.1): a
// pre-norm RoBERTa. The embeddings have no LayerNorm; each layer normalises before attention
// (attention.self_attn_layer_norm) and before the FFN (layer.LayerNorm), and encoder.LayerNorm
// closes the stack. Positions start at pad_token_id + 1; the defaults are the 3.5B XL model.
#include "families/bert_common.hpp"

namespace neurarch::families {
namespace xlm_roberta_xl_impl {
namespace {

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  static const bert::Layout layout{.prefix = "roberta",
                                   .defaults = {.vocab = 250880,
                                                .hidden = 2560,
                                                .layers = 36,
                                                .heads = 32,
                                                .intermediate = 10240,
                                                .max_positions = 514,
                                                .type_vocab = 1,
                                                .pad = 1},
                                   .heads = bert::HeadStyle::Roberta,
                                   .pooler = bert::PoolerUse::BaseOnly,
                                   .roberta_positions = true,
                                   .embedding_norm = false,
                                   .pre_norm = bert::PreNormNames{.attention = "self_attn_layer_norm",
                                                                  .ffn = "LayerNorm",
                                                                  .final = "encoder.LayerNorm"}};
  return bert::build(in, b, layout);
}

}  // namespace
}  // namespace xlm_roberta_xl_impl

const Family& xlm_roberta_xl_family() {
  static const Family family{"xlm-roberta-xl", "models/xlm_roberta_xl/modeling_xlm_roberta_xl.py",
                             classes("XLMRobertaXL", heads::kRoberta), xlm_roberta_xl_impl::build};
  return family;
}

}  // namespace neurarch::families
