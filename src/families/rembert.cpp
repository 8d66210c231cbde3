// RemBERT (models/rembert/modeling_rembert.py, transformers 4.47.1): BERT's post-norm encoder with
// decoupled embeddings. Tokens, positions and token types embed in input_embedding_size and
// encoder.embedding_hidden_mapping_in always maps them to hidden_size; the LM head maps hidden_size
// to output_embedding_size (dense, act, LayerNorm) before an untied decoder with its own bias, so
// tie_word_embeddings (default False) cannot tie widths that differ. Eager attention only; no
// relative positions; the pooler serves the base and sequence-classification classes.
#include <fmt/format.h>

#include "families/bert_common.hpp"

namespace neurarch::families {
namespace rembert_impl {
namespace {

using namespace blocks;

Value lm_head_of(const BuildInput& in, GraphBuilder& b, const bert::Trunk& t) {
  const Config& c = in.config;
  const std::int64_t output = c.dim({"output_embedding_size"}, 1664);
  Scope head = Scope("cls") / "predictions";
  auto h = dense(b, t.x, "MLM_Transform", head / "dense", t.hidden, output, true, t.activation);
  h = norm(b, h, "MLM_LayerNorm", {head / "LayerNorm"});
  // The decoder reads output_embedding_size; tying it to input_embedding_size-wide embeddings fails in
  // the reference unless the widths agree.
  const bool tie = c.flag({"tie_word_embeddings"}, false);
  auto out = lm_head(b, h, "LM_Head",
                     {.module = head / "decoder", .hidden = output, .vocab = t.vocab, .bias = true,
                      .tied_weight = tie ? t.word_embeddings : std::string()});
  if (tie && output != t.embedding)
    b.fail(out, fmt::format("tie_word_embeddings ties a {}-wide decoder to {}-wide input embeddings", output,
                            t.embedding));
  return out;
}

Value build(const BuildInput& in, GraphBuilder& b) {
  static const bert::Layout layout{
      .prefix = "rembert",
      .defaults = {.vocab = 250300, .hidden = 1152, .layers = 32, .heads = 18, .intermediate = 4608,
                   .hidden_dropout = 0.0, .attention_dropout = 0.0, .embedding_size = 256},
      .position_type_key = false,
      .embedding_size_key = "input_embedding_size",
      .embedding_projection = "encoder.embedding_hidden_mapping_in",
      .always_project = true,
      .relative_attention = false,
      .sdpa = false};
  bert::Trunk t = bert::trunk(in, b, layout);
  if (in.head == Head::MaskedLM || in.head == Head::CausalLM) return lm_head_of(in, b, t);
  return bert::heads(in, b, layout, t);
}

}  // namespace
}  // namespace rembert_impl

const Family& rembert_family() {
  static const Family family{"rembert", "models/rembert/modeling_rembert.py",
                             classes("RemBert", heads::kRoberta), rembert_impl::build};
  return family;
}

}  // namespace neurarch::families
