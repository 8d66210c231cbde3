// GPTBigCode / SantaCoder / StarCoder (models/gpt_bigcode/modeling_gpt_bigcode.py +
// configuration_gpt_bigcode.py, transformers 4.47.1): GPT-2's block with nn.Linear ([out, in])
// instead of Conv1D, and multi-query attention by default: c_attn yields all query heads but one
// shared key/value head ([hidden + 2 * head_dim]). Learned positions (wpe) bound the sequence.
// Cross-attention (add_cross_attention) exists only without multi_query. GPT-2's aliases
// (n_embd, n_layer, n_head, n_positions, n_inner null -> 4 * n_embd); embeddings tied by default.
#include <fmt/format.h>

#include "families/decoder_heads.hpp"
#include "families/family.hpp"

namespace neurarch::families {
namespace gpt_bigcode_impl {
namespace {

using namespace blocks;
using graph::NodeType;

Value cross_attention(GraphBuilder& b, const Value& x, std::int64_t i, const Scope& module, std::int64_t hidden,
                      std::int64_t heads, bool multi_query) {
  auto out = b.node(NodeType::MultiHeadAttention, fmt::format("Cross_Attention_{}", i), x.shape, {x}, module);
  const std::int64_t seq = x.shape.size() >= 2 ? x.shape[x.shape.size() - 2] : 1;
  b.at(out).attention = graph::AttentionAttrs{heads, heads, hidden / heads, seq, seq, false, 0};
  linear_tensors(b, out, module / "c_attn", hidden, 2 * hidden, true);
  linear_tensors(b, out, module / "q_attn", hidden, hidden, true);
  linear_tensors(b, out, module / "c_proj", hidden, hidden, true, graph::Operand::Inner);
  if (multi_query) b.fail(out, "multi-query attention is not supported for cross-attention");
  return out;
}

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config& c = in.config;
  const std::int64_t vocab = c.dim({"vocab_size"}, 50257);
  const std::int64_t positions = c.dim({"n_positions", "max_position_embeddings"}, 1024);
  const std::int64_t hidden = c.dim({"n_embd", "hidden_size"}, 768);
  const std::int64_t layers = c.dim({"n_layer", "num_hidden_layers"}, 12);
  const std::int64_t heads = c.dim({"n_head", "num_attention_heads"}, 12);
  const std::int64_t inner = c.dim({"n_inner"}, 4 * hidden);
  const std::string act = c.text({"activation_function"}, "gelu_pytorch_tanh");
  const bool multi_query = c.flag({"multi_query"}, true);
  const bool cross = c.flag({"add_cross_attention"}, false);
  const bool tie = c.flag({"tie_word_embeddings"}, true);

  const Scope root = in.head == Head::Base ? Scope() : Scope("transformer");
  auto x = b.input({in.sequence_length(positions)}, "tokens");
  x = token_embedding(b, x, "Token_Embedding", root / "wte", vocab, hidden);
  x = learned_positions(b, x, "Position_Embedding", root / "wpe", positions, hidden);

  for (std::int64_t i = 0; i < layers; ++i) {
    b.set_block(static_cast<int>(i));
    const Scope l = root / "h" / i;
    const Scope attn = l / "attn";
    const BlockNames n{i};
    int k = 0;
    auto h = norm(b, x, n.norm(++k, NormKind::LayerNorm), {l / "ln_1"});
    h = attention(b, h, n.attention(),
                  {.hidden = hidden, .heads = heads, .kv_heads = multi_query ? 1 : heads, .causal = true,
                   .module = attn, .o = attn / "c_proj", .qkv = attn / "c_attn"});
    auto residual = add(b, h, x, n.add(1));
    if (cross) {
      h = norm(b, residual, n.norm(++k, NormKind::LayerNorm), {l / "ln_cross_attn"});
      h = cross_attention(b, h, i, l / "crossattention", hidden, heads, multi_query);
      residual = add(b, h, residual, n.add(2));
    }
    h = norm(b, residual, n.norm(++k, NormKind::LayerNorm), {l / "ln_2"});
    h = feed_forward(b, h, n.ffn(),
                     {.hidden = hidden, .intermediate = inner, .activation = act, .module = l / "mlp",
                      .up = l / "mlp" / "c_fc", .down = l / "mlp" / "c_proj"});
    x = add(b, h, residual, n.add(cross ? 3 : 2));
  }
  b.set_block(-1);
  x = norm(b, x, "Final_LayerNorm", {root / "ln_f"});

  const std::string tied = tie ? (root / "wte")("weight") : "";
  return decoder_heads(b, x, in, {.hidden = hidden, .vocab = vocab, .tied_embedding = tied});
}

}  // namespace
}  // namespace gpt_bigcode_impl

const Family& gpt_bigcode_family() {
  static const Family family{"gpt_bigcode", "models/gpt_bigcode/modeling_gpt_bigcode.py",
                             classes("GPTBigCode",
                                     {heads::ForCausalLM, heads::ForSequenceClassification, heads::ForTokenClassification}),
                             gpt_bigcode_impl::build};
  return family;
}

}  // namespace neurarch::families
