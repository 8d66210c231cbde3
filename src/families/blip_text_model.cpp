// BLIP's text model alone (models/blip/modeling_blip_text.py, transformers 5.24): BlipTextModel is BLIP's BERT with
// its pooler, every layer holding an idle `crossattention` (is_decoder defaults to true; no image is fed), run
// bidirectionally as forward() does by default. BlipTextLMHeadModel keeps it under `bert`, without the pooler, and
// runs it causally under cls.predictions. Built alone, the LM decoder is tied to the word embeddings, which the
// composite's tie_weights never does.
#include "families/bert_common.hpp"
#include "families/blip_common.hpp"

namespace neurarch::families {
namespace blip_text_model_impl {
namespace {

using namespace blocks;

Value build(const BuildInput& in, GraphBuilder& b) {
  bert::Layout layout = blip::text_layout();
  layout.tie_lm_decoder = true;
  if (in.head == Head::CausalLM) return bert::heads(in, b, layout, bert::trunk(in, b, layout, {.causal = true}));
  auto trunk = bert::trunk(in, b, layout, {.causal = false});
  return bert::pooler(in, b, layout, trunk).value_or(trunk.x);
}

}  // namespace
}  // namespace blip_text_model_impl

const Family& blip_text_model_family() {
  static const Family family{"blip_text_model", "models/blip/modeling_blip_text.py",
                             {{"BlipTextModel", Head::Base}, {"BlipTextLMHeadModel", Head::CausalLM}}, blip_text_model_impl::build};
  return family;
}

}  // namespace neurarch::families
