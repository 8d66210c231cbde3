// TAPAS (models/tapas/modeling_tapas.py, transformers 4.47.1): BERT for tables. Instead of one
// token-type table it adds one per entry of type_vocab_sizes (segment, column, row, rank,
// ...: token_type_embeddings_0..6); positions (1024 by default) are always absolute. MLM uses
// BERT's cls.* head without pooler; the other classes keep the pooler. The QA head scores every
// token as a cell (output_weights/bias) and column (column_output_*, scalar biases), and with
// num_aggregation_labels > 0 classifies the pooled output into an aggregation operator.
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "families/bert_common.hpp"

namespace neurarch::families {
namespace tapas_impl {
namespace {

using namespace blocks;

std::vector<std::int64_t> type_vocab_sizes(const Config& c) {
  std::vector<std::int64_t> out;
  if (const auto* sizes = c.raw({"type_vocab_sizes"}); sizes && sizes->is_array()) {
    for (const auto& s : *sizes)
      if (s.is_number_integer()) out.push_back(s.get<std::int64_t>());
    return out;
  }
  return {3, 256, 256, 2, 256, 256, 10};  // TapasConfig's default
}

Value table_token_types(const BuildInput& in, GraphBuilder& b, const Value& x, const Scope& emb) {
  Value out = x;
  const auto sizes = type_vocab_sizes(in.config);
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    out = added_embedding(b, out, fmt::format("Token_Type_Embedding_{}", i),
                          emb / fmt::format("token_type_embeddings_{}", i), std::max<std::int64_t>(sizes[i], 0),
                          x.shape.back());
    if (sizes[i] <= 0) b.fail(out, fmt::format("type_vocab_sizes[{}] = {} is not a table size", i, sizes[i]));
  }
  return out;
}

Value cell_selection(const BuildInput& in, GraphBuilder& b, const bert::Trunk& t, const Value& pooled) {
  auto cells = b.node(graph::NodeType::Classifier, "Cell_Selection_Head", {t.seq}, {t.x});
  b.parameter(cells, "output_weights", {t.hidden}, graph::TensorRole::Other);
  b.parameter(cells, "output_bias", {}, graph::TensorRole::Bias);
  b.parameter(cells, "column_output_weights", {t.hidden}, graph::TensorRole::Other);
  b.parameter(cells, "column_output_bias", {}, graph::TensorRole::Bias);
  if (const std::int64_t ops = in.config.integer({"num_aggregation_labels"}, 0); ops > 0)
    classifier(b, pooled, "Aggregation_Head", Scope("aggregation_classifier"), t.hidden, ops, true);
  return cells;
}

Value build(const BuildInput& in, GraphBuilder& b) {
  static const bert::Layout layout{.prefix = "tapas",
                                   .defaults = {.max_positions = 1024},
                                   .pooler = bert::PoolerUse::AllButLanguageModels,
                                   .token_types = false,
                                   .position_type_key = false,
                                   .relative_attention = false,
                                   .extra_embeddings = table_token_types};
  bert::Trunk t = bert::trunk(in, b, layout);
  if (in.head != Head::QuestionAnswering) return bert::heads(in, b, layout, t);
  auto pooled = bert::pooler(in, b, layout, t);
  return cell_selection(in, b, t, *pooled);
}

}  // namespace
}  // namespace tapas_impl

const Family& tapas_family() {
  static const Family family{"tapas", "models/tapas/modeling_tapas.py",
                             classes("Tapas",
                                     {heads::ForMaskedLM, heads::ForSequenceClassification, heads::ForQuestionAnswering}),
                             tapas_impl::build};
  return family;
}

}  // namespace neurarch::families
