#include "families/clap_common.hpp"

#include "families/bert_common.hpp"

namespace neurarch::families::clap {

using namespace blocks;

namespace clap_common_impl {
namespace {

// Saves the token_type_ids buffer next to position_ids (ClapTextEmbeddings registers both persistent).
Value token_type_buffer(const BuildInput& in, GraphBuilder& b, const Value& x, const Scope& emb) {
  b.buffer(x, emb("token_type_ids"), {1, in.config.dim({"max_position_embeddings"}, 514)}, DType::I64);
  return x;
}

}  // namespace
}  // namespace clap_common_impl
using namespace clap_common_impl;

Value projection(GraphBuilder& b, const Value& x, const std::string& label, const Scope& module, std::int64_t width,
                 std::int64_t dim, const std::string& act) {
  auto h = dense(b, x, label + "_Projection_1", module / "linear1", width, dim, true, act);
  return dense(b, h, label + "_Projection_2", module / "linear2", dim, dim, true);
}

Value text_tower(const BuildInput& in, GraphBuilder& b, const Config& c) {
  static const bert::Layout layout = [] {
    bert::Layout l = bert::roberta_layout(
        "", {.vocab = 50265, .max_positions = 514, .type_vocab = 1, .hidden_dropout = 0.1, .attention_dropout = 0.1});
    l.position_ids_buffer = true;
    l.extra_embeddings = clap_common_impl::token_type_buffer;
    return l;
  }();
  const BuildInput text{c, "ClapTextModel", Head::Base, in.requested_seq, std::nullopt};
  const auto trunk = bert::trunk(text, b, layout);
  return *bert::pooler(text, b, layout, trunk);
}

}  // namespace neurarch::families::clap
