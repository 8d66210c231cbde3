// Bark (BarkModel in models/bark/modeling_bark.py, transformers 4.47.1; 5.24 checked): Suno's text-to-audio
// cascade of three GPT-style transformers and EnCodec, each its own branch (BarkModel has no forward of its own;
// generate runs them in turn).
// - semantic / coarse_acoustics (BarkCausalModel): input_embeds_layer, learned position_embeds_layer of
//   block_size rows, pre-norm blocks (layernorm_1, attn with one fused att_proj and out_proj, layernorm_2, a 4x GELU
//   mlp in_proj / out_proj; biases and the norms' biases only with `bias`), causal attention whose mask is a
//   persistent bool buffer attn.bias [1, 1, block_size, block_size], layernorm_final and a bias-free lm_head.
// - fine_acoustics (BarkFineModel): n_codes_total input tables whose lookups for the codebooks up to the one being
//   predicted are summed, bidirectional blocks (always biased norms, no mask buffer), and one bias-free lm_head
//   per predicted codebook (n_codes_total - n_codes_given), head h tied to input table h + 1 when
//   tie_word_embeddings; the graph runs the last codebook's head, which reads every table.
// - codec_model: EncodecModel of codec_config (encodec::model).
#include <fmt/format.h>

#include "blocks/blocks.hpp"
#include "families/encodec.hpp"
#include "families/family.hpp"

