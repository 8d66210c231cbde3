#include "families/altclip_common.hpp"

#include "families/bert_common.hpp"
#include "families/vit_common.hpp"

namespace neurarch::families::altclip {

using namespace blocks;

Value text_tower(const BuildInput& text, GraphBuilder& b) {
  // AltCLIPTextConfig's defaults are XLM-R large's, with one token type.
  static const bert::Layout layout{.prefix = "roberta",
                                   .always_prefixed = true,
                                   .defaults = {.vocab = 250002, .hidden = 1024, .layers = 24, .heads = 16,
                                                .intermediate = 4096, .max_positions = 514, .type_vocab = 1, .pad = 1},
                                   .heads = bert::HeadStyle::Roberta,
                                   .pooler = bert::PoolerUse::Never,
                                   .roberta_positions = true};
  auto t = bert::trunk(text, b, layout);
  const std::int64_t project_dim = text.config.dim({"project_dim"}, 768);
  auto x = norm(b, t.x, "Pre_LN", {Scope("pre_LN")});
  x = dense(b, x, "Transformation", Scope("transformation"), t.hidden, project_dim, true);
  return vit::first_token(x);
}

}  // namespace neurarch::families::altclip
