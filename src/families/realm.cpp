// REALM (models/deprecated/realm/modeling_realm.py + configuration_realm.py, transformers 4.47.1; removed in 5.x):
// BERT under `realm` (RealmBertModel: gelu_new, pad_token_id 1, eager attention only, the pooler always built)
// with two heads. RealmEmbedder projects the pooled state to retriever_proj_size (cls.dense + cls.LayerNorm); its
// RealmScorerProjection also holds a BERT LM head (cls.predictions) that forward never runs and that is not tied
// to the word embeddings (the class has no get_output_embeddings), only its decoder bias to cls.predictions.bias.
// RealmKnowledgeAugEncoder is BERT's masked-LM head, tied. Its input is every retrieved candidate joined to the
// question: a sample here is one such sequence (the caller's batch is batch x num_candidates).
// RealmScorer, RealmReader and RealmForOpenQA (which needs a retriever) are left out.
#include "families/bert_common.hpp"

namespace neurarch::families {
namespace realm_impl {
namespace {

using namespace blocks;

const bert::Layout& layout() {
  static const bert::Layout l{.prefix = "realm",
                              .always_prefixed = true,
                              .defaults = {.pad = 1, .activation = "gelu_new"},
                              .pooler = bert::PoolerUse::Always,
                              .sdpa = false};
  return l;
}

// RealmScorerProjection: dense + LayerNorm over the pooled state; the unrun LM head's tensors sit on the norm,
// which claims no compute for them.
Value embedder(const BuildInput& in, GraphBuilder& b) {
  const auto t = bert::trunk(in, b, layout());
  const auto pooled = *bert::pooler(in, b, layout(), t);
  const Scope cls("cls");
  const std::int64_t projection = in.config.dim({"retriever_proj_size"}, 128);
  auto x = dense(b, pooled, "Retriever_Projection", cls / "dense", t.hidden, projection, true);
  x = norm(b, x, "Retriever_LayerNorm", {cls / "LayerNorm"});
  const Scope predictions = cls / "predictions";
  // Never run: idle, with no gradient and no optimizer state.
  const auto idle = graph::Operand::Idle;
  b.parameter(x, predictions("bias"), {t.vocab}, graph::TensorRole::Bias, idle);
  linear_tensors(b, x, predictions / "transform" / "dense", t.hidden, t.hidden, true, idle);
  b.parameter(x, (predictions / "transform" / "LayerNorm")("weight"), {t.hidden}, graph::TensorRole::Norm, idle);
  b.parameter(x, (predictions / "transform" / "LayerNorm")("bias"), {t.hidden}, graph::TensorRole::Bias, idle);
  b.parameter(x, (predictions / "decoder")("weight"), {t.vocab, t.hidden}, graph::TensorRole::Linear, idle);
  b.tied(x, (predictions / "decoder")("bias"), {t.vocab}, predictions("bias"), graph::TensorRole::Bias, idle);
  return x;
}

Value build(const BuildInput& in, GraphBuilder& b) {
  if (in.head == Head::Base) return embedder(in, b);
  return bert::build(in, b, layout());
}

}  // namespace
}  // namespace realm_impl

const Family& realm_family() {
  static const Family family{"realm", "models/deprecated/realm/modeling_realm.py",
                             {{"RealmEmbedder", Head::Base}, {"RealmKnowledgeAugEncoder", Head::MaskedLM}}, realm_impl::build};
  return family;
}

}  // namespace neurarch::families
