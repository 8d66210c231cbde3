// GPT-2 (models/gpt2/modeling_gpt2.py + configuration_gpt2.py, transformers 4.47.1). Conv1D
// projections store [in, out]; q/k/v come fused in c_attn. Positions are learned (wpe), so a
// sequence past n_positions cannot run. The causal-mask `attn.bias` buffers are non-persistent
// and never saved. add_cross_attention inserts an encoder-attention sublayer (separate q_attn,
// fused k/v c_attn) before the MLP. Aliases: n_embd, n_layer, n_head, n_positions; n_inner
// null -> 4 * n_embd. PretrainedConfig's tie_word_embeddings default (true) ties lm_head to wte.
#include <optional>

#include <fmt/format.h>

#include "families/decoder_feed.hpp"
#include "families/gpt2.hpp"

namespace neurarch::families {
namespace gpt2_impl {
namespace {

using namespace blocks;
using graph::NodeType;

// `memory`: the encoder states of a composite that nests this model as its decoder
// (VisionEncoderDecoderModel); built alone, the sublayer has only the decoder's own states to read.
Value cross_attention(GraphBuilder& b, const Value& x, const std::optional<Value>& memory, std::int64_t i,
                      const Scope& module, std::int64_t hidden, std::int64_t heads) {
  const Value& kv = memory ? *memory : x;
  auto out = memory ? b.node(NodeType::MultiHeadAttention, fmt::format("Cross_Attention_{}", i), x.shape, {x, kv}, module)
                    : b.node(NodeType::MultiHeadAttention, fmt::format("Cross_Attention_{}", i), x.shape, {x}, module);
  auto length = [](const Value& v) { return v.shape.size() >= 2 ? v.shape[v.shape.size() - 2] : 1; };
  graph::AttentionAttrs attrs{heads, heads, hidden / heads, length(x), length(kv), false, 0};
  if (memory) attrs.kv_input = memory->node;
  b.at(out).attention = attrs;
  // c_attn projects the encoder states to k and v; q_attn the decoder's states to q.
  linear_tensors(b, out, module / "c_attn", hidden, 2 * hidden, true, memory ? graph::Operand::Memory : graph::Operand::Input,
                 WeightLayout::Conv1D);
  linear_tensors(b, out, module / "q_attn", hidden, hidden, true, WeightLayout::Conv1D);
  linear_tensors(b, out, module / "c_proj", hidden, hidden, true, graph::Operand::Inner, WeightLayout::Conv1D);
  if (kv.shape.back() != hidden)
    b.fail(out, fmt::format("expects encoder states of width {}, receives {}", hidden, kv.shape.back()));
  return out;
}

// ln_1, ln_2, ln_cross_attn and ln_f as the variant has them.
Value layer_norm(GraphBuilder& b, const Value& x, const std::string& name, const Scope& module,
                 const gpt2::Variant& v) {
  auto out = norm(b, x, name, {module, v.norm, v.norm_bias});
  if (v.norm_weight_frozen) b.freeze(out);
  return out;
}

}  // namespace
}  // namespace gpt2_impl
using namespace gpt2_impl;

namespace gpt2 {

Value model(const BuildInput& in, GraphBuilder& b, const Variant& v, const Scope& root,
            const std::optional<Embedded>& embedded) {
  const Config& c = in.config;
  const std::int64_t vocab = c.dim({"vocab_size"}, v.vocab);
  const std::int64_t positions = c.dim({"n_positions", "max_position_embeddings"}, v.positions);
  const std::int64_t hidden = c.dim({"n_embd", "hidden_size"}, v.hidden);
  const std::int64_t layers = c.dim({"n_layer", "num_hidden_layers"}, v.layers);
  const std::int64_t heads = c.dim({"n_head", "num_attention_heads"}, v.heads);
  const std::int64_t inner = c.dim({"n_inner"}, 4 * hidden);
  const std::string act = c.text({"activation_function"}, v.activation);
  const bool cross = c.flag({"add_cross_attention"}, false);
  const double resid_dropout = c.number({"resid_pdrop"}, 0.1);
  const double embd_dropout = c.number({"embd_pdrop"}, 0.1);
  const double attn_dropout = c.number({"attn_pdrop"}, 0.1);

  const DecoderFeed* composite = decoder_feed(b);
  std::optional<Value> memory;
  if (composite) memory = composite->encoder_states;
  Value x;
  if (embedded) {
    x = embedded->states;
    if (x.shape.back() != hidden)
      b.fail(x, fmt::format("{}-wide inputs_embeds cannot enter a {}-wide GPT2Model", x.shape.back(), hidden));
  } else {
    x = b.input({in.sequence_length(positions)}, "tokens", composite ? composite->input_name : "");
    x = token_embedding(b, x, "Token_Embedding", root / "wte", vocab, hidden);
  }
  if (embedded && embedded->zero_positions) {
    // One row for every token: the sequence is not bounded by the table.
    x = added_embedding(b, x, "Position_Embedding", root / "wpe", positions, hidden);
  } else {
    x = learned_positions(b, x, "Position_Embedding", root / "wpe", positions, hidden);
  }
  // inputs_embeds bypasses wte, which the model still holds: idle, it gets no gradient and no optimizer state.
  if (embedded)
    b.parameter(x, (root / "wte")("weight"), {vocab, hidden}, graph::TensorRole::Embedding, graph::Operand::Idle);
  b.at(x).dropout = embd_dropout;

  for (std::int64_t i = 0; i < layers; ++i) {
    b.set_block(static_cast<int>(i));
    const Scope l = root / "h" / i;
    const Scope attn = l / "attn";
    const BlockNames n{i};
    int k = 0;
    auto h = layer_norm(b, x, n.norm(++k, v.norm), l / "ln_1", v);
    h = attention(b, h, n.attention(),
                  {.hidden = hidden, .heads = heads, .causal = true, .module = attn, .o = attn / "c_proj",
                   .qkv = attn / "c_attn", .layout = WeightLayout::Conv1D, .dropout = attn_dropout,
                   .output_dropout = resid_dropout});
    auto residual = add(b, h, x, n.add(1));
    if (cross) {
      h = layer_norm(b, residual, n.norm(++k, v.norm), l / "ln_cross_attn", v);
      h = cross_attention(b, h, memory, i, l / "crossattention", hidden, heads);
      residual = add(b, h, residual, n.add(2));
    }
    h = layer_norm(b, residual, n.norm(++k, v.norm), l / "ln_2", v);
    h = feed_forward(b, h, n.ffn(),
                     {.hidden = hidden, .intermediate = inner, .activation = act, .module = l / "mlp",
                      .up = l / "mlp" / "c_fc", .down = l / "mlp" / "c_proj", .layout = WeightLayout::Conv1D,
                      .output_dropout = resid_dropout});
    x = add(b, h, residual, n.add(cross ? 3 : 2));
  }
  b.set_block(-1);
  return layer_norm(b, x, "Final_LayerNorm", root / "ln_f", v);
}

Value build(const BuildInput& in, GraphBuilder& b, const Variant& v) {
  const Config& c = in.config;
  const std::int64_t vocab = c.dim({"vocab_size"}, v.vocab);
  const std::int64_t hidden = c.dim({"n_embd", "hidden_size"}, v.hidden);
  const bool tie = c.flag({"tie_word_embeddings"}, v.tie_word_embeddings);
  const Scope root = in.head == Head::Base ? Scope() : Scope("transformer");
  const Value x = model(in, b, v, root);

  switch (in.head) {
    case Head::CausalLM: {
      LmHeadSpec head{.module = Scope("lm_head"), .hidden = hidden, .vocab = vocab - v.vocab_not_predicted};
      if (tie) head.tied_weight = (root / "wte")("weight");
      return lm_head(b, x, "LM_Head", head);
    }
    case Head::ImageClassification: {
      // The mean of every position's final state, scored without bias.
      auto mean = b.node(NodeType::Pooler, "Mean_Pool", {hidden}, {x});
      return classifier(b, mean, "Classifier", Scope("score"), hidden, in.num_labels(), false);
    }
    case Head::SequenceClassification: {
      // Every position is scored; the logits of the last non-pad token are kept.
      auto last = b.node(NodeType::Pooler, "Last_Token_Pool", {hidden}, {x});
      return classifier(b, last, "Classifier", Scope("score"), hidden, in.num_labels(), false);
    }
    case Head::TokenClassification:
      return classifier(b, x, "Classifier", Scope("classifier"), hidden, in.num_labels(), true);
    case Head::QuestionAnswering:
      return classifier(b, x, "QA_Head", Scope("qa_outputs"), hidden, 2, true);
    default:
      return x;
  }
}

}  // namespace gpt2

namespace gpt2_impl {
namespace {

Value build(const BuildInput& in, GraphBuilder& b) { return gpt2::build(in, b, {}); }

}  // namespace
}  // namespace gpt2_impl

const Family& gpt2_family() {
  static const Family family{"gpt2", "models/gpt2/modeling_gpt2.py",
                             classes("GPT2",
                                     {heads::LMHeadModel, heads::ForSequenceClassification, heads::ForTokenClassification, heads::ForQuestionAnswering}),
                             gpt2_impl::build};
  return family;
}

}  // namespace neurarch::families
