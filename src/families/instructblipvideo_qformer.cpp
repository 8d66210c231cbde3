// InstructBlipVideoQFormerModel alone (models/instructblipvideo/modeling_instructblipvideo.py, transformers 5.24):
// InstructBLIP-Video's copy of InstructBLIP's; built alone, one sample is one frame. forward(input_ids, query_embeds,
// encoder_hidden_states) embeds the instruction (word and position tables, then `embeddings.layernorm` over the queries
// and the instruction together) and runs the Q-Former's layers (blip_common.hpp): self-attention over both, cross-
// attention and the query FFN over the queries, the text FFN over the instruction. The instruction is --seq tokens (at
// most max_position_embeddings, which is also the default); the query embeddings are InstructBLIP's 32
// (num_query_tokens' default); the image tokens are an InstructBLIP vision tower's, class token included (14-pixel
// patches at --image-size, 224 by default), encoder_hidden_size wide.
#include <fmt/format.h>

#include "families/blip_common.hpp"

namespace neurarch::families {
namespace instructblipvideo_qformer_impl {
namespace {

using namespace blocks;

constexpr std::int64_t kQueries = 32;  // InstructBlipConfig.num_query_tokens

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config& c = in.config;
  const std::int64_t hidden = c.dim({"hidden_size"}, 768);
  const std::int64_t width = c.dim({"encoder_hidden_size"}, 1408);
  const std::int64_t side = in.image_size(blip::kBlip2Vision.image) / blip::kBlip2Vision.patch;
  const std::int64_t positions = c.dim({"max_position_embeddings"}, 512);
  const std::int64_t instruction = in.sequence_length(positions);
  auto queries = b.input({kQueries, hidden}, "embeddings", "query_embeds");
  auto image = b.input({side * side + 1, width}, "embeddings", "encoder_hidden_states");
  auto out = blip::qformer(b, c,
                           {.queries = queries, .image = image, .encoder_width = width,
                            .instruction_tokens = instruction, .instruction_input = "input_ids"});
  if (instruction > positions)
    b.fail(out, fmt::format("an instruction of {} tokens passes the Q-Former's {} position rows", instruction,
                            positions));
  // input_ids is forward()'s first argument.
  for (const auto& input : b.graph().inputs)
    if (input.name == "input_ids") b.set_main_input(Value{input.node, input.shape});
  return out;
}

}  // namespace
}  // namespace instructblipvideo_qformer_impl

const Family& instructblipvideo_qformer_family() {
  static const Family family{"instructblipvideo_qformer", "models/instructblipvideo/modeling_instructblipvideo.py",
                             classes("InstructBlipVideoQFormer"), instructblipvideo_qformer_impl::build};
  return family;
}

}  // namespace neurarch::families
