#include "families/colvision_common.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "families/multimodal_common.hpp"

namespace neurarch::families::colvision {

using namespace blocks;

Config vlm_config(const Config& c, std::string_view vlm_type, std::string_view owner) {
  // Both config classes build the VLM's default config when vlm_config is absent.
  const Config vlm = c.child("vlm_config", {{"model_type", std::string(vlm_type)}});
  const std::string type = vlm.text({"model_type"}, std::string(vlm_type));
  if (type != vlm_type)
    throw Error(ErrorKind::Unsupported, c.origin() + ": vlm_config: key 'model_type'",
                fmt::format("{}'s vision-language model '{}' is not supported ({} is)", owner, type, vlm_type));
  return vlm;
}

Value retrieval(const BuildInput& in, GraphBuilder& b, const Config& vlm, BaseModel base, bool lm_head_tied) {
  Value hidden;
  std::int64_t width = 0;
  {
    graph::Nested nest(b, {.module = "vlm", .label = ""});
    {
      graph::Nested model(b, {.module = "model", .label = ""});
      hidden = base(in, b, vlm);
    }
    const graph::Node* embed = multimodal::prompt_embedding(b.graph());
    if (!embed || embed->tensors.empty())
      throw Error(ErrorKind::Unsupported, vlm.origin(), "the language model has no token embedding");
    const auto table = b.graph().tensors[static_cast<std::size_t>(embed->tensors.front())].shape;
    width = table.back();
    if (!lm_head_tied)
      b.parameter(hidden, Scope("lm_head")("weight"), {table.front(), width}, graph::TensorRole::Linear,
                  graph::Operand::Idle);
  }
  return dense(b, hidden, "Embedding_Proj", Scope("embedding_proj_layer"), width, in.config.dim({"embedding_dim"}, 128),
               true);
}

}  // namespace neurarch::families::colvision
