// ERNIE 4.5 MoE (models/ernie4_5_moe/modeling_ernie4_5_moe.py + configuration_ernie4_5_moe.py,
// transformers 4.57.6): ERNIE 4.5's Llama layer (one use_bias switch for q/k/v/o, every MLP and the
// LM head; embeddings tied by default). Layer i is sparse when (i + 1) % moe_layer_interval == 0 and
// moe_layer_start_index <= i <= moe_layer_end_index (-1: the last layer): an fp32 router `mlp.gate`
// [moe_num_experts, hidden] without bias, moe_statics.e_score_correction_bias [1, moe_num_experts]
// (a frozen fp32 parameter added to the scores when picking experts), experts.<i> of
// moe_intermediate_size and, with moe_num_shared_experts > 0, one shared_experts MLP of
// moe_intermediate_size x moe_num_shared_experts. Other layers keep a dense MLP of intermediate_size.
#include "families/moe_common.hpp"

namespace neurarch::families {
namespace ernie4_5_moe_impl {
namespace {

std::vector<bool> sparse_layers(const Config& c, std::int64_t layers, std::int64_t experts) {
  const std::int64_t interval = c.integer({"moe_layer_interval"}, 1);
  const std::int64_t start = c.integer({"moe_layer_start_index"}, 1);
  std::int64_t end = c.integer({"moe_layer_end_index"}, -1);
  if (end == -1) end = layers - 1;
  std::vector<bool> out(static_cast<std::size_t>(layers), false);
  // An interval of 0 raises ZeroDivisionError in the reference: no layer is sparse here.
  for (std::int64_t i = 0; i < layers && interval > 0 && experts > 0; ++i)
    out[static_cast<std::size_t>(i)] = (i + 1) % interval == 0 && i >= start && i <= end;
  return out;
}

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  const Config& c = in.config;
  decoder::DecoderSpec s = decoder::read_llama_config(
      c, {.vocab = 103424, .hidden = 2560, .intermediate = 12288, .layers = 28, .heads = 20, .kv_heads = 4,
          .positions = 131072, .activation = "silu", .tie_word_embeddings = true});
  const bool bias = c.flag({"use_bias"}, false);
  s.qkv_bias = bias;
  s.o_bias = bias;
  s.mlp_bias = bias;
  s.down_bias = bias;
  s.lm_head_bias = bias;

  const std::int64_t experts = c.integer({"moe_num_experts", "num_experts"}, 64);
  const std::int64_t expert_width = c.dim({"moe_intermediate_size"}, 1536);
  const std::int64_t shared = c.integer({"moe_num_shared_experts"}, 2);
  const blocks::MoESpec base{.hidden = s.hidden, .intermediate = expert_width, .experts = experts,
                             .top_k = c.integer({"moe_k", "num_experts_per_tok"}, 6), .activation = s.activation,
                             .expert_bias = bias, .shared_intermediate = expert_width * shared};
  const auto hidden = s.hidden, intermediate = s.intermediate;
  const auto activation = s.activation;
  auto hook = moe::layer_hook(
      sparse_layers(c, s.layers, experts),
      moe::experts_under(base, "mlp", shared > 0 ? "shared_experts" : ""),
      [hidden, intermediate, activation, bias](graph::GraphBuilder& gb, const graph::Value& x, std::int64_t i,
                                               const graph::Scope& layer) {
        return moe::dense_mlp(gb, x, i, layer / "mlp", hidden, intermediate, activation, bias);
      });
  s.mlp_override = [hook, experts](graph::GraphBuilder& gb, const graph::Value& x, std::int64_t i,
                                   const graph::Scope& layer) {
    auto out = hook(gb, x, i, layer);
    if (gb.at(out).moe) {
      // Ernie4_5_MoeStatics declares it with requires_grad=False: saved and loaded, never trained.
      const std::string correction = (layer / "mlp" / "moe_statics")("e_score_correction_bias");
      gb.parameter(out, correction, {1, experts}, graph::TensorRole::Bias);
      gb.freeze_if([&correction](std::string_view name) { return name.ends_with(correction); });
    }
    return out;
  };
  return decoder::build_decoder(in, b, s);
}

}  // namespace
}  // namespace ernie4_5_moe_impl

const Family& ernie4_5_moe_family() {
  static const Family family{"ernie4_5_moe", "models/ernie4_5_moe/modeling_ernie4_5_moe.py",
                             classes("Ernie4_5_Moe", {heads::ForCausalLM}), ernie4_5_moe_impl::build};
  return family;
}

}  // namespace neurarch::families
