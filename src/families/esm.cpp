// ESM (models/esm/modeling_esm.py, transformers 4.47.1; rotary positions as in 5.24.0): a pre-norm BERT without
// token types.
// Each attention normalises its input (attention.LayerNorm), each FFN its own (layer.LayerNorm), and
// encoder.emb_layer_norm_after closes the stack; embeddings.layer_norm exists only with
// emb_layer_norm_before, and the embeddings have no dropout. position_embedding_type "rotary"
// (ESM-2) drops the position table and keeps one persistent esm.rotary_embeddings.inv_freq, as transformers 5
// builds it (4.x built the unused table anyway and an inv_freq per attention: published ESM-2 files, saved by 4.x,
// hold both; 5.x ignores them on load). The base
// model always holds contact_head.regression (layers x heads attention maps -> one logit), run
// only by predict_contacts. The LM head's decoder has no bias of its own, only lm_head.bias.
#include "families/bert_common.hpp"

namespace neurarch::families {
namespace esm_impl {
namespace {

using namespace blocks;

const bert::Layout& esm_layout() {
  // EsmConfig leaves vocab_size and pad_token_id to the checkpoint; the ESM alphabet has 33 tokens
  // with <pad> at 1. The FFN's gelu is hard-coded (the config has no hidden_act).
  static const bert::Layout layout{
      .prefix = "esm",
      .defaults = {.vocab = 33, .max_positions = 1026, .pad = 1},
      .heads = bert::HeadStyle::Roberta,
      .pooler = bert::PoolerUse::BaseOnly,
      .token_types = false,
      .roberta_positions = true,
      .embedding_norm = false,
      .position_table_always = false,
      .rotary_positions = true,
      .pre_norm = bert::PreNormNames{.attention = "LayerNorm", .ffn = "LayerNorm", .final = "encoder.emb_layer_norm_after"},
      .cross_attention_follows_config = true,
      .extra_embeddings = [](const BuildInput& in, GraphBuilder& b, const Value& x, const Scope& emb) {
        if (!in.config.flag({"emb_layer_norm_before"}, false)) return x;
        return norm(b, x, "Embedding_LayerNorm", {emb / "layer_norm"});
      }};
  return layout;
}

Value mlm_head(const BuildInput& in, GraphBuilder& b, const bert::Trunk& t) {
  Scope head("lm_head");
  auto h = dense(b, t.x, "MLM_Transform", head / "dense", t.hidden, t.hidden, true, "gelu");
  h = norm(b, h, "MLM_LayerNorm", {head / "layer_norm"});
  const bool tie = in.config.flag({"tie_word_embeddings"}, true);
  return lm_head(b, h, "LM_Head",
                 {.module = head / "decoder", .hidden = t.hidden, .vocab = t.vocab, .bias = false,
                  .tied_weight = tie ? t.word_embeddings : std::string(), .extra_bias = head("bias")});
}

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config& c = in.config;
  const bert::Layout& layout = esm_layout();
  bert::Trunk t = bert::trunk(in, b, layout);
  if (c.flag({"is_folding_model"}, false))
    b.note("is_folding_model: only the ESM-2 language model is built, not ESMFold's folding trunk");
  // Stored on the last norm, which claims no compute for them: the forward never runs this head.
  const std::int64_t maps = c.dim({"num_hidden_layers"}, layout.defaults.layers) *
                            c.dim({"num_attention_heads"}, layout.defaults.heads);
  linear_tensors(b, t.x, t.root / "contact_head" / "regression", maps, 1, true, graph::Operand::Idle);
  if (in.head == Head::MaskedLM) return mlm_head(in, b, t);
  return bert::heads(in, b, layout, t);
}

}  // namespace
}  // namespace esm_impl

const Family& esm_family() {
  static const Family family{"esm", "models/esm/modeling_esm.py",
                             classes("Esm",
                                     {heads::ForMaskedLM, heads::ForSequenceClassification, heads::ForTokenClassification}),
                             esm_impl::build};
  return family;
}

}  // namespace neurarch::families
