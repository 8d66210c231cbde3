// RAG (models/rag/modeling_rag.py + configuration_rag.py, transformers 4.47.1): a composite of two registered models
// built by their own families from the config's sub-configs, the way RagModel does: the `question_encoder`
// (AutoModel: DPR's DPRQuestionEncoder by default) under `question_encoder` and the `generator`
// (AutoModelForSeq2SeqLM: BartForConditionalGeneration by default) under `generator`. The generation classes keep
// RagModel under `rag`; their marginalisation over the retrieved documents has no parameters. The retriever is not
// part of the model: its documents come in as context_input_ids (each retrieved passage joined to the question,
// max_combined_length tokens). A sample here is one question with one retrieved context: the reference runs n_docs
// contexts per question (the caller's batch is questions x n_docs), and the doc-score product between the question
// embedding and the n_docs retrieved embeddings (n_docs x retrieval_vector_size per question) is left out.
#include "families/encoder_decoder_common.hpp"

namespace neurarch::families {
namespace rag_impl {
namespace {

using blocks::GraphBuilder;
using blocks::Value;

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config& c = in.config;
  const std::string owner = in.class_name;
  const Config question_config = encoder_decoder::sub_config(c, "question_encoder", owner);
  const Config generator_config = encoder_decoder::sub_config(c, "generator", owner);
  const auto [question_family, question_class] =
      encoder_decoder::find_part(question_config, Head::Base, "question encoder");
  const auto [generator_family, generator_class] =
      encoder_decoder::find_part(generator_config, Head::Seq2SeqLM, "generator");
  const std::string root = in.head == Head::Base ? "" : "rag.";
  // --seq sizes the question and the contexts; by default both are max_combined_length long.
  const std::int64_t length = in.requested_seq ? *in.requested_seq : c.dim({"max_combined_length"}, 300);

  {
    graph::Nested nest(b, {.module = root + "question_encoder", .label = "Question_", .first_block = 0});
    question_family->build({question_config, std::string(question_class->name), Head::Base, length,
                            in.requested_image_size},
                           b);
  }
  graph::Nested nest(b, {.module = root + "generator", .label = "Generator_", .first_block = b.next_block()});
  return generator_family->build({generator_config, std::string(generator_class->name), Head::Seq2SeqLM, length,
                                  in.requested_image_size, in.requested_target_seq},
                                 b);
}

}  // namespace
}  // namespace rag_impl

const Family& rag_family() {
  static const Family family{"rag",
                             "models/rag/modeling_rag.py",
                             {{"RagModel", Head::Base},
                              {"RagTokenForGeneration", Head::Seq2SeqLM},
                              {"RagSequenceForGeneration", Head::Seq2SeqLM}},
                             rag_impl::build};
  return family;
}

}  // namespace neurarch::families
