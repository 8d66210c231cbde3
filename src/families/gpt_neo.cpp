// GPT-Neo (models/gpt_neo/modeling_gpt_neo.py + configuration_gpt_neo.py, transformers 4.47.1):
// GPT-2's pre-norm block with learned positions (wpe), nn.Linear projections, bias-free q/k/v
// under attn.attention (out_proj has a bias), and attention_types alternating global and local
// layers (local: a window of window_size tokens). Aliases num_heads, num_layers;
// intermediate_size null -> 4 * hidden. Embeddings tied by default.
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "families/llama_common.hpp"

namespace neurarch::families {
namespace gpt_neo_impl {
namespace {

// attention_types, e.g. [[["global", "local"], 12]], expands to one entry per layer: a local
// layer attends within `window` tokens. Absent: the class default, 12 x (global, local).
std::vector<std::int64_t> local_windows(const Config& c, std::int64_t window) {
  std::vector<std::int64_t> out;
  const auto* types = c.raw({"attention_types"});
  if (!types || !types->is_array()) {
    for (int r = 0; r < 12; ++r) out.insert(out.end(), {0, window});
    return out;
  }
  for (const auto& group : *types) {
    if (!group.is_array() || group.size() != 2 || !group[0].is_array() || !group[1].is_number_integer()) continue;
    for (std::int64_t r = 0; r < group[1].get<std::int64_t>(); ++r)
      for (const auto& t : group[0]) out.push_back(t.is_string() && t.get<std::string>() == "local" ? window : 0);
  }
  return out;
}

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  const Config& c = in.config;
  decoder::DecoderSpec s;
  s.vocab = c.dim({"vocab_size"}, 50257);
  s.positions = c.dim({"max_position_embeddings"}, 2048);
  s.hidden = c.dim({"hidden_size"}, 2048);
  s.layers = c.dim({"num_layers", "num_hidden_layers"}, 24);
  s.heads = c.dim({"num_heads", "num_attention_heads"}, 16);
  s.kv_heads = s.heads;
  s.head_dim = s.hidden / s.heads;
  s.require_divisible = true;
  s.intermediate = c.dim({"intermediate_size"}, 4 * s.hidden);
  s.activation = c.text({"activation_function"}, "gelu_new");
  s.tie_word_embeddings = c.flag({"tie_word_embeddings"}, true);
  s.windows = local_windows(c, c.dim({"window_size"}, 256));
  if (s.windows.size() != static_cast<std::size_t>(s.layers))
    b.note(fmt::format("attention_types describe {} layers, num_layers is {} (the reference config refuses this)",
                       s.windows.size(), s.layers));
  s.windows.resize(static_cast<std::size_t>(s.layers), 0);
  s.o_bias = true;
  s.gated = false;
  s.mlp_bias = true;
  s.down_bias = true;
  s.norm = blocks::NormKind::LayerNorm;
  s.norm_bias = true;
  s.prefix = "transformer";
  s.qa_prefix = "transformer";
  s.token_classifier = "classifier";
  s.names = {.embed = "wte", .positions = "wpe", .layers = "h", .attn = "attn.attention", .o = "out_proj",
             .up = "c_fc", .down = "c_proj", .pre_attn_norm = "ln_1", .pre_ffn_norm = "ln_2", .final_norm = "ln_f"};
  return decoder::build_decoder(in, b, s);
}

}  // namespace
}  // namespace gpt_neo_impl

const Family& gpt_neo_family() {
  static const Family family{"gpt_neo", "models/gpt_neo/modeling_gpt_neo.py",
                             classes("GPTNeo", heads::kDecoder), gpt_neo_impl::build};
  return family;
}

}  // namespace neurarch::families
