// LongCat-Flash (models/longcat_flash/modeling_longcat_flash.py + configuration_longcat_flash.py, transformers
// 4.57.6; 5.24 fuses the experts in memory and splits them back on save): num_layers decoder layers, each two
// DeepSeek-style sublayer pairs (self_attn.{0,1}: multi-head latent attention; mlps.{0,1}: dense SwiGLU MLPs of
// ffn_hidden_size; input_layernorm / post_attention_layernorm.{0,1}: RMSNorm) plus one shortcut mixture of experts
// (mlp) that reads the first pair's post-attention norm and is added after the second MLP. Its router scores
// n_routed_experts real experts and zero_expert_num identity ("zero-computation") experts together, picks moe_topk
// of them (softmax scores, a persistent fp32 e_score_correction_bias per choice for aux-loss-free balancing), and a
// token sent to an identity expert passes through scaled, at no cost. num_hidden_layers (2 x num_layers by
// default) counts the attention sublayers and is not read. lm_head is untied by default.
#include <optional>

#include <fmt/format.h>

#include "blocks/moe.hpp"
#include "families/deepseek_common.hpp"

namespace neurarch::families {
namespace longcat_flash_impl {
namespace {

using namespace blocks;

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config& c = in.config;
  const std::int64_t vocab = c.dim({"vocab_size"}, 131072);
  const std::int64_t hidden = c.dim({"hidden_size"}, 6144);
  const std::int64_t layers = c.dim({"num_layers"}, 28);
  const std::int64_t heads = c.dim({"num_attention_heads"}, 64);
  const std::int64_t ffn = c.dim({"ffn_hidden_size"}, 12288);
  const std::int64_t positions = c.dim({"max_position_embeddings"}, 131072);
  const std::string act = c.text({"hidden_act"}, "silu");
  const bool tie = c.flag({"tie_word_embeddings"}, false);
  // DeepSeek's latent-attention keys with LongcatFlashConfig's defaults (DeepSeek-V3's ranks).
  const LatentAttentionSpec mla = deepseek::latent_attention(
      c, hidden, heads,
      {.q_lora_rank = 1536, .kv_lora_rank = 512, .qk_nope_head_dim = 128, .qk_rope_head_dim = 64, .v_head_dim = 128});
  const std::int64_t experts = c.dim({"n_routed_experts"}, 512);
  const MoESpec moe{.hidden = hidden,
                    .intermediate = c.dim({"expert_ffn_hidden_size"}, 2048),
                    .experts = experts,
                    .top_k = c.integer({"moe_topk"}, 12),
                    // `zero_expert_num or 0`: null means none.
                    .zero_experts = decoder::window_or_none(c, "zero_expert_num", 256),
                    .activation = act};
  const std::int64_t choices = experts + moe.zero_experts;

  const Scope root = in.head == Head::Base ? Scope() : Scope("model");
  auto x = b.input({in.sequence_length(positions)}, "tokens");
  x = token_embedding(b, x, "Token_Embedding", root / "embed_tokens", vocab, hidden);

  for (std::int64_t i = 0; i < layers; ++i) {
    b.set_block(static_cast<int>(i));
    const Scope l = root / "layers" / i;
    std::optional<Value> shortcut;
    for (std::int64_t k = 0; k < 2; ++k) {
      auto h = norm(b, x, fmt::format("RMSNorm_{}_{}", i, 2 * k + 1), {l / "input_layernorm" / k, NormKind::RMSNorm});
      LatentAttentionSpec a = mla;
      a.module = l / "self_attn" / k;
      h = latent_attention(b, h, fmt::format("Attention_{}_{}", i, k), a);
      x = add(b, h, x, fmt::format("Add_{}_{}", i, 2 * k + 1));
      h = norm(b, x, fmt::format("RMSNorm_{}_{}", i, 2 * k + 2),
               {l / "post_attention_layernorm" / k, NormKind::RMSNorm});
      if (k == 0) {
        MoESpec m = moe;
        m.module = l / "mlp";
        m.router = l / "mlp" / "router" / "classifier";
        m.experts_module = l / "mlp" / "experts";
        shortcut = mixture_of_experts(b, h, fmt::format("MoE_{}", i), m);
        b.buffer(*shortcut, (l / "mlp" / "router")("e_score_correction_bias"), {choices}, DType::F32);
      }
      const Scope mlp = l / "mlps" / k;
      h = feed_forward(b, h, fmt::format("FFN_{}_{}", i, k),
                       {.hidden = hidden, .intermediate = ffn, .activation = act, .gated = true, .module = mlp,
                        .up = mlp / "up_proj", .down = mlp / "down_proj", .gate = mlp / "gate_proj", .bias = false,
                        .down_bias = false});
      x = add(b, h, x, fmt::format("Add_{}_{}", i, 2 * k + 2));
    }
    x = add(b, *shortcut, x, fmt::format("Add_{}_Shortcut_MoE", i));
  }
  b.set_block(-1);
  x = norm(b, x, "Final_RMSNorm", {root / "norm", NormKind::RMSNorm});
  if (in.head != Head::CausalLM) return x;
  LmHeadSpec head{.module = Scope("lm_head"), .hidden = hidden, .vocab = vocab};
  if (tie) head.tied_weight = (root / "embed_tokens")("weight");
  return lm_head(b, x, "LM_Head", head);
}

}  // namespace
}  // namespace longcat_flash_impl

const Family& longcat_flash_family() {
  static const Family family{"longcat_flash", "models/longcat_flash/modeling_longcat_flash.py",
                             classes("LongcatFlash", {heads::ForCausalLM}), longcat_flash_impl::build};
  return family;
}

}  // namespace neurarch::families
