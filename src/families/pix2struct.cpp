// Pix2Struct (models/pix2struct/modeling_pix2struct.py + configuration_pix2struct.py, transformers 4.47.1): an
// image-to-text encoder-decoder. The encoder (`encoder`, Pix2StructVisionModel) reads `flattened_patches`:
// max_patches rows of [row id, column id, patch pixels]; `embeddings.patch_projection` (Linear with bias) embeds
// the pixels and `row_embedder` / `column_embedder` (seq_len rows each) add the 2-D position, so an image of any
// aspect ratio fits. Its layers are T5-like (weight-only RMS norms `pre_attention_layer_norm` /
// `pre_mlp_layer_norm`, bias-free attention.{query,key,value,output} of num_heads x d_kv, a gated wi_0/wi_1/wo MLP)
// without a position bias, then `layernorm`. The decoder (`decoder`, Pix2StructTextModel) is T5's: embed_tokens,
// self_attention (relative_attention_bias in layer 0 only, shared by the others), encoder_decoder_attention and
// mlp.DenseReluDense, each pre-normed by its own layer_norm, final_layer_norm and a bias-free `lm_head`, tied to
// embed_tokens only when tie_word_embeddings (default False). Every attention runs eager.
// --seq is the patch count (the image processor's max_patches, 2048, by default); --target-seq the text tokens.
#include <fmt/format.h>

#include "blocks/seq2seq.hpp"
#include "families/clip_common.hpp"
#include "families/pix2struct.hpp"

