// VisualBERT (models/visual_bert/modeling_visual_bert.py + configuration_visual_bert.py, transformers 4.47.1):
// BERT over the text tokens followed by region features from an external detector (`visual_embeds`,
// [regions, visual_embedding_dim]). Each region goes through `embeddings.visual_projection` and adds its own
// `visual_token_type_embeddings` and `visual_position_embeddings` rows; text and regions are concatenated before
// the shared embedding LayerNorm, then BERT's post-norm layers (eager attention only) and the tanh pooler.
// The config does not say how many regions a sample has: the detector does. 36 (the bottom-up features' usual
// count) stands for it.
#include <fmt/format.h>

#include "families/bert_common.hpp"

namespace neurarch::families {
namespace visual_bert_impl {
namespace {

using namespace blocks;

// Regions per sample when nothing says otherwise (see the header).
constexpr std::int64_t kRegions = 36;

// The visual stream of VisualBertEmbeddings, joined after the text embeddings (before the LayerNorm).
Value visual_embeddings(const BuildInput& in, GraphBuilder& b, const Value& text, const Scope& emb) {
  const Config& c = in.config;
  const std::int64_t hidden = text.shape.back();
  const std::int64_t width = c.dim({"visual_embedding_dim"}, 512);
  const std::int64_t positions = c.dim({"max_position_embeddings"}, 512);
  auto regions = b.input({kRegions, width}, "embeddings", "visual_embeds");
  b.note(fmt::format("visual_embeds: {} detector regions per sample assumed (the config does not fix the count)",
                     kRegions));
  auto x = dense(b, regions, "Visual_Projection", emb / "visual_projection", width, hidden, true);
  x = added_embedding(b, x, "Visual_Token_Type_Embedding", emb / "visual_token_type_embeddings",
                      c.dim({"type_vocab_size"}, 2), hidden);
  // Without image_text_alignment every region reads position row 0.
  x = added_embedding(b, x, "Visual_Position_Embedding", emb / "visual_position_embeddings", positions, hidden);
  // torch.cat keeps nothing for backward: a parameter-free join of both streams.
  return b.node(graph::NodeType::Add, "Concat_Text_Regions", {text.shape.front() + kRegions, hidden}, {text, x});
}

Value build(const BuildInput& in, GraphBuilder& b) {
  static const bert::Layout layout{
      .prefix = "visual_bert",
      .defaults = {.pad = 1},
      .cross_attention = false,
      .sdpa = false,
      .extra_embeddings = visual_embeddings};
  return bert::build(in, b, layout);
}

}  // namespace
}  // namespace visual_bert_impl

const Family& visual_bert_family() {
  static const Family family{"visual_bert", "models/visual_bert/modeling_visual_bert.py", classes("VisualBert"), visual_bert_impl::build};
  return family;
}

}  // namespace neurarch::families
