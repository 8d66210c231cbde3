// NVIDIA Nemotron-H / Nemotron Nano 2 / Nemotron 3 (models/nemotron_h/modular_nemotron_h.py +
// configuration_nemotron_h.py, transformers 5.24.0): Mamba-2's stack (embeddings -> blocks of RMSNorm `norm`, one
// mixer, residual add -> norm_f) whose mixer is, per layer, a Mamba-2 mixer, GQA attention without positions or
// biases, an ungated MLP (up -> relu2 -> down), or a DeepSeek-V3-style mixture of ungated experts (router `gate`
// with an fp32 e_score_correction_bias) plus one shared expert. The layer list is layers_block_type (alias
// layer_types) or, as published, hybrid_override_pattern (M mamba, * attention, - MLP, E experts); its length is
// the depth (num_hidden_layers is ignored). Checkpoints are saved under `backbone.` with one module per expert.
// The LM head is never tied (_tied_weights_keys is empty), whatever tie_word_embeddings says.
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "blocks/moe.hpp"
#include "blocks/ssm.hpp"
#include "core/error.hpp"
#include "families/decoder_heads.hpp"

namespace neurarch::families {
namespace nemotron_h_impl {
namespace {

enum class Mixer { Mamba, Attention, Mlp, Experts };

Mixer mixer_named(const std::string& type, const std::string& where) {
  // "mamba" and "attention" are the legacy names the reference remaps.
  if (type == "linear_attention" || type == "mamba") return Mixer::Mamba;
  if (type == "full_attention" || type == "attention") return Mixer::Attention;
  if (type == "mlp") return Mixer::Mlp;
  if (type == "moe") return Mixer::Experts;
  throw Error(ErrorKind::InvalidInput, where,
              fmt::format("unknown layer type '{}' (expected mamba / linear_attention, attention / full_attention, "
                          "mlp or moe)", type));
}

std::vector<Mixer> layer_mixers(const Config& c) {
  std::vector<Mixer> out;
  if (const auto* types = c.raw({"layers_block_type", "layer_types"}); types && !types->is_null()) {
    const std::string where = c.origin() + ": key 'layers_block_type'";
    if (!types->is_array()) throw Error(ErrorKind::InvalidInput, where, "expected a list of layer types");
    for (const auto& t : *types) {
      if (!t.is_string()) throw Error(ErrorKind::InvalidInput, where, "expected a list of layer types");
      out.push_back(mixer_named(t.get<std::string>(), where));
    }
    return out;
  }
  if (c.has("hybrid_override_pattern")) {
    const std::string where = c.origin() + ": key 'hybrid_override_pattern'";
    for (const char ch : c.text({"hybrid_override_pattern"})) {
      switch (ch) {
        case 'M': out.push_back(Mixer::Mamba); break;
        case '*': out.push_back(Mixer::Attention); break;
        case '-': out.push_back(Mixer::Mlp); break;
        case 'E': out.push_back(Mixer::Experts); break;
        default:
          throw Error(ErrorKind::InvalidInput, where,
                      fmt::format("unknown layer letter '{}' (expected M, *, - or E)", ch));
      }
    }
    return out;
  }
  return {Mixer::Mamba, Mixer::Experts, Mixer::Attention, Mixer::Mlp};
}

struct Spec {
  std::int64_t vocab = 0, hidden = 0;
  std::vector<Mixer> layers;
  blocks::MambaMixerSpec mamba;
  blocks::AttentionSpec attention;
  blocks::FeedForwardSpec mlp;
  blocks::MoESpec experts;
  blocks::FeedForwardSpec shared;
};

Spec read(const Config& c) {
  Spec s;
  s.vocab = c.dim({"vocab_size"}, 131072);
  s.hidden = c.dim({"hidden_size"}, 4096);
  s.layers = layer_mixers(c);

  // The legacy mamba_* spellings win over the current keys, as the config class reads them.
  const std::int64_t mamba_heads = c.dim({"mamba_num_heads"}, 128);
  const std::int64_t mamba_head_dim = c.dim({"mamba_head_dim"}, 64);
  s.mamba = {.version = 2,
             .hidden = s.hidden,
             .inner = mamba_heads * mamba_head_dim,
             .state = c.dim({"ssm_state_size"}, 128),
             .conv_kernel = c.dim({"mamba_d_conv", "conv_kernel"}, 4),
             .heads = mamba_heads,
             .head_dim = mamba_head_dim,
             .groups = c.dim({"mamba_n_groups", "n_groups"}, 8),
             .bias = c.flag({"use_bias"}, false),
             .conv_bias = c.flag({"mamba_conv_bias", "use_conv_bias"}, true)};

  s.attention = {.hidden = s.hidden,
                 .heads = c.dim({"num_attention_heads"}, 32),
                 .kv_heads = c.dim({"num_key_value_heads"}, 8),
                 .head_dim = c.dim({"head_dim"}, 128),
                 .causal = true,
                 .qkv_bias = false,
                 .o_bias = false,
                 .require_divisible = false,
                 .dropout = c.number({"attention_dropout"}, 0.0),
                 .softmax_fp32 = true};

  const std::string activation = c.text({"mlp_hidden_act"}, "relu2");
  const bool mlp_bias = c.flag({"mlp_bias"}, false);
  s.mlp = {.hidden = s.hidden, .intermediate = c.dim({"intermediate_size"}, 21504), .activation = activation,
           .bias = mlp_bias, .down_bias = mlp_bias};

  if (const auto* latent = c.raw({"moe_latent_size"}); latent && !latent->is_null())
    throw Error(ErrorKind::Unsupported, c.origin() + ": key 'moe_latent_size'",
                "experts behind a latent projection are not supported yet");
  s.experts = {.hidden = s.hidden, .intermediate = c.dim({"moe_intermediate_size"}, 7688),
               .experts = c.dim({"n_routed_experts"}, 8), .top_k = c.integer({"num_experts_per_tok"}, 2),
               .activation = activation, .gated = false};
  s.shared = {.hidden = s.hidden, .intermediate = c.dim({"moe_shared_expert_intermediate_size"}, 7688),
              .activation = activation, .bias = mlp_bias, .down_bias = mlp_bias};
  return s;
}

blocks::Value mixer(blocks::GraphBuilder& b, const blocks::Value& x, std::int64_t i, const blocks::Scope& module,
                    Mixer kind, const Spec& s) {
  using namespace blocks;
  switch (kind) {
    case Mixer::Mamba: {
      MambaMixerSpec m = s.mamba;
      m.module = module;
      return mamba_mixer(b, x, fmt::format("Mixer_{}", i), m);
    }
    case Mixer::Attention: {
      AttentionSpec a = s.attention;
      a.module = module;
      a.q = module / "q_proj";
      a.k = module / "k_proj";
      a.v = module / "v_proj";
      a.o = module / "o_proj";
      return attention(b, x, BlockNames{i}.attention(), a);
    }
    case Mixer::Mlp: {
      FeedForwardSpec f = s.mlp;
      f.module = module;
      f.up = module / "up_proj";
      f.down = module / "down_proj";
      return feed_forward(b, x, BlockNames{i}.ffn(), f);
    }
    case Mixer::Experts: {
      MoESpec e = s.experts;
      e.module = module;
      e.router = module / "gate";
      e.experts_module = module / "experts";
      auto routed = mixture_of_experts(b, x, fmt::format("MoE_{}", i), e);
      // Added to the router's sigmoid scores when picking experts (aux-loss-free balancing).
      b.buffer(routed, (module / "gate")("e_score_correction_bias"), {e.experts}, DType::F32);
      // The shared expert is the plain MLP at its own width, biased as mlp_bias says (the routed ones never are).
      FeedForwardSpec f = s.shared;
      f.module = module / "shared_experts";
      f.up = f.module / "up_proj";
      f.down = f.module / "down_proj";
      auto shared = feed_forward(b, x, fmt::format("FFN_{}_shared", i), f);
      return add(b, routed, shared, fmt::format("Add_{}_shared", i));
    }
  }
  return x;
}

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  using namespace blocks;
  const Spec s = read(in.config);
  const Scope root = in.head == Head::Base ? Scope() : Scope("backbone");
  // No positions to run out of: the sequence is the user's, else the default cap.
  const std::int64_t seq = in.sequence_length(kDefaultSequenceCap);
  auto x = b.input({seq}, "tokens");
  x = token_embedding(b, x, "Token_Embedding", root / "embeddings", s.vocab, s.hidden);
  for (std::size_t at = 0; at < s.layers.size(); ++at) {
    const auto i = static_cast<std::int64_t>(at);
    b.set_block(static_cast<int>(i));
    const Scope layer = root / "layers" / i;
    const BlockNames names{i};
    auto h = norm(b, x, names.norm(1, NormKind::RMSNorm), {layer / "norm", NormKind::RMSNorm});
    h = mixer(b, h, i, layer / "mixer", s.layers[at], s);
    x = add(b, h, x, names.add(1));
  }
  b.set_block(-1);
  x = norm(b, x, "Final_RMSNorm", {root / "norm_f", NormKind::RMSNorm});
  return decoder_heads(b, x, in, {.hidden = s.hidden, .vocab = s.vocab});
}

}  // namespace
}  // namespace nemotron_h_impl

const Family& nemotron_h_family() {
  static const Family family{"nemotron_h", "models/nemotron_h/modeling_nemotron_h.py",
                             classes("NemotronH", {heads::ForCausalLM}), nemotron_h_impl::build};
  return family;
}

}  // namespace neurarch::families
