// ELECTRA (models/electra/modeling_electra.py, transformers 4.47.1): BERT's encoder with
// embeddings of embedding_size, projected to hidden_size (electra.embeddings_project) only when
// the two differ, and no pooler. The generator head (ForMaskedLM / ForCausalLM) maps back to
// embedding_size before an lm head tied to the word embeddings that keeps its own bias; the
// discriminator (ForPreTraining) scores each token with one logit; sequence classification
// reads the first token through dense + gelu + out_proj. Defaults are the small generator.
#include "families/bert_common.hpp"

namespace neurarch::families {
namespace electra_impl {
namespace {

using namespace blocks;

Value build(const BuildInput& in, GraphBuilder& b) {
  static const bert::Layout layout{
      .prefix = "electra",
      .defaults = {.hidden = 256, .heads = 4, .intermediate = 1024, .embedding_size = 128},
      .pooler = bert::PoolerUse::Never};
  bert::Trunk t = bert::trunk(in, b, layout);
  switch (in.head) {
    case Head::PreTraining: {
      auto h = dense(b, t.x, "Discriminator_Transform", Scope("discriminator_predictions") / "dense", t.hidden,
                     t.hidden, true, t.activation);
      // One replaced-token logit per position: [seq, 1] squeezed to [seq].
      auto out = b.node(graph::NodeType::Classifier, "Discriminator_Head", {t.seq}, {h},
                        Scope("discriminator_predictions") / "dense_prediction");
      linear_tensors(b, out, Scope("discriminator_predictions") / "dense_prediction", t.hidden, 1, true);
      return out;
    }
    case Head::MaskedLM:
    case Head::CausalLM: {
      Scope gen("generator_predictions");
      auto h = dense(b, t.x, "MLM_Transform", gen / "dense", t.hidden, t.embedding, true, "gelu");
      h = norm(b, h, "MLM_LayerNorm", {gen / "LayerNorm"});
      const bool tie = in.config.flag({"tie_word_embeddings"}, true);
      return lm_head(b, h, "LM_Head",
                     {.module = Scope("generator_lm_head"), .hidden = t.embedding, .vocab = t.vocab, .bias = true,
                      .tied_weight = tie ? t.word_embeddings : std::string()});
    }
    case Head::SequenceClassification: {
      auto pooled = pooler(b, t.x, "Classifier_Dense", Scope("classifier") / "dense", t.hidden, "gelu");
      return classifier(b, pooled, "Classifier", Scope("classifier") / "out_proj", t.hidden, in.num_labels(), true);
    }
    case Head::TokenClassification:
      return classifier(b, t.x, "Classifier", Scope("classifier"), t.hidden, in.num_labels(), true);
    case Head::QuestionAnswering:
      return bert::qa_head(b, t.x, t.hidden, in.num_labels());
    default:
      return t.x;
  }
}

}  // namespace
}  // namespace electra_impl

const Family& electra_family() {
  static const Family family{"electra", "models/electra/modeling_electra.py",
                             classes("Electra",
                                     {heads::ForPreTraining, heads::ForMaskedLM, heads::ForCausalLM, heads::ForSequenceClassification, heads::ForTokenClassification, heads::ForQuestionAnswering}),
                             electra_impl::build};
  return family;
}

}  // namespace neurarch::families
