// MGP-STR (models/mgp_str/modeling_mgp_str.py, transformers 4.47.1 and 5.24): scene-text recognition with a timm-style
// ViT (MgpstrModel: a patch_size conv over the image_size [h, w] image, a cls_token, pos_embed, pre-norm blocks with a
// fused qkv, no final norm; only the configured size runs) and, in MgpstrForSceneTextRecognition, three A3 modules
// (character, BPE and WordPiece) each turning the tokens into max_token_length slots: token_norm, a grouped (8) 1x1
// conv and a 1x1 conv to max_token_length attention maps (softmax over tokens), a grouped 1x1 `feat` conv, the
// attention-weighted sum, LayerNorm; then one Linear head per vocabulary. `distilled` sizes pos_embed for a
// distillation token the forward never adds, so such a config does not run.
#include <string>
#include <tuple>

#include <fmt/format.h>

#include "families/family.hpp"
#include "families/vit_common.hpp"

namespace neurarch::families {
namespace mgp_str_impl {
namespace {

using namespace blocks;
using graph::NodeType;

// MgpstrA3Module over the [tokens, hidden] sequence -> [slots, hidden].
Value a3_module(GraphBuilder& b, const Value& x, const std::string& name, const Scope& module, std::int64_t hidden,
                std::int64_t slots) {
  auto normed = norm(b, x, name + "_Token_Norm", {module / "token_norm"});
  const Value map{normed.node, {hidden, x.shape[0], 1}};  // transpose(1, 2).unsqueeze(-1): a view
  auto grouped = conv2d(b, map, name + "_Token_Learner_0",
                        {.module = module / "tokenLearner" / 0, .in = hidden, .out = hidden, .groups = 8,
                         .bias = false});
  auto selected = conv2d(b, grouped, name + "_Token_Learner_1",
                         {.module = module / "tokenLearner" / 1, .in = hidden, .out = slots, .bias = false});
  b.at(selected).activation = "softmax";
  auto feat = conv2d(b, map, name + "_Feat",
                     {.module = module / "feat", .in = hidden, .out = hidden, .groups = 8, .bias = false});
  // einsum("...si,...id->...sd"): the slots' attention over the tokens weighs the features.
  auto pooled = b.node(NodeType::Linear, name + "_Attend", {slots, hidden}, {selected, feat});
  return norm(b, pooled, name + "_Norm", {module / "norm"});
}

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config& c = in.config;
  const std::int64_t hidden = c.dim({"hidden_size"}, 768);
  const std::int64_t layers = c.dim({"num_hidden_layers"}, 12);
  const std::int64_t heads = c.dim({"num_attention_heads"}, 12);
  const auto intermediate = static_cast<std::int64_t>(static_cast<double>(hidden) * c.number({"mlp_ratio"}, 4.0));
  const bool qkv_bias = c.flag({"qkv_bias"}, true);
  const bool distilled = c.flag({"distilled"}, false);
  const double dropout = c.number({"drop_rate"}, 0.0);
  const double attention_dropout = c.number({"attn_drop_rate"}, 0.0);
  const std::int64_t channels = c.dim({"num_channels"}, 3);
  const vit::Size2 image = vit::read_size2(c, "image_size", {32, 128, true});
  const std::int64_t patch = c.dim({"patch_size"}, 4);
  const std::int64_t slots = c.dim({"max_token_length"}, 27);
  const bool recognition = in.class_name.ends_with("ForSceneTextRecognition");
  const Scope root = recognition ? Scope("mgp_str") : Scope();

  // MgpstrEmbeddings raises for any other size.
  auto pixels = b.input({channels, image.h, image.w}, "pixels");
  if (in.requested_image_size && (*in.requested_image_size != image.h || *in.requested_image_size != image.w))
    b.fail(pixels, fmt::format("MGP-STR runs only its image_size {}x{}", image.h, image.w));
  const Scope emb = root / "embeddings";
  auto x = patch_embed(b, pixels, "Patch_Embed",
                       {.projection = emb / "proj", .channels = channels, .dim = hidden, .patch = patch,
                        .extra_tokens = 1});
  b.parameter(x, emb("cls_token"), {1, 1, hidden}, graph::TensorRole::Other);
  const std::int64_t patches = (image.h / patch) * (image.w / patch);
  x = b.node(NodeType::LearnedPosEmbed, "Position_Embedding", x.shape, {x}, emb);
  b.parameter(x, emb("pos_embed"), {1, patches + (distilled ? 2 : 1), hidden}, graph::TensorRole::Embedding);
  b.at(x).dropout = dropout;
  if (distilled)
    b.fail(x, "distilled sizes pos_embed for a distillation token the embeddings never add: the sum fails");

  for (std::int64_t i = 0; i < layers; ++i) {
    const Scope l = root / "encoder" / "blocks" / i;
    PreNormLayer layer;
    layer.norm1 = {l / "norm1"};
    layer.attention = {.hidden = hidden, .heads = heads, .module = l / "attn", .o = l / "attn" / "proj",
                       .qkv = l / "attn" / "qkv", .qkv_bias = qkv_bias, .dropout = attention_dropout,
                       .output_dropout = dropout};
    layer.norm2 = {l / "norm2"};
    layer.ffn = {.hidden = hidden, .intermediate = intermediate, .activation = "gelu", .module = l / "mlp",
                 .up = l / "mlp" / "fc1", .down = l / "mlp" / "fc2", .output_dropout = dropout,
                 .inner_dropout = dropout};
    b.set_block(static_cast<int>(i));
    x = pre_norm_layer(b, x, i, layer);
  }
  b.set_block(-1);
  if (!recognition) return x;

  Value logits;
  for (const auto& [module, head, key, fallback] :
       {std::tuple{"char_a3_module", "char_head", "num_character_labels", std::int64_t{38}},
        std::tuple{"bpe_a3_module", "bpe_head", "num_bpe_labels", std::int64_t{50257}},
        std::tuple{"wp_a3_module", "wp_head", "num_wordpiece_labels", std::int64_t{30522}}}) {
    const std::string name = std::string(head).substr(0, std::string(head).find('_'));
    auto slots_out = a3_module(b, x, "A3_" + name, Scope(module), hidden, slots);
    logits = dense(b, slots_out, "Head_" + name, Scope(head), hidden, c.dim({key}, fallback), true);
  }
  return logits;
}

}  // namespace
}  // namespace mgp_str_impl

const Family& mgp_str_family() {
  static const Family family{"mgp-str", "models/mgp_str/modeling_mgp_str.py",
                             {{"MgpstrModel", Head::Base}, {"MgpstrForSceneTextRecognition", Head::PreTraining}},
                             mgp_str_impl::build};
  return family;
}

}  // namespace neurarch::families
