// InstructBLIP (models/instructblip/modeling_instructblip.py + configuration_instructblip.py, transformers
// 4.47.1): BLIP-2's ViT-g tower and Q-Former, but the Q-Former also reads the instruction
// (qformer_input_ids, tokenized by its own BERT tokenizer): word and position embeddings under
// qformer.embeddings, joined after the query tokens; self-attention runs over queries and instruction,
// cross-attention to the image and intermediate_query / output_query over the queries, intermediate /
// output over the instruction. The queries' rows go through language_projection into the language model of
// text_config (OPT by default; Vicuna and Flan-T5 for the published checkpoints), built by its own family.
// The processor tokenizes the same prompt for both models, so the instruction is as long as the language
// model's text positions (--seq less the query outputs), at most the Q-Former's max_position_embeddings.
#include <algorithm>

#include <fmt/format.h>

#include "families/blip_common.hpp"
#include "families/clip_common.hpp"

namespace neurarch::families {
namespace {

using namespace blocks;

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config& c = in.config;
  const Config vision_config = clip::sub_config(c, "vision_config");
  const Config qformer_config = clip::sub_config(c, "qformer_config");
  const Config text_config = clip::sub_config(c, "text_config");
  const std::int64_t queries = c.dim({"num_query_tokens"}, 32);
  const std::int64_t qformer_hidden = qformer_config.dim({"hidden_size"}, 768);
  const std::int64_t qformer_positions = qformer_config.dim({"max_position_embeddings"}, 512);
  const std::int64_t text_positions = in.requested_seq.value_or(kDefaultSequenceCap) - queries;
  const std::int64_t instruction = std::clamp<std::int64_t>(text_positions, 1, qformer_positions);

  blip::VisionTower v;
  {
    graph::Nested nest(b, {.module = "", .label = "Vision_", .first_block = 0});
    v = blip::vision_tower(in, b, vision_config, blip::kBlip2Vision, Scope("vision_model"));
  }
  Value query_output;
  {
    graph::Nested nest(b, {.module = "", .label = "QFormer_", .first_block = b.next_block()});
    query_output = blip::qformer(b, qformer_config,
                                 {.root = Scope("qformer"),
                                  .queries = blip::query_tokens(b, queries, qformer_hidden),
                                  .image = v.sequence,
                                  .encoder_width = v.hidden,
                                  .instruction_tokens = instruction});
  }
  b.note(fmt::format("the Q-Former reads a {}-token instruction (qformer_input_ids: the prompt's text positions, at "
                     "most its {} position rows) beside its {} queries",
                     instruction, qformer_positions, queries));
  auto features = dense(b, query_output, "Language_Projection", Scope("language_projection"), qformer_hidden,
                        blip::language_width(in, text_config), true);
  return blip::language_model(in, b, text_config, features);
}

}  // namespace

const Family& instructblip_family() {
  static const Family family{"instructblip", "models/instructblip/modeling_instructblip.py",
                             {{"InstructBlipForConditionalGeneration", Head::CausalLM}}, build};
  return family;
}

}  // namespace neurarch::families
