// LayoutLMv3 (models/layoutlmv3/modeling_layoutlmv3.py, transformers 4.47.1): a RoBERTa encoder whose text
// embeddings also concatenate six box lookups (left/right from the x table, top/bottom from the y table, each
// coordinate_size wide, height and width shape_size wide). With visual_embed, the image's patches (Conv2d, a
// CLS token, an uninterpolated pos_embed and their own LayerNorm) follow the text tokens through one more
// LayerNorm. Every layer adds bucketed 1-D and 2-D relative biases, looked up once in the encoder under
// no_grad, to its scores; the only attention class is the eager one.
#include <fmt/format.h>

#include "blocks/seq2seq.hpp"
#include "core/error.hpp"
#include "families/bert_common.hpp"
#include "families/vit_common.hpp"

namespace neurarch::families {
namespace layoutlmv3_impl {
namespace {

using namespace blocks;
using graph::NodeType;

/// The six box lookups concatenated to the text embedding's width.
Value box_positions(const BuildInput& in, GraphBuilder& b, const Value& x, const Scope& emb) {
  const Config& c = in.config;
  const std::int64_t rows = c.dim({"max_2d_position_embeddings"}, 1024);
  const std::int64_t coordinate = c.dim({"coordinate_size"}, 128);
  const std::int64_t shape = c.dim({"shape_size"}, 128);
  auto out = b.node(NodeType::Embedding, "Box_Embedding", x.shape, {x}, emb);
  b.parameter(out, (emb / "x_position_embeddings")("weight"), {rows, coordinate}, graph::TensorRole::Embedding);
  b.parameter(out, (emb / "y_position_embeddings")("weight"), {rows, coordinate}, graph::TensorRole::Embedding);
  b.parameter(out, (emb / "h_position_embeddings")("weight"), {rows, shape}, graph::TensorRole::Embedding);
  b.parameter(out, (emb / "w_position_embeddings")("weight"), {rows, shape}, graph::TensorRole::Embedding);
  const std::int64_t width = 4 * coordinate + 2 * shape;
  if (width != x.shape.back())
    b.fail(out, fmt::format("the box lookups concatenate to 4 x coordinate_size + 2 x shape_size = {}, which cannot "
                            "be added to the {}-wide text embedding",
                            width, x.shape.back()));
  return out;
}

/// The image's tokens ([CLS] + patches), normed, appended to the text; then the relative-bias lookups.
Value image_tokens_and_biases(const BuildInput& in, GraphBuilder& b, const Value& text, const Scope& root) {
  const Config& c = in.config;
  const std::int64_t hidden = text.shape.back();
  const std::int64_t heads = c.dim({"num_attention_heads"}, 12);
  Value x = text;
  if (c.flag({"visual_embed"}, true)) {
    vit::Geometry g;
    g.channels = c.dim({"num_channels"}, 3);
    g.configured = vit::read_size2(c, "input_size", {224, 224, false});
    g.patch = vit::read_size2(c, "patch_size", {16, 16, false});
    g.input = g.configured;
    if (in.requested_image_size) g.input = {*in.requested_image_size, *in.requested_image_size, false};
    auto patches = vit::pixel_stem(b, g, root / "patch_embed" / "proj", hidden, 1);
    b.parameter(patches, root("cls_token"), {1, 1, hidden}, graph::TensorRole::Other);
    // pos_embed is sized for a square grid of input_size / patch_size and added without interpolation.
    const std::int64_t side = g.configured.h / g.patch.h;
    const std::int64_t rows = side * side + 1;
    auto pos = b.node(NodeType::LearnedPosEmbed, "Image_Position_Embedding", patches.shape, {patches}, root);
    b.parameter(pos, root("pos_embed"), {1, rows, hidden}, graph::TensorRole::Embedding);
    if (patches.shape.front() != rows)
      b.fail(pos, fmt::format("a {}x{} image gives {} image tokens, but pos_embed holds {} (input_size {} with patch "
                              "{}) and is added without interpolation",
                              g.input.h, g.input.w, patches.shape.front(), rows, g.configured.h, g.patch.h));
    auto image = norm(b, pos, "Image_LayerNorm", {root / "norm"});
    x = b.node(NodeType::Add, "Concat_Text_Image", {text.shape.front() + image.shape.front(), hidden}, {text, image});
    x = norm(b, x, "Joint_LayerNorm", {root / "LayerNorm"});
    b.at(x).dropout = c.number({"hidden_dropout_prob"}, 0.1);
  }

  // The tables (nn.Linear weights read as tables) are indexed under torch.no_grad, so they never receive a gradient:
  // idle, trainable in name only, with no gradient or optimizer state.
  const std::int64_t seq = x.shape.front();
  Scope encoder = root / "encoder";
  const bool relative = c.flag({"has_relative_attention_bias"}, true);
  const bool spatial = c.flag({"has_spatial_attention_bias"}, true);
  if (relative) {
    auto bias = b.node(NodeType::RelativePositionBias, "Relative_Position_Bias", {heads, seq, seq}, {x},
                       encoder / "rel_pos_bias");
    b.parameter(bias, (encoder / "rel_pos_bias")("weight"), {heads, c.dim({"rel_pos_bins"}, 32)},
                graph::TensorRole::Linear, graph::Operand::Idle);
  }
  if (relative || spatial)
    b.note("the relative-bias tables (encoder.rel_pos_*) are read under torch.no_grad: they get no gradient or "
           "optimizer state (counted as trainable, as requires_grad says, without either)");
  if (spatial) {
    const std::int64_t bins = c.dim({"rel_2d_pos_bins"}, 64);
    auto bias = b.node(NodeType::RelativePositionBias, "Spatial_Position_Bias", {heads, seq, seq}, {x}, encoder);
    for (const char* axis : {"rel_pos_x_bias", "rel_pos_y_bias"})
      b.parameter(bias, (encoder / axis)("weight"), {heads, bins}, graph::TensorRole::Linear, graph::Operand::Idle);
    if (!relative) b.note("has_spatial_attention_bias without has_relative_attention_bias: the 2-D bias is computed "
                          "but the reference adds it to no score");
  }
  return x;
}

/// Each attention adds the biases the encoder looked up (none when the 1-D one is off, as in the reference).
void add_position_biases(const BuildInput& in, GraphBuilder& b, const Value& attention, const Scope&, std::int64_t) {
  if (!in.config.flag({"has_relative_attention_bias"}, true)) return;
  std::vector<Value> biases;
  for (const auto& n : b.graph().nodes)
    if (n.type == NodeType::RelativePositionBias) biases.push_back(Value{n.index, n.out});
  for (const auto& bias : biases) add_score_bias(b, attention, bias);
}

const bert::Layout& layout() {
  static const bert::Layout l{.prefix = "layoutlmv3",
                              .defaults = {.vocab = 50265, .pad = 1},
                              .heads = bert::HeadStyle::Roberta,
                              .pooler = bert::PoolerUse::Never,
                              .roberta_positions = true,
                              .position_type_key = false,
                              .relative_attention = false,
                              .cross_attention = false,
                              .sdpa = false,
                              .extra_embeddings = box_positions,
                              .before_layers = image_tokens_and_biases,
                              .attention_extras = add_position_biases};
  return l;
}

/// LayoutLMv3ClassificationHead: dense + tanh + out_proj.
Value classification_head(GraphBuilder& b, const Value& x, const Scope& module, std::int64_t hidden,
                          std::int64_t labels, const std::string& name) {
  auto h = dense(b, x, name + "_Dense", module / "dense", hidden, hidden, true, "tanh");
  return classifier(b, h, name, module / "out_proj", hidden, labels, true);
}

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config& c = in.config;
  if (!c.flag({"text_embed"}, true))
    throw Error(ErrorKind::Unsupported, c.origin() + ": key 'text_embed'",
                "text_embed=false (an image-only LayoutLMv3 without text embeddings) is not built");
  const bert::Layout& l = layout();
  bert::Trunk t = bert::trunk(in, b, l);
  switch (in.head) {
    case Head::TokenClassification: {
      // Only the text tokens are classified; ten labels or more get the two-layer head.
      Value words{t.x.node, {t.seq, t.hidden}};
      const std::int64_t labels = in.num_labels();
      if (labels < 10) return classifier(b, words, "Classifier", Scope("classifier"), t.hidden, labels, true);
      return classification_head(b, words, Scope("classifier"), t.hidden, labels, "Classifier");
    }
    case Head::QuestionAnswering: {
      auto out = classification_head(b, t.x, Scope("qa_outputs"), t.hidden, in.num_labels(), "QA_Outputs");
      if (in.num_labels() != 2)
        b.fail(out, fmt::format("the QA head splits its {} outputs into start and end logits; it needs num_labels = 2",
                                in.num_labels()));
      return out;
    }
    default:
      return bert::heads(in, b, l, t);
  }
}

}  // namespace
}  // namespace layoutlmv3_impl

const Family& layoutlmv3_family() {
  static const Family family{"layoutlmv3", "models/layoutlmv3/modeling_layoutlmv3.py",
                             classes("LayoutLMv3",
                                     {heads::ForSequenceClassification, heads::ForTokenClassification, heads::ForQuestionAnswering}),
                             layoutlmv3_impl::build};
  return family;
}

}  // namespace neurarch::families
