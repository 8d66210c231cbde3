// LUKE (models/luke/modeling_luke.py, transformers 4.47.1): RoBERTa's word stream (positions from
// pad_token_id + 1, lm_head, a pooler in every class built here) plus an entity stream that runs only
// when entity_ids are passed: entity_embeddings (entity_emb_size wide, entity_embedding_dense to hidden
// when the widths differ, their own positions, token types and LayerNorm) and, with
// use_entity_aware_attention, w2e / e2w / e2e queries in every attention. The graph models the word
// stream (what these classes run without entity inputs; sequence classification reads the pooled first
// token); the entity tables, entity-aware queries and
// ForMaskedLM's entity_predictions head are stored weights on nodes that claim no compute.
#include "families/bert_common.hpp"

namespace neurarch::families {
namespace luke_impl {
namespace {

using namespace blocks;

constexpr std::int64_t kEntityWidth = 256;

Value entity_tables(const BuildInput& in, GraphBuilder& b, const Value& x, const Scope& emb) {
  const Config& c = in.config;
  const std::int64_t hidden = c.dim({"hidden_size"}, 768);
  const std::int64_t width = c.dim({"entity_emb_size"}, kEntityWidth);
  const std::string& path = emb.path();  // "<root>.embeddings" or "embeddings"
  const Scope entity = path.size() > 11 ? Scope(path.substr(0, path.size() - 11)) / "entity_embeddings"
                                        : Scope("entity_embeddings");
  // Idle without entity inputs: no gradient, no optimizer state (128M values at the default entity vocabulary).
  const auto idle = graph::Operand::Idle;
  b.parameter(x, (entity / "entity_embeddings")("weight"), {c.dim({"entity_vocab_size"}, 500000), width},
              graph::TensorRole::Embedding, idle);
  if (width != hidden)
    b.parameter(x, (entity / "entity_embedding_dense")("weight"), {hidden, width}, graph::TensorRole::Linear, idle);
  b.parameter(x, (entity / "position_embeddings")("weight"), {c.dim({"max_position_embeddings"}, 512), hidden},
              graph::TensorRole::Embedding, idle);
  b.parameter(x, (entity / "token_type_embeddings")("weight"), {c.dim({"type_vocab_size"}, 2), hidden},
              graph::TensorRole::Embedding, idle);
  b.parameter(x, (entity / "LayerNorm")("weight"), {hidden}, graph::TensorRole::Norm, idle);
  b.parameter(x, (entity / "LayerNorm")("bias"), {hidden}, graph::TensorRole::Bias, idle);
  return x;
}

// The entity-aware queries go on the attention's input node: without entities they never run.
void entity_queries(const BuildInput& in, GraphBuilder& b, const Value& attention, const Scope& self, std::int64_t) {
  if (!in.config.flag({"use_entity_aware_attention"}, true)) return;
  const std::int64_t hidden = in.config.dim({"hidden_size"}, 768);
  const Value owner{b.at(attention).inputs.at(0), {}};
  for (const char* query : {"w2e_query", "e2w_query", "e2e_query"})
    linear_tensors(b, owner, self / query, hidden, hidden, true, graph::Operand::Idle);
}

Value build(const BuildInput& in, GraphBuilder& b) {
  static const bert::Layout layout{.prefix = "luke",
                                   .defaults = {.vocab = 50267, .pad = 1},
                                   .heads = bert::HeadStyle::Roberta,
                                   .pooler = bert::PoolerUse::AllButQuestionAnswering,
                                   .roberta_positions = true,
                                   .position_type_key = false,
                                   .relative_attention = false,
                                   .cross_attention = false,
                                   .sdpa = false,
                                   .extra_embeddings = entity_tables,
                                   .attention_extras = entity_queries};
  b.note("LUKE's entity stream (entity_ids, entity-aware attention) is not modelled: the graph runs the word tokens, "
         "and the entity weights are counted as stored");
  bert::Trunk t = bert::trunk(in, b, layout);
  if (in.head == Head::MaskedLM) {
    // EntityPredictionHead: transform to entity_emb_size, decoder tied to the entity table, own bias.
    const Config& c = in.config;
    const std::int64_t width = c.dim({"entity_emb_size"}, kEntityWidth);
    const std::int64_t entities = c.dim({"entity_vocab_size"}, 500000);
    const Scope head("entity_predictions");
    const auto idle = graph::Operand::Idle;  // runs only on entity inputs
    linear_tensors(b, t.x, head / "transform" / "dense", t.hidden, width, true, idle);
    b.parameter(t.x, (head / "transform" / "LayerNorm")("weight"), {width}, graph::TensorRole::Norm, idle);
    b.parameter(t.x, (head / "transform" / "LayerNorm")("bias"), {width}, graph::TensorRole::Bias, idle);
    const std::string table = (t.root / "entity_embeddings" / "entity_embeddings")("weight");
    // LukeForMaskedLM.tie_weights ties the entity decoder whatever tie_word_embeddings says.
    b.tied(t.x, (head / "decoder")("weight"), {entities, width}, table, graph::TensorRole::Linear, idle);
    b.parameter(t.x, head("bias"), {entities}, graph::TensorRole::Bias, idle);
  }
  if (in.head == Head::SequenceClassification) {
    // The classifier reads the pooled first token, BERT-style, under RoBERTa's other heads.
    auto pooled = bert::pooler(in, b, layout, t);
    return classifier(b, *pooled, "Classifier", Scope("classifier"), t.hidden, in.num_labels(), true);
  }
  return bert::heads(in, b, layout, t);
}

}  // namespace
}  // namespace luke_impl

const Family& luke_family() {
  static const Family family{"luke", "models/luke/modeling_luke.py",
                             classes("Luke", {heads::ForMaskedLM, heads::ForSequenceClassification}), luke_impl::build};
  return family;
}

}  // namespace neurarch::families
