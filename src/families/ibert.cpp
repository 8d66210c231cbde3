// I-BERT (models/ibert/modeling_ibert.py, transformers 4.47.1): RoBERTa (embeddings from
// pad_token_id + 1, lm_head, classifier.dense/out_proj, pooler in the base class only) built from
// quantisation-aware modules whose calibration state is saved whether quant_mode is on or off: every
// QuantEmbedding and QuantLinear keeps an integer copy of its weight (weight_integer, fp32, as large as
// the weight) with its scaling factors, every QuantAct an x_min / x_max / act_scaling_factor, every
// IntLayerNorm a shift. Only "absolute" positions; no cross-attention; eager attention only. With
// quant_mode off the forward runs the float path, which is what the graph counts.
#include <fmt/format.h>

#include "families/bert_common.hpp"

namespace neurarch::families {
namespace ibert_impl {
namespace {

using namespace blocks;

/// QuantAct's running range and scale.
void quant_act(GraphBuilder& b, const Value& owner, const Scope& module) {
  for (const char* name : {"x_min", "x_max", "act_scaling_factor"}) b.buffer(owner, module(name), {1}, DType::F32);
}

/// QuantLinear's integer weight and bias with the per-output-channel scale.
void quant_linear(GraphBuilder& b, const Value& owner, const Scope& module, std::int64_t in, std::int64_t out) {
  b.buffer(owner, module("weight_integer"), {out, in}, DType::F32);
  b.buffer(owner, module("fc_scaling_factor"), {out}, DType::F32);
  b.buffer(owner, module("bias_integer"), {out}, DType::F32);
}

/// IntLayerNorm's shift and its output QuantAct.
void int_layer_norm(GraphBuilder& b, const Value& owner, const Scope& module) {
  b.buffer(owner, module("shift"), {1}, DType::F32);
  quant_act(b, owner, module / "activation");
}

/// The QuantLinear's residual block: dense, ln_input_act, IntLayerNorm, output_activation.
void quant_output_block(GraphBuilder& b, const Value& owner, const Scope& output, std::int64_t in, std::int64_t out) {
  quant_linear(b, owner, output / "dense", in, out);
  quant_act(b, owner, output / "ln_input_act");
  int_layer_norm(b, owner, output / "LayerNorm");
  quant_act(b, owner, output / "output_activation");
}

Value quant_embeddings(const BuildInput& in, GraphBuilder& b, const Value& x, const Scope& emb) {
  const Config& c = in.config;
  const std::int64_t hidden = c.dim({"hidden_size"}, 768);
  const std::pair<const char*, std::int64_t> tables[] = {{"word_embeddings", c.dim({"vocab_size"}, 30522)},
                                                         {"token_type_embeddings", c.dim({"type_vocab_size"}, 2)},
                                                         {"position_embeddings", c.dim({"max_position_embeddings"}, 512)}};
  for (const auto& [table, rows] : tables) {
    b.buffer(x, (emb / table)("weight_scaling_factor"), {1}, DType::F32);
    b.buffer(x, (emb / table)("weight_integer"), {rows, hidden}, DType::F32);
  }
  quant_act(b, x, emb / "embeddings_act1");
  quant_act(b, x, emb / "embeddings_act2");
  int_layer_norm(b, x, emb / "LayerNorm");
  quant_act(b, x, emb / "output_activation");
  if (const std::string type = c.text({"position_embedding_type"}, "absolute"); type != "absolute")
    b.fail(x, fmt::format("position_embedding_type {}: I-BERT supports only \"absolute\"", type));
  return x;
}

void quant_attention(const BuildInput& in, GraphBuilder& b, const Value& attention, const Scope& self, std::int64_t) {
  const std::int64_t hidden = in.config.dim({"hidden_size"}, 768);
  for (const char* proj : {"query", "key", "value"}) quant_linear(b, attention, self / proj, hidden, hidden);
  for (const char* act : {"query_activation", "key_activation", "value_activation", "output_activation"})
    quant_act(b, attention, self / act);
  quant_act(b, attention, self / "softmax" / "act");
  // `self` is <layer>.attention.self: the output block is its sibling.
  const std::string& path = self.path();
  const Scope module(path.substr(0, path.size() - std::string_view(".self").size()));
  quant_output_block(b, attention, module / "output", hidden, hidden);
}

Value quant_ffn(const BuildInput& in, GraphBuilder& b, const Value& x, const Scope& layer, std::int64_t) {
  const std::int64_t hidden = in.config.dim({"hidden_size"}, 768);
  const std::int64_t intermediate = in.config.dim({"intermediate_size"}, 3072);
  quant_linear(b, x, layer / "intermediate" / "dense", hidden, intermediate);
  quant_act(b, x, layer / "intermediate" / "output_activation");
  quant_output_block(b, x, layer / "output", intermediate, hidden);
  quant_act(b, x, layer / "pre_intermediate_act");
  quant_act(b, x, layer / "pre_output_act");
  return x;
}

Value build(const BuildInput& in, GraphBuilder& b) {
  static const bert::Layout layout{.prefix = "ibert",
                                   .defaults = {.pad = 1},
                                   .heads = bert::HeadStyle::Roberta,
                                   .pooler = bert::PoolerUse::BaseOnly,
                                   .roberta_positions = true,
                                   .relative_attention = false,
                                   .cross_attention = false,
                                   .sdpa = false,
                                   .extra_embeddings = quant_embeddings,
                                   .attention_extras = quant_attention,
                                   .ffn_extras = quant_ffn};
  if (in.config.flag({"quant_mode"}, false))
    b.note("quant_mode: I-BERT runs integer-only kernels; the graph counts the float path's shapes and bytes");
  return bert::build(in, b, layout);
}

}  // namespace
}  // namespace ibert_impl

const Family& ibert_family() {
  static const Family family{"ibert", "models/ibert/modeling_ibert.py", classes("IBert", heads::kEncoder), ibert_impl::build};
  return family;
}

}  // namespace neurarch::families
