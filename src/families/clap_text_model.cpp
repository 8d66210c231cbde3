// CLAP's text tower alone (models/clap/modeling_clap.py, transformers 5.24): ClapTextModel is CLAP's RoBERTa with its
// pooler and saved position_ids / token_type_ids buffers, modules at the root (clap_common.hpp);
// ClapTextModelWithProjection keeps it under `text_model` and adds text_projection (a ClapProjectionLayer to
// projection_dim through projection_hidden_act) on the pooled output.
#include "families/clap_common.hpp"

namespace neurarch::families {
namespace clap_text_model_impl {
namespace {

using namespace blocks;

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config& c = in.config;
  if (in.class_name != "ClapTextModelWithProjection") return clap::text_tower(in, b, c);
  Value pooled;
  {
    graph::Nested nest(b, {.module = "text_model", .label = "", .first_block = 0});
    pooled = clap::text_tower(in, b, c);
  }
  return clap::projection(b, pooled, "Text", Scope("text_projection"), c.dim({"hidden_size"}, 768),
                          c.dim({"projection_dim"}, 512), c.text({"projection_hidden_act"}, "relu"));
}

}  // namespace
}  // namespace clap_text_model_impl

const Family& clap_text_model_family() {
  static const Family family{"clap_text_model", "models/clap/modeling_clap.py",
                             classes("ClapText", {heads::ModelWithProjection}), clap_text_model_impl::build};
  return family;
}

}  // namespace neurarch::families
