// Ovis2 (Ovis2Model, Ovis2ForConditionalGeneration in models/ovis2/modeling_ovis2.py + configuration_ovis2.py; the
// shared ground truth is transformers 4.57.6's): a visual tokenizer instead of a projector.
// - vision_tower (Ovis2VisionModel): AIMv2's vision transformer under `transformer` (modular_ovis2.py derives it
//   from Aimv2's: aimv2_common, with the stem's conv named patch_embedding and no attention-probe head); with
//   hidden_stride s > 1, s × s neighbouring patches are joined into one token (the grid padded to a multiple of s);
//   head_linear (no bias) scores each token over the visual vocabulary less its num_visual_indicator_tokens,
//   head_norm (a LayerNorm) and a softmax (tokenize_function) make a distribution over it;
// - visual_embeddings_table [vision vocab_size, hidden_size]: the distribution, padded with zeros for the indicator
//   tokens, times the table (Ovis2VisualEmbeddingTable's forward on float input), gives the image's embeddings,
//   which replace the prompt's image tokens of the language model (text_config, Qwen2 by default);
// - lm_head [vocab_size, hidden_size] beside `model`: the composite config's own sizes (Ovis2Config's defaults,
//   1536 and 151643, are not its Qwen2 text model's 4096 and 151936, so the defaults cannot run: the reference's
//   scatter and head fail the same way), tied as text_config says (4.57's rule).
#include <cmath>

#include <fmt/format.h>

#include "core/error.hpp"
#include "families/aimv2_common.hpp"
#include "families/multimodal_common.hpp"

namespace neurarch::families {
namespace ovis2_impl {
namespace {

using namespace blocks;
using graph::NodeType;

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config& c = in.config;
  const Config vision = c.child("vision_config");
  const Config text = c.child("text_config");
  const auto lm = multimodal::find_language_model(c, text.text({"model_type"}, "qwen2"), Head::Base, "Ovis2");
  const std::int64_t hidden = c.dim({"hidden_size"}, 1536);
  const std::int64_t vocab = c.dim({"vocab_size"}, 151643);
  const std::int64_t visual_vocab = vision.dim({"vocab_size"}, 16384);
  const std::int64_t indicators = vision.integer({"num_visual_indicator_tokens"}, 5);
  const std::int64_t stride = vision.dim({"hidden_stride"}, 1);
  if (indicators < 0 || indicators >= visual_vocab)
    throw Error(ErrorKind::InvalidInput, c.origin() + ": vision_config: key 'num_visual_indicator_tokens'",
                fmt::format("must lie in [0, vocab_size = {})", visual_vocab));
  const Scope model(in.head == Head::Base ? "" : "model");

  Value probabilities;
  {
    graph::Nested nest(b, {.module = (model / "vision_tower").path(), .label = "Vision_", .first_block = 0});
    const BuildInput sub{vision, in.class_name, Head::Base, std::nullopt, in.requested_image_size};
    const aimv2::Tower tower =
        aimv2::vision_tower(sub, b, vision, Scope("transformer"), {.patch_module = "patch_embedding", .head = false});
    // s x s neighbouring patches side by side in one token (a reshape; the padding is zeros).
    const std::int64_t patches = tower.sequence.shape.front();
    auto side = static_cast<std::int64_t>(std::sqrt(static_cast<double>(patches)));
    while (side * side > patches) --side;
    const std::int64_t grouped = (side + stride - 1) / stride;
    const Value tokens{tower.sequence.node, {grouped * grouped, tower.hidden * stride * stride}};
    auto logits = dense(b, tokens, "Head_Linear", Scope("head_linear"), tower.hidden * stride * stride,
                        visual_vocab - indicators, false);
    if (stride > 1 && side * side != patches)
      b.fail(logits, fmt::format("{} patches are not a square grid, which hidden_stride {} regroups", patches, stride));
    probabilities = norm(b, logits, "Head_Norm", {Scope("head_norm"), NormKind::LayerNorm, true});
    b.at(probabilities).activation = "softmax";
  }
  // The distribution padded to the whole visual vocabulary, times the table ([vocab, hidden]: an nn.Embedding's
  // weight read as the right-hand matrix).
  const std::int64_t tokens = probabilities.shape.front();
  auto embedded = b.node(NodeType::Linear, "Visual_Embeddings_Table", {tokens, hidden}, {probabilities},
                         model / "visual_embeddings_table");
  b.parameter(embedded, (model / "visual_embeddings_table")("weight"), {visual_vocab, hidden}, graph::TensorRole::Embedding);

  Value out = multimodal::build_language_model(
      in, b, text, lm, {.module = (model / "language_model").path(), .label = "LM_", .first_block = b.next_block()});
  multimodal::scatter_image_features(b, embedded);
  if (in.head != Head::CausalLM) return out;
  LmHeadSpec head{.module = Scope("lm_head"), .hidden = hidden, .vocab = vocab};
  if (text.flag({"tie_word_embeddings"}, false)) head.tied_weight = (model / "language_model" / "embed_tokens")("weight");
  return lm_head(b, out, "LM_Head", head);
}

}  // namespace
}  // namespace ovis2_impl

const Family& ovis2_family() {
  static const Family family{"ovis2", "models/ovis2/modeling_ovis2.py",
                             classes("Ovis2", {heads::VisionLanguageGeneration}), ovis2_impl::build};
  return family;
}

}  // namespace neurarch::families
