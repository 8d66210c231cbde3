// ColPali (models/colpali/modeling_colpali.py, transformers 4.57.6): a PaliGemma of vlm_config under `vlm`
// (PaliGemmaForConditionalGeneration, 4.5x layout: `vlm.model.*`, `vlm.lm_head`) whose base model's last
// hidden state goes through `embedding_proj_layer` (text hidden -> embedding_dim, with bias) and is
// L2-normalised: one multi-vector embedding per prompt token, image tokens included. The forward calls
// `vlm.model` only, so lm_head never runs: stored when the text config unties it (on the projection here,
// claiming no compute), dropped as a tied duplicate otherwise. The L2 normalisation adds no tensor.
#include <fmt/format.h>

#include "core/error.hpp"
#include "families/multimodal_common.hpp"
#include "families/paligemma.hpp"

namespace neurarch::families {
namespace {

using namespace blocks;

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config& c = in.config;
  // ColPaliConfig builds PaliGemmaConfig() when vlm_config is absent.
  const Config vlm = c.child("vlm_config", {{"model_type", "paligemma"}});
  const std::string vlm_type = vlm.text({"model_type"}, "paligemma");
  if (vlm_type != "paligemma")
    throw Error(ErrorKind::Unsupported, c.origin() + ": vlm_config: key 'model_type'",
                fmt::format("ColPali's language model '{}' is not supported (paligemma is)", vlm_type));
  Value hidden;
  bool tied = true;
  std::int64_t width = 0;
  std::int64_t vocab = 0;
  {
    graph::Nested nest(b, {.module = "vlm", .label = ""});
    {
      graph::Nested model(b, {.module = "model", .label = ""});
      hidden = paligemma::base_model(in, b, vlm);
    }
    const graph::Node* embed = multimodal::prompt_embedding(b.graph());
    if (!embed || embed->tensors.empty())
      throw Error(ErrorKind::Unsupported, vlm.origin(), "the language model has no token embedding");
    const auto& table = b.graph().tensors[static_cast<std::size_t>(embed->tensors.front())].shape;
    vocab = table.front();
    width = table.back();
    // PaliGemmaForConditionalGeneration ties lm_head as its text config says (Gemma's default: tied).
    if (vlm.has("text_config")) tied = vlm.child("text_config").flag({"tie_word_embeddings"}, true);
    if (!tied) b.parameter(hidden, Scope("lm_head")("weight"), {vocab, width});
  }
  return dense(b, hidden, "Embedding_Proj", Scope("embedding_proj_layer"), width, c.dim({"embedding_dim"}, 128), true);
}

}  // namespace

const Family& colpali_family() {
  static const Family family{"colpali", "models/colpali/modeling_colpali.py",
                             {{"ColPaliForRetrieval", Head::Base}}, build};
  return family;
}

}  // namespace neurarch::families