namespace neurarch::families {
namespace bark_impl {
namespace {

using namespace blocks;
using graph::NodeType;

struct SubModel {
  std::int64_t vocab_in = 10048, vocab_out = 10048, block = 1024, hidden = 768, heads = 12, layers = 12;
  bool bias = true;
  double dropout = 0.0;
};

SubModel read(const Config& c) {
  SubModel s;
  s.vocab_in = c.dim({"input_vocab_size"}, s.vocab_in);
  s.vocab_out = c.dim({"output_vocab_size"}, s.vocab_out);
  s.block = c.dim({"block_size"}, s.block);
  s.hidden = c.dim({"hidden_size"}, s.hidden);
  s.heads = c.dim({"num_heads"}, s.heads);
  s.layers = c.dim({"num_layers"}, s.layers);
  s.bias = c.flag({"bias"}, true);
  s.dropout = c.number({"dropout"}, 0.0);
  return s;
}

Value blocks_and_norm(GraphBuilder& b, Value x, const SubModel& s, const Scope& root, bool causal) {
  // Bidirectional blocks (the fine model) build their LayerNorms with the default bias whatever `bias` says.
  const bool norm_bias = causal ? s.bias : true;
  for (std::int64_t i = 0; i < s.layers; ++i) {
    b.set_block(b.next_block());
    const Scope l = root / "layers" / i;
    const Scope attn = l / "attn";
    PreNormLayer layer;
    layer.norm1 = {l / "layernorm_1", NormKind::LayerNorm, norm_bias};
    layer.attention = {.hidden = s.hidden, .heads = s.heads, .causal = causal, .module = attn, .o = attn / "out_proj",
                       .qkv = attn / "att_proj", .qkv_bias = s.bias, .o_bias = s.bias, .dropout = s.dropout,
                       .output_dropout = s.dropout};
    layer.norm2 = {l / "layernorm_2", NormKind::LayerNorm, norm_bias};
    layer.ffn = {.hidden = s.hidden, .intermediate = 4 * s.hidden, .activation = "gelu", .module = l / "mlp",
                 .up = l / "mlp" / "in_proj", .down = l / "mlp" / "out_proj", .bias = s.bias, .down_bias = s.bias,
                 .output_dropout = s.dropout};
    const Value input = x;
    x = pre_norm_layer(b, x, i, layer);
    // The causal mask, saved with the model (tril of ones as bool).
    if (causal) b.buffer(input, (attn)("bias"), {1, 1, s.block, s.block}, DType::Bool);
  }
  b.set_block(-1);
  return norm(b, x, "Final_LayerNorm", {root / "layernorm_final", NormKind::LayerNorm, norm_bias});
}

Value causal_model(const BuildInput& in, GraphBuilder& b, const Config& c, const std::string& module) {
  graph::Nested nest(b, {.module = module, .label = module + "_", .first_block = 0});
  const SubModel s = read(c);
  auto ids = b.input({in.sequence_length(s.block)}, "tokens", module + "_input_ids");
  auto x = token_embedding(b, ids, "Token_Embedding", Scope("input_embeds_layer"), s.vocab_in, s.hidden);
  x = learned_positions(b, x, "Position_Embedding", Scope("position_embeds_layer"), s.block, s.hidden);
  b.at(x).dropout = s.dropout;
  x = blocks_and_norm(b, x, s, Scope(), true);
  return lm_head(b, x, "LM_Head", {.module = Scope("lm_head"), .hidden = s.hidden, .vocab = s.vocab_out});
}

Value fine_model(const BuildInput& in, GraphBuilder& b, const Config& c) {
  graph::Nested nest(b, {.module = "fine_acoustics", .label = "fine_acoustics_", .first_block = 0});
  const SubModel s = read(c);
  const std::int64_t total = c.dim({"n_codes_total"}, 8);
  const std::int64_t given = c.integer({"n_codes_given"}, 1);
  const bool tie = c.flag({"tie_word_embeddings"}, true);
  const std::int64_t frames = in.sequence_length(s.block);
  auto codes = b.input({frames, total}, "tokens", "fine_acoustics_input_ids");
  auto x = b.node(NodeType::Embedding, "Codebook_Embeddings", {frames, s.hidden}, {codes},
                  Scope("input_embeds_layers"));
  for (std::int64_t k = 0; k < total; ++k)
    b.parameter(x, (Scope("input_embeds_layers") / k)("weight"), {s.vocab_in, s.hidden}, graph::TensorRole::Embedding);
  x = learned_positions(b, x, "Position_Embedding", Scope("position_embeds_layer"), s.block, s.hidden);
  b.at(x).dropout = s.dropout;
  x = blocks_and_norm(b, x, s, Scope(), false);
  Value logits;
  for (std::int64_t k = given; k < total; ++k) {
    const Scope head = Scope("lm_heads") / (k - given);
    LmHeadSpec spec{.module = head, .hidden = s.hidden, .vocab = s.vocab_out};
    // BarkFineModel ties head h to input table h + 1 (whatever n_codes_given is).
    if (tie) spec.tied_weight = (Scope("input_embeds_layers") / (k - given + 1))("weight");
    // Only the predicted codebook's head runs; the others are declared on the same node, idle (no gradient, no
    // optimizer state).
    if (k + 1 < total) {
      if (tie)
        b.tied(x, head("weight"), {s.vocab_out, s.hidden}, spec.tied_weight, graph::TensorRole::Linear,
               graph::Operand::Idle);
      else
        b.parameter(x, head("weight"), {s.vocab_out, s.hidden}, graph::TensorRole::Linear, graph::Operand::Idle);
      continue;
    }
    logits = lm_head(b, x, "LM_Head", spec);
  }
  return logits.node >= 0 ? logits : x;
}

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config& c = in.config;
  auto semantic = causal_model(in, b, c.child("semantic_config"), "semantic");
  causal_model(in, b, c.child("coarse_acoustics_config"), "coarse_acoustics");
  fine_model(in, b, c.child("fine_acoustics_config"));
  const Config codec = c.child("codec_config");
  {
    graph::Nested nest(b, {.module = "codec_model", .label = "Codec_", .first_block = b.next_block()});
    encodec::model(BuildInput{codec, "EncodecModel", Head::Base, std::nullopt, std::nullopt}, b, codec);
  }
  return semantic;
}

}  // namespace
}  // namespace bark_impl

const Family& bark_family() {
  static const Family family{"bark", "models/bark/modeling_bark.py", classes("Bark"), bark_impl::build};
  return family;
}

}  // namespace neurarch::families
