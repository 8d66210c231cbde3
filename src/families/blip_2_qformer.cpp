// Blip2QFormerModel alone (models/blip_2/modeling_blip_2.py, transformers 4.57.6; 4.47.1 has no blip_2_qformer
// model type): forward(query_embeds, encoder_hidden_states) runs the Q-Former's layernorm and layers, with no
// query tokens, embeddings or projection of its own. Both inputs are float embeddings: --seq query embeddings
// (32, BLIP-2's num_query_tokens, by default) and the tokens of a BLIP-2 vision tower, class token included
// (patches of 14 px at --image-size, 224 by default), encoder_hidden_size wide. use_qformer_text_input stores the
// text FFN (intermediate / output) this forward never runs.
#include "families/blip_common.hpp"

namespace neurarch::families {
namespace blip_2_qformer_impl {
namespace {

using namespace blocks;

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config& c = in.config;
  const std::int64_t hidden = c.dim({"hidden_size"}, 768);
  const std::int64_t width = c.dim({"encoder_hidden_size"}, 1408);
  const std::int64_t side = in.image_size(blip::kBlip2Vision.image) / blip::kBlip2Vision.patch;
  auto queries = b.input({in.requested_seq.value_or(32), hidden}, "embeddings", "query_embeds");
  auto image = b.input({side * side + 1, width}, "embeddings", "encoder_hidden_states");
  return blip::qformer(b, c,
                       {.queries = queries, .image = image, .encoder_width = width,
                        .text_ffn = c.flag({"use_qformer_text_input"}, false)});
}

}  // namespace
}  // namespace blip_2_qformer_impl

const Family& blip_2_qformer_family() {
  static const Family family{"blip_2_qformer", "models/blip_2/modeling_blip_2.py", classes("Blip2QFormer"), blip_2_qformer_impl::build};
  return family;
}

}  // namespace neurarch::families