namespace neurarch::families {
namespace pix2struct_impl {
namespace {

using namespace blocks;

// Decoder tokens when --target-seq is absent: no config key bounds the text (T5's pre-training length).
constexpr std::int64_t kTargetTokens = 512;

struct Dims {
  std::int64_t hidden, d_kv, d_ff, layers, heads;
  std::string activation;
  double dropout, attention_dropout;
};

AttentionSpec attention_spec(const Dims& d, const Scope& attn, bool causal) {
  return {.hidden = d.hidden, .heads = d.heads, .head_dim = d.d_kv, .causal = causal, .module = attn,
          .q = attn / "query", .k = attn / "key", .v = attn / "value", .o = attn / "output", .qkv_bias = false,
          .o_bias = false, .require_divisible = false, .dropout = d.attention_dropout, .output_dropout = d.dropout};
}

Value gated_mlp(GraphBuilder& b, const Value& x, const std::string& name, const Dims& d, const Scope& module) {
  return feed_forward(b, x, name,
                      {.hidden = d.hidden, .intermediate = d.d_ff, .activation = d.activation, .gated = true,
                       .module = module, .up = module / "wi_1", .down = module / "wo", .gate = module / "wi_0",
                       .bias = false, .down_bias = false, .output_dropout = d.dropout, .inner_dropout = d.dropout});
}

}  // namespace
}  // namespace pix2struct_impl
using namespace pix2struct_impl;

namespace pix2struct {

VisionEncoder read_vision(const Config& c) {
  VisionEncoder e;
  e.hidden = c.dim({"hidden_size"}, 768);
  e.d_kv = c.dim({"d_kv"}, 64);
  e.d_ff = c.dim({"d_ff"}, 2048);
  e.layers = c.dim({"num_hidden_layers"}, 12);
  e.heads = c.dim({"num_attention_heads"}, 12);
  e.activation = c.text({"dense_act_fn"}, "gelu_new");
  e.dropout = c.number({"dropout_rate"}, 0.0);
  e.attention_dropout = c.number({"attention_dropout"}, 0.0);
  e.patch_width = c.dim({"patch_embed_hidden_size"}, 768);
  e.positions = c.dim({"seq_len"}, 4096);
  return e;
}

Value vision_encoder(const BuildInput& in, GraphBuilder& b, const VisionEncoder& e) {
  const Dims d{e.hidden, e.d_kv, e.d_ff, e.layers, e.heads, e.activation, e.dropout, e.attention_dropout};
  const Scope& root = e.root;
  const Scope emb = root / "embeddings";

  auto patches = b.input({in.sequence_length(e.patches), 2 + e.patch_width}, "pixels", "flattened_patches");
  // The projection reads the pixel columns, after the row and column ids.
  const Value pixels{patches.node, {patches.shape.front(), e.patch_width}};
  auto x = dense(b, pixels, "Patch_Projection", emb / "patch_projection", e.patch_width, d.hidden, true);
  // Row and column ids index two tables of `positions` rows each.
  x = added_embedding(b, x, "Row_Embedding", emb / "row_embedder", e.positions, d.hidden);
  x = added_embedding(b, x, "Column_Embedding", emb / "column_embedder", e.positions, d.hidden);
  b.at(x).dropout = d.dropout;

  for (std::int64_t i = 0; i < d.layers; ++i) {
    b.set_block(static_cast<int>(i));
    const Scope l = root / "encoder" / "layer" / i;
    const BlockNames n{i};
    auto h = norm(b, x, n.norm(1, NormKind::RMSNorm), {l / "pre_attention_layer_norm", NormKind::RMSNorm, false});
    h = attention(b, h, n.attention(), attention_spec(d, l / "attention", false));
    b.at(h).attention->sdpa = e.sdpa;
    x = add(b, h, x, n.add(1));
    h = norm(b, x, n.norm(2, NormKind::RMSNorm), {l / "pre_mlp_layer_norm", NormKind::RMSNorm, false});
    h = gated_mlp(b, h, n.ffn(), d, l / "mlp");
    x = add(b, h, x, n.add(2));
  }
  b.set_block(-1);
  return norm(b, x, "Encoder_Final_RMSNorm", {root / "layernorm", NormKind::RMSNorm, false});
}

}  // namespace pix2struct

namespace pix2struct_impl {
namespace {

Value decoder(const BuildInput& in, GraphBuilder& b, const Config& c, const Value& memory, bool tie,
              std::int64_t first_block) {
  const Dims d{c.dim({"hidden_size"}, 768), c.dim({"d_kv"}, 64), c.dim({"d_ff"}, 2048), c.dim({"num_layers"}, 12),
               c.dim({"num_heads"}, 12), c.text({"dense_act_fn"}, "gelu_new"), c.number({"dropout_rate"}, 0.1),
               c.number({"attention_dropout"}, c.number({"dropout_rate"}, 0.1))};
  const std::int64_t vocab = c.dim({"vocab_size"}, 50244);
  const Scope root("decoder");

  auto ids = b.input({in.target_length(kTargetTokens)}, "tokens", "decoder_input_ids");
  auto x = token_embedding(b, ids, "Decoder_Token_Embedding", root / "embed_tokens", vocab, d.hidden);
  b.at(x).dropout = d.dropout;
  std::optional<Value> bias;
  for (std::int64_t i = 0; i < d.layers; ++i) {
    b.set_block(static_cast<int>(first_block + i));
    const Scope l = root / "layer" / i;
    const BlockNames n{i};
    const Scope self = l / "self_attention";
    auto h = norm(b, x, fmt::format("Decoder_RMSNorm_{}_1", i), {self / "layer_norm", NormKind::RMSNorm, false});
    if (i == 0)
      bias = relative_position_bias(b, h, "Decoder_Relative_Position_Bias_0",
                                    {self / "attention" / "relative_attention_bias",
                                     c.dim({"relative_attention_num_buckets"}, 32), d.heads});
    h = attention(b, h, "Decoder_" + n.attention(), attention_spec(d, self / "attention", true));
    b.at(h).attention->sdpa = false;
    add_score_bias(b, h, *bias);
    x = add(b, h, x, fmt::format("Decoder_Add_{}_1", i));

    const Scope cross = l / "encoder_decoder_attention";
    h = norm(b, x, fmt::format("Decoder_RMSNorm_{}_2", i), {cross / "layer_norm", NormKind::RMSNorm, false});
    h = cross_attention(b, h, memory, fmt::format("Decoder_Cross_Attention_{}", i),
                        attention_spec(d, cross / "attention", false));
    b.at(h).attention->sdpa = false;
    x = add(b, h, x, fmt::format("Decoder_Add_{}_2", i));

    const Scope mlp = l / "mlp";
    h = norm(b, x, fmt::format("Decoder_RMSNorm_{}_3", i), {mlp / "layer_norm", NormKind::RMSNorm, false});
    h = gated_mlp(b, h, "Decoder_" + n.ffn(), d, mlp / "DenseReluDense");
    x = add(b, h, x, fmt::format("Decoder_Add_{}_3", i));
  }
  b.set_block(-1);
  x = norm(b, x, "Decoder_Final_RMSNorm", {root / "final_layer_norm", NormKind::RMSNorm, false});
  b.at(x).dropout = d.dropout;
  return lm_head(b, x, "LM_Head",
                 {.module = root / "lm_head", .hidden = d.hidden, .vocab = vocab,
                  .tied_weight = tie ? (root / "embed_tokens")("weight") : std::string()});
}

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config& c = in.config;
  const Config vision_config = c.child("vision_config");
  const Config text_config = c.child("text_config");
  auto memory = pix2struct::vision_encoder(in, b, pix2struct::read_vision(vision_config));
  return decoder(in, b, text_config, memory, c.flag({"tie_word_embeddings"}, false), b.next_block());
}

}  // namespace
}  // namespace pix2struct_impl

const Family& pix2struct_family() {
  static const Family family{"pix2struct", "models/pix2struct/modeling_pix2struct.py",
                             {{"Pix2StructForConditionalGeneration", Head::Seq2SeqLM}}, pix2struct_impl::build};
  return family;
}

}  // namespace neurarch::families
