#include "families/encoder_decoder_common.hpp"

#include <optional>
#include <string>
#include <utility>

#include <fmt/format.h>

#include "core/error.hpp"
#include "families/clip_common.hpp"
#include "families/decoder_feed.hpp"
#include "families/multimodal_common.hpp"

namespace neurarch::families::encoder_decoder {
using blocks::GraphBuilder;
using blocks::Value;

Config sub_config(const Config& c, std::string_view key, std::string_view owner) {
  if (!c.has(key))
    throw Error(ErrorKind::InvalidInput, fmt::format("{}: key '{}'", c.origin(), key),
                fmt::format("{} needs its '{}' sub-config", owner, key));
  return c.child(key);
}

std::pair<const Family*, const ClassDef*> find_part(const Config& c, Head head, std::string_view role) {
  const std::string type = c.model_type();
  const Family* family = find_family(type);
  const ClassDef* cls = nullptr;
  if (family)
    for (const auto& candidate : family->classes)
      if (candidate.head == head && !cls) cls = &candidate;
  if (!cls)
    throw Error(ErrorKind::Unsupported, fmt::format("{}: key 'model_type'", c.origin()),
                fmt::format("the {} '{}' is not a supported {}", role, type.empty() ? "(none)" : type,
                            head == Head::CausalLM    ? "causal LM"
                            : head == Head::Seq2SeqLM ? "sequence-to-sequence LM"
                                                      : "base model"));
  return {family, cls};
}

namespace encoder_decoder_common_impl {
namespace {

// The encoder's last_hidden_state: base classes that pool end in their pooler, which reads it.
Value last_hidden_state(const GraphBuilder& b, const Value& out) {
  const graph::Node& n = b.graph().nodes.at(static_cast<std::size_t>(out.node));
  if (n.type != graph::NodeType::Pooler || n.inputs.empty()) return out;
  const graph::Node& sequence = b.graph().nodes.at(static_cast<std::size_t>(n.inputs.front()));
  return Value{sequence.index, sequence.out};
}

}  // namespace
}  // namespace encoder_decoder_common_impl
using namespace encoder_decoder_common_impl;

Value build(const BuildInput& in, GraphBuilder& b, const Composite& composite) {
  const Config& c = in.config;
  if (c.flag({"tie_encoder_decoder"}, false))
    throw Error(ErrorKind::Unsupported, c.origin() + ": key 'tie_encoder_decoder'",
                "a decoder whose weights alias the encoder's is not built");
  const Config encoder_config = sub_config(c, "encoder", composite.owner);
  const Config decoder_config = sub_config(c, "decoder", composite.owner);
  const auto [encoder_family, encoder_class] = find_part(encoder_config, Head::Base, "encoder");
  const auto [decoder_family, decoder_class] = find_part(decoder_config, Head::CausalLM, "decoder");

  Value states;
  {
    graph::Nested nest(b, {.module = "encoder", .label = "Encoder_", .first_block = 0});
    const BuildInput sub{encoder_config, std::string(encoder_class->name), Head::Base, in.requested_seq,
                         in.requested_image_size};
    states = encoder_decoder_common_impl::last_hidden_state(b, encoder_family->build(sub, b));
  }

  // The reference compares the configs' widths: the encoder's hidden_size (speech: output_hidden_size first),
  // the decoder's hidden_size. A key the config leaves out is the width the encoder actually produces.
  const std::int64_t produced = states.shape.back();
  const std::int64_t encoder_width =
      composite.speech && encoder_config.has("output_hidden_size") ? encoder_config.dim({"output_hidden_size"})
      : encoder_config.has("hidden_size")                          ? encoder_config.dim({"hidden_size"})
                                                                   : produced;
  const multimodal::LanguageModel lm{decoder_family, decoder_class};
  const std::int64_t decoder_width = multimodal::token_width(in, decoder_config, lm);
  if (decoder_config.has("cross_attention_hidden_size")) {
    const std::int64_t declared = decoder_config.dim({"cross_attention_hidden_size"});
    if (declared != encoder_width)
      b.fail(states, fmt::format("the decoder's cross_attention_hidden_size {} is not the encoder's width {}: {} "
                                 "refuses the pair",
                                 declared, encoder_width, composite.owner));
  } else if (encoder_width != decoder_width) {
    auto projected = blocks::dense(b, states, "Encoder_To_Decoder_Projection", graph::Scope("enc_to_dec_proj"),
                                   encoder_width, decoder_width, true);
    if (produced != encoder_width)
      b.fail(projected, fmt::format("enc_to_dec_proj reads the {}-wide states the encoder config declares, the encoder "
                                    "produces {}-wide ones",
                                    encoder_width, produced));
    states = projected;
  }

  const int first_decoder_block = b.next_block();
  const int before = static_cast<int>(b.graph().nodes.size());
  Value logits;
  {
    graph::Nested nest(b, {.module = "decoder", .label = "Decoder_", .first_block = first_decoder_block});
    FeedDecoder feed(b, {.encoder_states = states});
    const BuildInput sub{decoder_config, std::string(decoder_class->name), Head::CausalLM, in.requested_target_seq,
                         in.requested_image_size};
    logits = decoder_family->build(sub, b);
  }
  // forward() always hands the decoder the encoder states; one without cross-attention layers refuses them.
  bool attends = false;
  for (std::size_t i = static_cast<std::size_t>(before); i < b.graph().nodes.size(); ++i) {
    const auto& attention = b.graph().nodes[i].attention;
    if (attention && attention->kv_input == states.node) attends = true;
  }
  if (!attends)
    b.fail(logits, fmt::format("the decoder '{}' has no cross-attention (add_cross_attention is false), so it cannot "
                               "read the encoder's states",
                               decoder_config.model_type()));
  return logits;
}

}  // namespace neurarch::families::encoder_decoder
