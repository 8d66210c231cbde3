// BLIP (models/blip/modeling_blip.py + modeling_blip_text.py, transformers 4.47.1): a ViT tower (blip_common) and
// a BERT-style text model whose layers hold a `crossattention` whenever text_config.is_decoder (the default),
// reading encoder_hidden_size-wide image tokens. BlipModel compares the pooled towers (the text model runs
// bidirectionally, without the image, its cross-attention stored but idle); the captioner's text_decoder runs
// causally over the caption while cross-attending to every image token; the VQA model encodes the question
// against the image, then decodes the answer (decoder_input_ids) against the question's states; the retrieval
// model scores image-text matching (itm_head) on the cross-attending text encoder's first token. The text
// decoder's LM weight is never tied (the composite model's tie_weights does not reach it), only its bias.
// Every attention here has only the eager path.
#include <fmt/format.h>

#include "families/bert_common.hpp"
#include "families/blip_common.hpp"
#include "families/clip_common.hpp"
#include "families/vit_common.hpp"

namespace neurarch::families {
namespace blip_impl {
namespace {

using namespace blocks;

struct Towers {
  Config text;
  Config vision;
};

BuildInput text_input(const BuildInput& in, const Config& text, std::string_view cls, Head head,
                      std::optional<std::int64_t> seq) {
  return BuildInput{text, std::string(cls), head, seq, in.requested_image_size};
}

// BlipModel: contrastive logits between the projected pooled text and the projected pooled image.
Value contrastive(const BuildInput& in, GraphBuilder& b, const Towers& t, const bert::Layout& layout) {
  const std::int64_t projection = in.config.dim({"projection_dim"}, 512);
  Value text_embeds, image_embeds;
  {
    graph::Nested nest(b, {.module = "text_model", .label = "Text_", .first_block = 0});
    const BuildInput text = text_input(in, t.text, "BlipTextModel", Head::Base, in.requested_seq);
    auto trunk = bert::trunk(text, b, layout, {.causal = false});
    auto pooled = bert::pooler(text, b, layout, trunk);
    text_embeds = *pooled;
  }
  text_embeds = dense(b, text_embeds, "Text_Projection", Scope("text_projection"), text_embeds.shape.back(),
                      projection, false);
  {
    graph::Nested nest(b, {.module = "", .label = "Vision_", .first_block = b.next_block()});
    auto v = blip::vision_tower(in, b, t.vision, blip::kBlipVision, Scope("vision_model"));
    image_embeds = dense(b, v.pooled, "Visual_Projection", Scope("visual_projection"), v.hidden, projection, false);
  }
  return clip::contrastive_logits(b, text_embeds, image_embeds, {}, false);
}

blip::VisionTower vision(const BuildInput& in, GraphBuilder& b, const Towers& t) {
  graph::Nested nest(b, {.module = "", .label = "Vision_", .first_block = 0});
  return blip::vision_tower(in, b, t.vision, blip::kBlipVision, Scope("vision_model"));
}

// BlipTextLMHeadModel under `text_decoder`, cross-attending to `states`.
Value text_decoder(const BuildInput& in, GraphBuilder& b, const Towers& t, const bert::Layout& layout,
                   const Value& states, const bert::Feed& feed, std::optional<std::int64_t> seq) {
  graph::Nested nest(b, {.module = "text_decoder", .label = "Decoder_", .first_block = b.next_block()});
  const BuildInput text = text_input(in, t.text, "BlipTextLMHeadModel", Head::CausalLM, seq);
  bert::Feed f = feed;
  f.encoder_states = states;
  f.causal = true;
  return bert::heads(text, b, layout, bert::trunk(text, b, layout, f));
}

// BlipTextModel(add_pooling_layer=False) under `text_encoder`, cross-attending to the image.
bert::Trunk text_encoder(const BuildInput& in, GraphBuilder& b, const Towers& t, const bert::Layout& layout,
                         const Value& image) {
  graph::Nested nest(b, {.module = "text_encoder", .label = "Text_", .first_block = b.next_block()});
  const BuildInput text = text_input(in, t.text, "BlipTextModel", Head::Base, in.requested_seq);
  return bert::trunk(text, b, layout, {.encoder_states = image, .causal = false});
}

void input_ids_first(GraphBuilder& b) {
  for (const auto& input : b.graph().inputs)
    if (input.name == "input_ids") return b.set_main_input(Value{input.node, input.shape});
}

Value build(const BuildInput& in, GraphBuilder& b) {
  const Towers t{in.config.child("text_config"), in.config.child("vision_config")};
  const bert::Layout layout = blip::text_layout();
  switch (in.head) {
    case Head::CausalLM: {
      // forward(pixel_values, input_ids): the caption decoder reads every post-layernormed image token.
      auto v = vision(in, b, t);
      return text_decoder(in, b, t, layout, v.sequence, {}, in.requested_seq);
    }
    case Head::Seq2SeqLM: {
      // forward(input_ids, pixel_values, decoder_input_ids): question against image, answer against question.
      auto v = vision(in, b, t);
      auto question = text_encoder(in, b, t, layout, v.sequence);
      input_ids_first(b);
      return text_decoder(in, b, t, layout, question.x, {.input_name = "decoder_input_ids"},
                          in.target_length(question.seq));
    }
    case Head::SequenceClassification: {
      auto v = vision(in, b, t);
      auto text = text_encoder(in, b, t, layout, v.sequence);
      input_ids_first(b);
      // use_itm_head=False compares vision_proj(image CLS) with text_proj(text CLS) instead: both projections
      // are stored, idle in the default forward, on nodes that claim no compute for them.
      const std::int64_t shared = in.config.dim({"image_text_hidden_size"}, 256);
      linear_tensors(b, v.pooled, Scope("vision_proj"), v.hidden, shared, true);
      linear_tensors(b, text.x, Scope("text_proj"), text.hidden, shared, true);
      return classifier(b, vit::first_token(text.x), "ITM_Head", Scope("itm_head"), text.hidden, 2, true);
    }
    default:
      return contrastive(in, b, t, layout);
  }
}

}  // namespace
}  // namespace blip_impl

const Family& blip_family() {
  static const Family family{"blip", "models/blip/modeling_blip.py",
                             classes("Blip", {heads::VisionLanguageGeneration, {"ForQuestionAnswering", Head::Seq2SeqLM}, {"ForImageTextRetrieval", Head::SequenceClassification}}),
                             blip_impl::build};
  return family;
}

}  // namespace neurarch::families
