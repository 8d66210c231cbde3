// InstructBLIP (models/instructblip/modeling_instructblip.py + configuration_instructblip.py, transformers
// 4.47.1): BLIP-2's ViT-g tower and Q-Former, but the Q-Former also reads the instruction
// (qformer_input_ids, tokenized by its own BERT tokenizer): word and position embeddings under
// qformer.embeddings, joined after the query tokens; self-attention runs over queries and instruction,
// cross-attention to the image and intermediate_query / output_query over the queries, intermediate /
// output over the instruction. The queries' rows go through language_projection into the language model of
// text_config (OPT by default; Vicuna and Flan-T5 for the published checkpoints), built by its own family.
// The processor tokenizes the same prompt for both models, so the instruction is as long as the language
// model's text positions (--seq less the query outputs), at most the Q-Former's max_position_embeddings.
#include "families/blip_common.hpp"

namespace neurarch::families {
namespace instructblip_impl {
namespace {

blocks::Value build(const BuildInput& in, blocks::GraphBuilder& b) { return blip::instructed(in, b, 1); }

}  // namespace
}  // namespace instructblip_impl

const Family& instructblip_family() {
  static const Family family{"instructblip", "models/instructblip/modeling_instructblip.py",
                             {{"InstructBlipForConditionalGeneration", Head::CausalLM}}, instructblip_impl::build};
  return family;
}

}  // namespace neurarch::families
