// Longformer (models/longformer/modeling_longformer.py, transformers 4.47.1): RoBERTa's embeddings,
// heads and post-norm layers with sliding-window self-attention (families/sliding_window.hpp):
// attention_window (an int for every layer, or one per layer) must be even, and the input is padded
// to a multiple of its largest entry. Every self-attention also holds query_global / key_global /
// value_global for tokens given global attention: the classification head gives it to the first
// token and the QA head to the question's tokens by default, the other classes to none. No
// cross-attention, no SDPA path, position_embedding_type is not read.
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "families/bert_common.hpp"
#include "families/config_lists.hpp"
#include "families/sliding_window.hpp"

namespace neurarch::families {
namespace longformer_impl {
namespace {

using namespace blocks;

constexpr std::int64_t kDefaultLayers = 12;

std::vector<std::int64_t> attention_windows(const Config& c) {
  const std::int64_t layers = c.dim({"num_hidden_layers"}, kDefaultLayers);
  if (const auto* w = c.raw({"attention_window"}); w && w->is_array()) {
    auto windows = size_list(c, "attention_window", {});
    require_length(c, "attention_window", windows, static_cast<std::size_t>(layers));
    return windows;
  }
  return std::vector<std::int64_t>(static_cast<std::size_t>(layers), c.integer({"attention_window"}, 512));
}

bool global_by_default(Head head) { return head == Head::SequenceClassification || head == Head::QuestionAnswering; }

void longformer_attention(const BuildInput& in, GraphBuilder& b, const Value& attention, const Scope& self,
                          std::int64_t) {
  const auto layer = static_cast<std::size_t>(b.at(attention).block);
  const auto windows = attention_windows(in.config);
  sliding_window::apply(b, attention, windows.at(layer), static_cast<std::int64_t>(layer), "Longformer");
  // Without global tokens the projections never run: the layer's input norm holds them, claiming no compute.
  const bool global = global_by_default(in.head);
  const Value owner = global ? attention : Value{b.at(attention).inputs.at(0), {}};
  sliding_window::global_projections(b, owner, self, b.at(attention).out.back(),
                                     global ? graph::Operand::Input : graph::Operand::Idle);
}

Value build(const BuildInput& in, GraphBuilder& b) {
  static const bert::Layout layout{.prefix = "longformer",
                                   .defaults = {.pad = 1},
                                   .heads = bert::HeadStyle::Roberta,
                                   .pooler = bert::PoolerUse::BaseOnly,
                                   .roberta_positions = true,
                                   .position_type_key = false,
                                   .relative_attention = false,
                                   .cross_attention = false,
                                   .sdpa = false,
                                   .attention_extras = longformer_attention};
  if (global_by_default(in.head))
    b.note(fmt::format("{} gives {} global attention by default: query_global/key_global/value_global are counted as "
                       "computed over every token, and the global tokens' extra scores are not",
                       in.class_name, in.head == Head::QuestionAnswering ? "the question's tokens" : "the first token"));
  else
    b.note("Longformer's query_global/key_global/value_global are counted as weights only: they run for tokens given "
           "global attention, none unless global_attention_mask is passed");
  return bert::build(in, b, layout);
}

}  // namespace
}  // namespace longformer_impl

const Family& longformer_family() {
  static const Family family{"longformer", "models/longformer/modeling_longformer.py",
                             classes("Longformer", heads::kEncoder), longformer_impl::build};
  return family;
}

}  // namespace neurarch::families
