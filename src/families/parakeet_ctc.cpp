// ParakeetForCTC (models/parakeet/modeling_parakeet.py, transformers 4.57.6): the FastConformer encoder of
// encoder_config (parakeet_encoder.cpp; the config class's defaults when absent) under `encoder`, and a
// kernel-1 Conv1d `ctc_head` (hidden -> vocab_size, with bias) giving per-frame token logits.
#include "blocks/conv.hpp"
#include "families/parakeet_encoder.hpp"

namespace neurarch::families {
namespace parakeet_ctc_impl {
namespace {

using namespace blocks;

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config encoder_config = in.config.child("encoder_config");
  Value x;
  {
    graph::Nested nest(b, {.module = "encoder", .label = "", .first_block = 0});
    x = parakeet::encoder(in, b, encoder_config);
  }
  const std::int64_t hidden = x.shape.back();
  return conv1d(b, x, "CTC_Head",
                {.module = Scope("ctc_head"), .in_channels = hidden, .out_channels = in.config.dim({"vocab_size"}, 1025)});
}

}  // namespace
}  // namespace parakeet_ctc_impl

const Family& parakeet_ctc_family() {
  static const Family family{"parakeet_ctc", "models/parakeet/modeling_parakeet.py",
                             {{"ParakeetForCTC", Head::CausalLM}}, parakeet_ctc_impl::build};
  return family;
}

}  // namespace neurarch::families
