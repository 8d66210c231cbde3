// BigBird (models/big_bird/modeling_big_bird.py, transformers 4.47.1): BERT's parameters with
// block-sparse attention (attention_type, block_size, num_random_blocks: no extra tensors;
// inputs are padded to a block multiple, and short ones fall back to full attention). The
// pooler is a bare Linear `pooler` and every class keeps it except QA; use_bias switches the
// q/k/v biases. Sequence classification reads the first token through dense + hidden_act +
// out_proj; the QA head runs one more intermediate/output FFN block before qa_outputs.
#include <fmt/format.h>

#include "families/bert_common.hpp"

namespace neurarch::families {
namespace big_bird_impl {
namespace {

using namespace blocks;

Value qa_head(const BuildInput& in, GraphBuilder& b, const bert::Trunk& t) {
  Scope head("qa_classifier");
  FeedForwardSpec ffn{.hidden = t.hidden, .intermediate = t.intermediate,
                      .activation = t.activation, .module = head, .up = head / "intermediate" / "dense",
                      .down = head / "output" / "dense"};
  auto h = feed_forward(b, t.x, "QA_FFN", ffn);
  h = add(b, h, t.x, "QA_Add");
  h = norm(b, h, "QA_LayerNorm", {head / "output" / "LayerNorm"});
  const std::int64_t labels = in.num_labels();
  auto out = classifier(b, h, "QA_Outputs", head / "qa_outputs", t.hidden, labels, true);
  if (labels != 2)
    b.fail(out, fmt::format("the QA head splits its {} outputs into start and end logits; it needs num_labels = 2",
                            labels));
  return out;
}

Value build(const BuildInput& in, GraphBuilder& b) {
  // BigBirdConfig: the bigbird-roberta-base sizes, 4096 positions, gelu_new.
  static const bert::Layout layout{.prefix = "bert",
                                   .defaults = {.vocab = 50358, .max_positions = 4096, .activation = "gelu_new"},
                                   .heads = bert::HeadStyle::BertWithFirstTokenClassifier,
                                   .pooler = bert::PoolerUse::AllButQuestionAnswering,
                                   .pooler_module = "pooler",
                                   .relative_attention = false,
                                   .qkv_bias_from_use_bias = true};
  const Config& c = in.config;
  bert::Trunk t = bert::trunk(in, b, layout);

  const std::string attention_type = c.text({"attention_type"}, "block_sparse");
  const std::int64_t block = c.dim({"block_size"}, 64);
  const std::int64_t random_blocks = c.integer({"num_random_blocks"}, 3);
  if (attention_type == "block_sparse" && t.seq <= (5 + 2 * random_blocks) * block)
    b.note(fmt::format("block-sparse attention needs more than {} tokens; this {}-token input runs full attention",
                       (5 + 2 * random_blocks) * block, t.seq));

  if (in.head == Head::QuestionAnswering) return qa_head(in, b, t);
  return bert::heads(in, b, layout, t);
}

}  // namespace
}  // namespace big_bird_impl

const Family& big_bird_family() {
  static const Family family{"big_bird", "models/big_bird/modeling_big_bird.py",
                             classes("BigBird", {heads::ForPreTraining, heads::ForMaskedLM, heads::ForCausalLM, heads::ForSequenceClassification, heads::ForTokenClassification, heads::ForQuestionAnswering}),
                             big_bird_impl::build};
  return family;
}

}  // namespace neurarch::families
