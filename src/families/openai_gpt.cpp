// OpenAI GPT (models/openai/modeling_openai.py + configuration_openai.py, transformers 4.47.1):
// GPT-2's Conv1D projections and learned positions in the original post-norm order:
// h = ln_1(x + attn(x)); out = ln_2(h + mlp(h)), with no final norm. Aliases n_embd, n_layer,
// n_head, n_positions; afn is the activation. The attention asserts hidden % heads == 0.
// PretrainedConfig's tie_word_embeddings default (true) ties lm_head to tokens_embed.
#include "families/decoder_heads.hpp"
#include "families/family.hpp"

namespace neurarch::families {
namespace openai_gpt_impl {
namespace {

using namespace blocks;

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config& c = in.config;
  const std::int64_t vocab = c.dim({"vocab_size"}, 40478);
  const std::int64_t positions = c.dim({"n_positions", "max_position_embeddings"}, 512);
  const std::int64_t hidden = c.dim({"n_embd", "hidden_size"}, 768);
  const std::int64_t layers = c.dim({"n_layer", "num_hidden_layers"}, 12);
  const std::int64_t heads = c.dim({"n_head", "num_attention_heads"}, 12);
  const std::string act = c.text({"afn"}, "gelu");
  const bool tie = c.flag({"tie_word_embeddings"}, true);

  const Scope root = in.head == Head::Base ? Scope() : Scope("transformer");
  auto x = b.input({in.sequence_length(positions)}, "tokens");
  x = token_embedding(b, x, "Token_Embedding", root / "tokens_embed", vocab, hidden);
  x = learned_positions(b, x, "Position_Embedding", root / "positions_embed", positions, hidden);

  for (std::int64_t i = 0; i < layers; ++i) {
    b.set_block(static_cast<int>(i));
    const Scope l = root / "h" / i;
    const Scope attn = l / "attn";
    PostNormLayer layer;
    layer.attention = {.hidden = hidden, .heads = heads, .causal = true, .module = attn, .o = attn / "c_proj",
                       .qkv = attn / "c_attn", .layout = WeightLayout::Conv1D};
    layer.norm1 = {l / "ln_1"};
    layer.ffn = {.hidden = hidden, .intermediate = 4 * hidden, .activation = act, .module = l / "mlp",
                 .up = l / "mlp" / "c_fc", .down = l / "mlp" / "c_proj", .layout = WeightLayout::Conv1D};
    layer.norm2 = {l / "ln_2"};
    x = post_norm_layer(b, x, i, layer);
  }
  b.set_block(-1);

  const std::string tied = tie ? (root / "tokens_embed")("weight") : "";
  return decoder_heads(b, x, in, {.hidden = hidden, .vocab = vocab, .tied_embedding = tied});
}

}  // namespace
}  // namespace openai_gpt_impl

const Family& openai_gpt_family() {
  static const Family family{"openai-gpt", "models/openai/modeling_openai.py",
                             classes("OpenAIGPT", {heads::LMHeadModel, heads::ForSequenceClassification}), openai_gpt_impl::build};
  return family;
}

}  // namespace neurarch::families
