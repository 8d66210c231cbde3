// BridgeTower (models/bridgetower/modeling_bridgetower.py + configuration_bridgetower.py, transformers 4.47.1,
// checked against 5.24): an OpenAI-CLIP-layout vision tower (`vision_model.visual`: CLIP's embeddings, ln_pre,
// `transformer.resblocks` of nn.MultiheadAttention with a fused in_proj and a quick_gelu c_fc/c_proj MLP, ln_post)
// and a RoBERTa text tower (`text_model`), joined by num_hidden_layers cross-modal BERT layers per modality (self-
// attention, cross-attention to the other modality, FFN; built from text_config). The top num_hidden_layers - 1
// layers of both towers feed the cross-modal stack through "bridge" link towers (LayerNorm of a sum of the uni-modal
// and cross-modal states). The uni-modal poolers the checkpoint stores (text_model.pooler, ln_separate) never run.
#include <algorithm>
#include <optional>

#include <fmt/format.h>

#include "blocks/seq2seq.hpp"
#include "core/error.hpp"
#include "families/bert_common.hpp"
#include "families/shared_parameters.hpp"
#include "families/vit_common.hpp"

namespace neurarch::families {
namespace bridgetower_impl {
namespace {

using namespace blocks;
using graph::NodeType;

// The tensors and widths the cross-modal part reads from the top-level config.
struct Top {
  std::int64_t hidden = 768;
  std::int64_t layers = 6;
  std::string activation = "gelu";
  bool share_transform = true;  ///< share_cross_modal_transformer_layers: one text / image transform for all layers
  bool share_links = false;     ///< share_link_tower_layers
  std::string link_type = "add";
};

Top read_top(const Config& c) {
  Top t;
  t.hidden = c.dim({"hidden_size"}, 768);
  t.layers = c.dim({"num_hidden_layers"}, 6);
  t.activation = c.text({"hidden_act"}, "gelu");
  t.share_transform = c.flag({"share_cross_modal_transformer_layers"}, true);
  t.share_links = c.flag({"share_link_tower_layers"}, false);
  t.link_type = c.text({"link_tower_type"}, "add");
  if (t.link_type != "add" && t.link_type != "scaled_add" && t.link_type != "interpolate")
    throw Error(ErrorKind::InvalidInput, c.origin() + ": key 'link_tower_type'",
                fmt::format("'{}' is not one of add, scaled_add, interpolate: the reference raises", t.link_type));
  return t;
}

// The vision tower's state: its sequence after each resblock, and what it needs to run more of them.
struct Vision {
  std::int64_t hidden = 0;
  std::int64_t blocks = 0;  ///< resblocks in the checkpoint (one fewer with remove_last_layer)
  Scope root;               ///< vision_model.visual
};

// The tensors of resblock `i` on `owner`: nn.MultiheadAttention's fused in_proj and out_proj, ln_1, c_fc, c_proj,
// ln_2. Used for the resblocks the checkpoint holds beyond the ones BridgeTowerModel.forward runs.
void resblock_tensors(GraphBuilder& b, const Value& owner, const Vision& v, std::int64_t i) {
  const Scope l = v.root / "transformer" / "resblocks" / i;
  b.parameter(owner, (l / "attn")("in_proj_weight"), {3 * v.hidden, v.hidden}, graph::TensorRole::Matrix);
  b.parameter(owner, (l / "attn")("in_proj_bias"), {3 * v.hidden}, graph::TensorRole::Bias);
  linear_tensors(b, owner, l / "attn" / "out_proj", v.hidden, v.hidden, true);
  for (const char* n : {"ln_1", "ln_2"}) {
    b.parameter(owner, (l / n)("weight"), {v.hidden}, graph::TensorRole::Norm);
    b.parameter(owner, (l / n)("bias"), {v.hidden}, graph::TensorRole::Bias);
  }
  linear_tensors(b, owner, l / "mlp" / "c_fc", v.hidden, 4 * v.hidden, true);
  linear_tensors(b, owner, l / "mlp" / "c_proj", 4 * v.hidden, v.hidden, true);
}

// BridgeTowerResidualAttention `i`: x + attn(ln_1(x)), then + c_proj(quick_gelu(c_fc(ln_2(.)))). The attention is
// torch's nn.MultiheadAttention with hidden_size // 64 heads and a fused in_proj_weight / in_proj_bias.
Value resblock(GraphBuilder& b, const Value& x, const Vision& v, std::int64_t i) {
  b.set_block(static_cast<int>(i));
  const BlockNames names{i};
  const Scope l = v.root / "transformer" / "resblocks" / i;
  const Scope attn = l / "attn";
  const std::int64_t heads = v.hidden / 64;
  auto h = norm(b, x, names.norm(1, NormKind::LayerNorm), {l / "ln_1"});
  const std::int64_t seq = x.shape[x.shape.size() - 2];
  const std::int64_t counted = std::max<std::int64_t>(heads, 1);
  auto a = b.node(NodeType::MultiHeadAttention, names.attention(), x.shape, {h}, attn);
  b.at(a).attention = graph::AttentionAttrs{counted, counted, v.hidden / counted, seq, seq, false, 0, 0.0, false, true};
  b.parameter(a, attn("in_proj_weight"), {3 * v.hidden, v.hidden}, graph::TensorRole::Matrix);
  b.parameter(a, attn("in_proj_bias"), {3 * v.hidden}, graph::TensorRole::Bias);
  linear_tensors(b, a, attn / "out_proj", v.hidden, v.hidden, true, graph::Operand::Inner);
  if (heads < 1 || v.hidden % heads != 0)
    b.fail(a, fmt::format("nn.MultiheadAttention needs hidden_size {} divisible by its {} (hidden_size // 64) heads",
                          v.hidden, heads));
  auto sum = add(b, a, x, names.add(1));
  h = norm(b, sum, names.norm(2, NormKind::LayerNorm), {l / "ln_2"});
  const Scope mlp = l / "mlp";
  h = feed_forward(b, h, names.ffn(),
                   {.hidden = v.hidden, .intermediate = 4 * v.hidden, .activation = "quick_gelu", .module = mlp,
                    .up = mlp / "c_fc", .down = mlp / "c_proj"});
  auto out = add(b, h, sum, names.add(2));
  b.set_block(-1);
  return out;
}

// BridgeTowerVisionEmbeddings (CLIPVisionEmbeddings: class token, bias-free patch Conv2d, a position per patch + 1)
// and ln_pre.
Value vision_stem(const BuildInput& in, GraphBuilder& b, const Config& vc, Vision& v) {
  const BuildInput sub{vc, in.class_name, in.head, in.requested_seq, in.requested_image_size};
  const vit::Geometry g = vit::read_geometry(sub, {288, 288, false}, 16);
  const Scope emb = v.root / "embeddings";
  const Scope conv = emb / "patch_embedding";
  auto pixels = b.input({g.channels, g.input.h, g.input.w}, "pixels");
  auto x = b.node(NodeType::PatchEmbed, "Patch_Embed", {1 + g.input_patches(), v.hidden}, {pixels}, conv);
  b.parameter(x, emb("class_embedding"), {v.hidden}, graph::TensorRole::Embedding);
  b.parameter(x, conv("weight"), {v.hidden, g.channels, g.patch.h, g.patch.w}, graph::TensorRole::Conv);
  if (g.input.h < g.patch.h || g.input.w < g.patch.w)
    b.fail(x, fmt::format("image {}x{} is smaller than one {}x{} patch", g.input.h, g.input.w, g.patch.h, g.patch.w));
  vit::refuse_other_sizes(b, x, g, "BridgeTower");
  auto pos = b.node(NodeType::LearnedPosEmbed, "Learned_Pos_Embed", x.shape, {x}, emb / "position_embedding");
  b.parameter(pos, (emb / "position_embedding")("weight"), {g.configured_patches() + 1, v.hidden}, graph::TensorRole::Embedding);
  return norm(b, pos, "Pre_LayerNorm", {v.root / "ln_pre"});
}

// The cross-modal encoder's layer sizes: BridgeTowerBertCrossLayer(text_config).
struct CrossDims {
  std::int64_t hidden = 768, heads = 12, intermediate = 3072;
  std::string activation = "gelu";
  double hidden_dropout = 0.1, attention_dropout = 0.1;
};

// BridgeTowerBertCrossLayer at `l`: self-attention, cross-attention to `other`, FFN, each BERT's post-norm residual.
Value cross_layer(GraphBuilder& b, const Value& x, const Value& other, const Scope& l, const CrossDims& d,
                  const std::string& tag) {
  auto sublayer = [&](const Value& in, const Scope& module, const std::string& name,
                      const std::optional<Value>& memory) {
    const Scope self = module / "self";
    AttentionSpec spec{.hidden = d.hidden, .heads = d.heads, .module = module, .q = self / "query",
                       .k = self / "key", .v = self / "value", .o = module / "output" / "dense",
                       .dropout = d.attention_dropout, .output_dropout = d.hidden_dropout};
    auto a = memory ? cross_attention(b, in, *memory, name, spec, d.hidden) : attention(b, in, name, spec);
    auto sum = add(b, a, in, name + "_Add");
    return norm(b, sum, name + "_LayerNorm", {module / "output" / "LayerNorm"});
  };
  auto h = sublayer(x, l / "attention", tag + "_Attention", std::nullopt);
  h = sublayer(h, l / "crossattention", tag + "_Cross_Attention", other);
  auto f = feed_forward(b, h, tag + "_FFN",
                        {.hidden = d.hidden, .intermediate = d.intermediate, .activation = d.activation, .module = l,
                         .up = l / "intermediate" / "dense", .down = l / "output" / "dense",
                         .output_dropout = d.hidden_dropout});
  auto sum = add(b, f, h, tag + "_FFN_Add");
  return norm(b, sum, tag + "_FFN_LayerNorm", {l / "output" / "LayerNorm"});
}

// The node ending text layer `i` (its output LayerNorm; i = -1: the embeddings' LayerNorm), found by module path:
// the trunk builds the whole stack at once.
Value text_layer_output(const GraphBuilder& b, std::size_t from, std::int64_t i, const Value& fallback) {
  const std::string suffix = i < 0 ? std::string("text_model.embeddings.LayerNorm")
                                   : fmt::format("text_model.encoder.layer.{}.output.LayerNorm", i);
  const auto& nodes = b.graph().nodes;
  for (std::size_t k = nodes.size(); k-- > from;) {
    const auto& p = nodes[k].path;
    if (p.size() >= suffix.size() && p.compare(p.size() - suffix.size(), suffix.size(), suffix) == 0 &&
        (p.size() == suffix.size() || p[p.size() - suffix.size() - 1] == '.'))
      return Value{static_cast<int>(k), nodes[k].out};
  }
  return fallback;
}

struct Outputs {
  Value text, image;    ///< text_features, image_features
  Value pooled;         ///< pooler_output: both poolers' first tokens, concatenated [2 * hidden]
  Value last_text;      ///< the text tower's last layer (ForContrastiveLearning reads it)
  Value contrastive_image;  ///< ForContrastiveLearning: the last resblock, post-normed, transformed and typed
  std::int64_t vocab = 0;
  std::string word_embeddings;
};

Outputs bridgetower_model(const BuildInput& in, GraphBuilder& b, const Top& top) {
  const Config& c = in.config;
  const Config tc = c.child("text_config");
  const Config vc = c.child("vision_config");
  SharedParameters shared(b);

  // Text tower: RobertaModel under text_model with BridgeTowerTextConfig's defaults; its pooler is stored only.
  bert::ConfigDefaults text_defaults{.vocab = 50265, .max_positions = 514, .type_vocab = 1};
  bert::Layout layout = bert::roberta_layout("text_model", text_defaults);
  layout.always_prefixed = true;
  layout.pooler = bert::PoolerUse::Never;
  const BuildInput text_build{tc, in.class_name, Head::Base, in.requested_seq, in.requested_image_size};
  const std::size_t text_start = b.graph().nodes.size();
  bert::Trunk t;
  {
    graph::Nested nest(b, {.module = "", .label = "Text_", .first_block = 0});
    t = bert::trunk(text_build, b, layout, {});
    // BridgeTowerTextModel(add_pooling_layer=True) keeps a pooler that BridgeTowerModel.forward never runs.
    linear_tensors(b, t.x, t.root / "pooler" / "dense", t.hidden, t.hidden, true, graph::Operand::Idle);
  }
  const std::int64_t text_layers = tc.dim({"num_hidden_layers"}, 12);
  const CrossDims d{.hidden = t.hidden,
                    .heads = tc.dim({"num_attention_heads"}, 12),
                    .intermediate = t.intermediate,
                    .activation = t.activation,
                    .hidden_dropout = tc.number({"hidden_dropout_prob"}, 0.1),
                    .attention_dropout = tc.number({"attention_probs_dropout_prob"}, 0.1)};

  // Vision tower.
  Vision v{.hidden = vc.dim({"hidden_size"}, 768), .blocks = vc.dim({"num_hidden_layers"}, 12),
           .root = Scope("vision_model") / "visual"};
  if (vc.flag({"remove_last_layer"}, false)) v.blocks -= 1;
  const bool share_layernorm = vc.flag({"share_layernorm"}, true);
  // The vision nodes interleave with the cross-modal ones; each group keeps its own names and block numbers.
  const int vision_first = b.next_block();
  const int cross_first = vision_first + static_cast<int>(v.blocks);
  const graph::Nest vision_nest{.module = "", .label = "Vision_", .first_block = vision_first};
  const graph::Nest cross_nest{.module = "", .label = "", .first_block = cross_first};
  Value image;
  {
    graph::Nested nest(b, vision_nest);
    image = vision_stem(in, b, vc, v);
  }

  // The towers' bottom layers run alone; each of the top (num_hidden_layers - 1) feeds one cross-modal layer.
  const std::int64_t split = text_layers - top.layers + 1;
  if (split < 0)
    throw Error(ErrorKind::InvalidInput, c.origin() + ": key 'num_hidden_layers'",
                fmt::format("{} cross-modal layers need at least {} text layers; text_config has {}", top.layers,
                            top.layers - 1, text_layers));
  {
    graph::Nested nest(b, vision_nest);
    for (std::int64_t i = 0; i < std::min(split, v.blocks); ++i) image = resblock(b, image, v, i);
  }

  // forward_post: ln_post over the whole sequence, the shared module every bridge reads through.
  auto post = [&](const Value& x, std::int64_t k) {
    return shared.layer_norm(x, fmt::format("Post_LayerNorm_{}", k), v.root / "ln_post");
  };
  int transforms = 0;  // node names: the contrastive head applies the image transform of layer 0 once more
  auto transform = [&](const Value& x, std::string_view which, std::int64_t in_width, std::int64_t k) {
    const Scope module = top.share_transform ? Scope(fmt::format("cross_modal_{}_transform", which))
                                             : Scope(fmt::format("cross_modal_{}_transform", which)) / k;
    auto out = b.node(NodeType::Linear, fmt::format("Cross_Modal_{}_Transform_{}", which, transforms++),
                      graph::Shape{x.shape[0], top.hidden}, {x}, module);
    shared.linear(out, module, in_width, top.hidden);
    if (x.shape.back() != in_width)
      b.fail(out, fmt::format("expects {} features, receives {}", in_width, x.shape.back()));
    return out;
  };
  // token_type_embeddings: row 0 added to text, row 1 (image_token_type_idx) to image states.
  auto token_type = [&](const Value& x, std::string_view which, std::int64_t k) {
    auto out = b.node(NodeType::Embedding, fmt::format("Token_Type_{}_{}", which, k), x.shape, {x},
                      Scope("token_type_embeddings"));
    shared(out, Scope("token_type_embeddings")("weight"), {2, top.hidden}, graph::TensorRole::Embedding);
    return out;
  };
  auto link = [&](const Value& uni, const Value& cross, std::string_view which, std::int64_t k) {
    const Scope module = top.share_links ? Scope(fmt::format("cross_modal_{}_link_tower", which))
                                         : Scope(fmt::format("cross_modal_{}_link_tower", which)) / k;
    auto sum = b.node(NodeType::Add, fmt::format("Link_{}_Add_{}", which, k), cross.shape, {uni, cross}, module);
    if (top.link_type == "scaled_add") shared(sum, module("scaled_factor"), {}, graph::TensorRole::Other);
    if (top.link_type == "interpolate") shared(sum, module("beta"), {}, graph::TensorRole::Other);
    return shared.layer_norm(sum, fmt::format("Link_{}_LayerNorm_{}", which, k), module / "LayerNorm");
  };

  Value text = text_layer_output(b, text_start, split - 1, t.x);

  Value image_ln = post(image, 0);
  if (!share_layernorm) {
    // ln_separate: one LayerNorm per vision layer, stored; BridgeTowerModel.forward reads ln_post only.
    for (std::int64_t k = 0; k < vc.dim({"num_hidden_layers"}, 12); ++k) {
      b.parameter(image_ln, (v.root / "ln_separate" / k)("weight"), {v.hidden}, graph::TensorRole::Norm,
                  graph::Operand::Idle);
      b.parameter(image_ln, (v.root / "ln_separate" / k)("bias"), {v.hidden}, graph::TensorRole::Bias,
                  graph::Operand::Idle);
    }
    // Copying ln_post into them reads `cross_modal_ln_separate`, an attribute the vision tower does not have.
    if (c.flag({"init_layernorm_from_vision_encoder"}, false))
      b.fail(image_ln, "init_layernorm_from_vision_encoder with vision_config.share_layernorm false: the reference "
                       "reads visual.cross_modal_ln_separate, which does not exist, and raises AttributeError");
  }
  Value cross_text = norm(b, token_type(transform(text, "text", t.hidden, 0), "text", 0), "Cross_Modal_Text_LayerNorm",
                          {Scope("cross_modal_text_layernorm")});
  Value cross_image = norm(b, token_type(transform(image_ln, "image", v.hidden, 0), "image", 0),
                           "Cross_Modal_Image_LayerNorm", {Scope("cross_modal_image_layernorm")});
  if (top.hidden != d.hidden)
    b.fail(cross_text, fmt::format("the cross-modal layers run at text_config.hidden_size {}, the transforms give {}",
                                   d.hidden, top.hidden));

  graph::Nested cross(b, cross_nest);
  const Scope text_layers_scope("cross_modal_text_layers");
  const Scope image_layers_scope("cross_modal_image_layers");
  b.set_block(0);
  Value text_feat = cross_layer(b, cross_text, cross_image, text_layers_scope / 0, d, "Cross_Text_0");
  Value image_feat = cross_layer(b, cross_image, cross_text, image_layers_scope / 0, d, "Cross_Image_0");
  for (std::int64_t i = split, k = 0; i < text_layers; ++i, ++k) {
    if (i >= v.blocks) {
      b.fail(image_feat, fmt::format("the bridges run vision resblock {} but the tower has {}", i, v.blocks));
      break;
    }
    text = text_layer_output(b, text_start, i, t.x);
    {
      b.close_nest();
      graph::Nested nest(b, vision_nest);
      image = resblock(b, image, v, i);
    }
    b.open_nest(cross_nest);
    b.set_block(static_cast<int>(k + 1));
    auto bridged_image = token_type(transform(post(image, k + 1), "image", v.hidden, k + 1), "image", k + 1);
    auto bridged_text = token_type(transform(text, "text", t.hidden, k + 1), "text", k + 1);
    auto text_in = link(bridged_text, text_feat, "text", k);
    auto image_in = link(bridged_image, image_feat, "image", k);
    text_feat = cross_layer(b, text_in, image_in, text_layers_scope / (k + 1), d, fmt::format("Cross_Text_{}", k + 1));
    image_feat =
        cross_layer(b, image_in, text_in, image_layers_scope / (k + 1), d, fmt::format("Cross_Image_{}", k + 1));
  }
  b.set_block(-1);
  // Resblocks past the last text layer are stored but never run.
  for (std::int64_t i = std::max(split, text_layers); i < v.blocks; ++i) resblock_tensors(b, image, v, i);

  Value contrastive_image;
  if (in.head == Head::PreTraining) {
    // ForContrastiveLearning re-reads the last resblock through ln_post, the (shared) image transform and the
    // image token type.
    contrastive_image = token_type(transform(post(image, top.layers), "image", v.hidden, 0), "image", top.layers);
    if (!top.share_transform)
      b.fail(contrastive_image, "ForContrastiveLearning calls cross_modal_image_transform, a ModuleList when "
                                "share_cross_modal_transformer_layers is false: the reference raises");
  }

  auto text_cls =
      pooler(b, text_feat, "Cross_Modal_Text_Pooler", Scope("cross_modal_text_pooler") / "dense", top.hidden);
  auto image_cls =
      pooler(b, image_feat, "Cross_Modal_Image_Pooler", Scope("cross_modal_image_pooler") / "dense", top.hidden);
  // torch.cat keeps nothing for backward: a parameter-free join of both poolers.
  auto pooled = b.node(NodeType::Add, "Concat_Pooled", {2 * top.hidden}, {text_cls, image_cls});
  return {text_feat, image_feat, pooled, t.x, contrastive_image, t.vocab, t.word_embeddings};
}

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config& c = in.config;
  const Top top = read_top(c);
  Outputs o;
  {
    std::optional<graph::Nested> nest;
    if (in.head != Head::Base) nest.emplace(b, graph::Nest{.module = "bridgetower", .label = ""});
    o = bridgetower_model(in, b, top);
  }
  if (in.head == Head::MaskedLM) {
    // BridgeTowerMLMHead over the cross-modal text features; the decoder ties to the word embeddings only when
    // tie_word_embeddings (BridgeTowerConfig's default: False).
    const Scope head("mlm_score");
    auto h = dense(b, o.text, "MLM_Transform", head / "transform" / "dense", top.hidden, top.hidden, true,
                   top.activation);
    h = norm(b, h, "MLM_LayerNorm", {head / "transform" / "LayerNorm"});
    const bool tie = c.flag({"tie_word_embeddings"}, false);
    return lm_head(b, h, "LM_Head",
                   {.module = head / "decoder", .hidden = top.hidden, .vocab = o.vocab,
                    .tied_weight = tie ? "bridgetower." + o.word_embeddings : std::string(),
                    .extra_bias = head("bias")});
  }
  if (in.head == Head::SequenceClassification)
    // BridgeTowerITMHead: match / no match from the pooled pair, whatever num_labels says.
    return classifier(b, o.pooled, "ITM_Score", Scope("itm_score") / "fc", 2 * top.hidden, 2, true);
  if (in.head == Head::PreTraining) {
    // ForContrastiveLearning: the class reads contrastive_hidden_size, which the config class does not define.
    const std::int64_t embed = c.dim({"contrastive_hidden_size"});
    auto text = dense(b, vit::first_token(o.last_text), "ITC_Text_Head", Scope("itc_text_head") / "fc", top.hidden,
                      embed, true);
    auto image = dense(b, vit::first_token(o.contrastive_image), "ITC_Image_Head", Scope("itc_image_head") / "fc",
                       top.hidden, embed, true);
    auto cross = dense(b, o.pooled, "ITC_Cross_Modal_Head", Scope("itc_cross_modal_head") / "fc", 2 * top.hidden,
                       embed, true);
    auto logits = b.node(NodeType::ContrastiveLogits, "Contrastive_Logits", {3}, {text, image, cross});
    b.parameter(logits, "logit_scale", {}, graph::TensorRole::Other);
    return logits;
  }
  return o.pooled;
}

}  // namespace
}  // namespace bridgetower_impl

const Family& bridgetower_family() {
  static const Family family{"bridgetower", "models/bridgetower/modeling_bridgetower.py",
                             classes("BridgeTower", {heads::ForMaskedLM,
                                                     {"ForImageAndTextRetrieval", Head::SequenceClassification},
                                                     {"ForContrastiveLearning", Head::PreTraining}}),
                             bridgetower_impl::build};
  return family;
}

}  // namespace neurarch::families
