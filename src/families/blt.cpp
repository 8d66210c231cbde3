// BLT, the Byte Latent Transformer (models/blt/modeling_blt.py + configuration_blt.py, transformers 5.24.0; the
// shared fixtures are 4.57.6): bytes are embedded (local_encoder.embed_tokens plus hashed n-gram embeddings,
// `encoder_hash_tok_embedding`, one table for every n-gram size and hash function), run through the local encoder's
// Llama layers and pooled into patches (max over each patch's bytes, patch_embedding_projection to cross_attn_k
// slots per patch, cross-attention from the slots to the bytes); the global transformer's Llama layers run over the
// patches; the local decoder cross-attends from the bytes to the projected patch states before its layers (all of
// them with cross_attn_all_layers) and ends in `norm`. Every layer is decoder::decoder_layer with the sub-config's
// sizes (head_dim = hidden / heads always); the cross-attentions RMS-normalise queries and keys (q_norm, k_norm)
// and add their input twice (inside the module and again outside). With patch_in_forward a frozen byte-level
// Llama, `patcher`, scores each byte's entropy to place the patch boundaries.
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "blocks/seq2seq.hpp"
#include "families/decoder_layer.hpp"

namespace neurarch::families {
namespace blt_impl {
namespace {

using namespace blocks;
using decoder::DecoderSpec;
using graph::NodeType;

DecoderSpec sub_spec(const Config& c, std::int64_t hidden_default, std::int64_t intermediate_default,
                     std::int64_t layers, std::int64_t heads, std::int64_t positions, std::int64_t window) {
  const std::int64_t hidden = c.dim({"hidden_size"}, hidden_default);
  // The sub-configs fill a missing intermediate_size with int(8 x hidden / 3).
  DecoderSpec s = decoder::read_llama_config(
      c, {.vocab = 260, .hidden = hidden, .intermediate = intermediate_default > 0 ? intermediate_default : 8 * hidden / 3,
          .layers = layers, .heads = heads, .positions = positions});
  s.head_dim = s.heads > 0 ? s.hidden / s.heads : 0;  // BltSelfAttention ignores a head_dim key
  s.window = window;
  s.attention_dropout = c.number({"dropout"}, 0.0);
  return s;
}

Value stack(GraphBuilder& b, Value x, const Scope& module, const DecoderSpec& s) {
  for (std::int64_t i = 0; i < s.layers; ++i) {
    b.set_block(static_cast<int>(i));
    x = decoder::decoder_layer(b, x, i, module / "layers" / i, s);
  }
  b.set_block(-1);
  return x;
}

// BltCrossAttention: q_norm(queries), k_norm(memory), attention without positions, o_proj, plus the queries; the
// caller adds the queries once more.
Value cross_layer(GraphBuilder& b, const Value& queries, const Value& memory, const std::string& name, const Scope& m,
                  const DecoderSpec& s) {
  auto q = norm(b, queries, name + "_QNorm", {m / "q_norm", NormKind::RMSNorm});
  auto k = norm(b, memory, name + "_KNorm", {m / "k_norm", NormKind::RMSNorm});
  AttentionSpec a{.hidden = s.hidden, .heads = s.heads, .kv_heads = s.kv_heads, .head_dim = s.hidden / s.heads,
                  .module = m, .q = m / "q_proj", .k = m / "k_proj", .v = m / "v_proj", .o = m / "o_proj",
                  .qkv_bias = false, .o_bias = false, .require_divisible = false, .dropout = s.attention_dropout};
  auto h = cross_attention(b, q, k, name, a);
  h = add(b, h, queries, name + "_Residual");
  return add(b, h, queries, name + "_Add");
}

// A bias-free projection whose [rows, in x ... ] output is read as `slots` rows of `width` per input row.
Value slot_projection(GraphBuilder& b, const Value& x, const std::string& name, const Scope& module, std::int64_t in,
                      std::int64_t width, std::int64_t slots) {
  auto out = b.node(NodeType::Linear, name, {x.shape.front() * slots, width}, {x}, module);
  linear_tensors(b, out, module, in, width * slots, false);
  if (x.shape.back() != in) b.fail(out, fmt::format("expects {} input features, receives {}", in, x.shape.back()));
  return out;
}

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config& c = in.config;
  const Config enc_c = c.child("encoder_config"), glob_c = c.child("global_config"), dec_c = c.child("decoder_config");
  const std::int64_t local_window = decoder::window_or_none(c, "local_attention_window_len", 512);
  const DecoderSpec enc = sub_spec(enc_c, 1024, 0, 1, 16, 24576, local_window);
  const DecoderSpec glob = sub_spec(glob_c, 2048, 5632, 25, 16, 4096, 0);
  const DecoderSpec dec = sub_spec(dec_c, 1024, 2816, 9, 16, 24576, local_window);
  const std::int64_t top_k = c.dim({"cross_attn_k"}, 2);
  const std::int64_t enc_k = enc_c.dim({"cross_attn_k"}, top_k), dec_k = dec_c.dim({"cross_attn_k"}, top_k);
  const std::int64_t dec_global = dec_c.dim({"hidden_size_global"}, 2048);
  const bool enc_all = enc_c.flag({"cross_attn_all_layers"}, false), dec_all = dec_c.flag({"cross_attn_all_layers"}, true);
  const std::int64_t vocab = c.dim({"vocab_size"}, 260);
  const bool patcher = c.flag({"patch_in_forward"}, true);
  const std::string mode = c.text({"patching_mode"}, "entropy");
  const std::int64_t patch_size = c.dim({"patch_size"}, 4);
  std::int64_t groups = 6;
  if (const auto* sizes = c.raw({"encoder_hash_byte_group_size"}); sizes && sizes->is_array())
    groups = static_cast<std::int64_t>(sizes->size());
  const std::int64_t hash_rows =
      c.dim({"encoder_hash_byte_group_vocab"}, 500002) * c.dim({"encoder_hash_byte_group_nb_functions"}, 1) * groups;
  const bool tie = c.flag({"tie_word_embeddings"}, false);

  const Scope root = in.head == Head::Base ? Scope() : Scope("model");
  const std::int64_t seq = in.sequence_length(enc.positions);
  auto ids = b.input({seq}, "tokens");

  // Entropy patching places a boundary where the patcher's next-byte entropy crosses patching_threshold; the
  // count depends on the bytes, and patch_size is the average it aims at. Without it every byte is a patch (plus
  // one: the reference patches sequence_length + 1 ones).
  const bool entropy = patcher && mode == "entropy";
  const std::int64_t patches = entropy ? (seq + patch_size - 1) / patch_size : seq + 1;
  if (entropy)
    b.note(fmt::format("BLT's patches follow the bytes' entropy; planned at patch_size {} bytes each ({} patches)",
                       patch_size, patches));
  Value boundaries = ids;
  if (patcher) {
    const Config pat_c = c.child("patcher_config");
    DecoderSpec pat = sub_spec(pat_c, 768, 2048, 14, 12, 8192, decoder::window_or_none(pat_c, "sliding_window", 512));
    pat.activation = "silu";  // BltPatcherConfig sets it whatever the config says
    graph::Nested nest(b, {.module = "", .label = "Patcher_", .first_block = b.next_block()});
    const Scope m = root / "patcher";
    auto x = token_embedding(b, ids, "Token_Embedding", m / "embed_tokens", pat.vocab, pat.hidden);
    x = stack(b, x, m, pat);
    x = norm(b, x, "Final_RMSNorm", {m / "norm", NormKind::RMSNorm});
    boundaries = dense(b, x, "Entropy_Head", m / "lm_head", pat.hidden, pat.vocab, false);
  }

  Value bytes, encoder_patches;
  {
    graph::Nested nest(b, {.module = "", .label = "Encoder_", .first_block = b.next_block()});
    const Scope m = root / "local_encoder";
    Value x;
    if (tie) {
      // 5.24 keeps lm_head.weight and drops the embedding as its alias.
      Shape shape{seq, enc.hidden};
      x = b.node(NodeType::Embedding, "Token_Embedding", shape, {ids}, m / "embed_tokens");
      b.tied(x, (m / "embed_tokens")("weight"), {enc.vocab, enc.hidden}, "lm_head.weight", graph::TensorRole::Embedding);
    } else {
      x = token_embedding(b, ids, "Token_Embedding", m / "embed_tokens", enc.vocab, enc.hidden);
    }
    // One lookup per n-gram size and hash function, all in the same table, summed into the byte embeddings.
    x = added_embedding(b, x, "Hash_Embeddings", root / "encoder_hash_tok_embedding", hash_rows, enc.hidden);
    for (std::int64_t i = 0; i < enc.layers; ++i) {
      b.set_block(static_cast<int>(i));
      x = decoder::decoder_layer(b, x, i, m / "layers" / i, enc);
      if (i == enc.layers - 1 || enc_all) {
        // scatter_reduce(amax) of each patch's bytes: autograd keeps the bytes and the result, like a max pool.
        auto pooled = b.node(NodeType::Pool, fmt::format("Patch_Max_{}", i), {patches, enc.hidden}, {x, boundaries});
        b.at(pooled).spatial = graph::SpatialAttrs{.max = true};
        auto slots = slot_projection(b, pooled, fmt::format("Patch_Projection_{}", i), m / "patch_embedding_projection",
                                     enc.hidden, enc.hidden, enc_k);
        encoder_patches = cross_layer(b, slots, x, fmt::format("Cross_Attention_{}", i),
                                      m / "cross_attn_layers" / (enc_all ? i : 0), enc);
      }
    }
    b.set_block(-1);
    bytes = x;
  }

  Value global;
  {
    graph::Nested nest(b, {.module = "", .label = "Global_", .first_block = b.next_block()});
    const Scope m = root / "global_transformer";
    // The encoder's cross_attn_k slots of a patch are one row of the global transformer's input.
    Value x{encoder_patches.node, {patches, enc_k * enc.hidden}};
    if (enc_k * enc.hidden != glob.hidden)
      x = dense(b, x, "Token_Embedding_Projection", m / "token_embedding_projection", enc_k * enc.hidden, glob.hidden,
                false);
    global = stack(b, x, m, glob);
  }

  Value out;
  {
    graph::Nested nest(b, {.module = "", .label = "Decoder_", .first_block = b.next_block()});
    const Scope m = root / "local_decoder";
    auto slots = slot_projection(b, global, "Patch_Projection", m / "patch_embedding_projection", dec_global,
                                 dec.hidden, dec_k);
    Value x = bytes;
    for (std::int64_t i = 0; i < dec.layers; ++i) {
      b.set_block(static_cast<int>(i));
      if (i == 0 || dec_all)
        x = cross_layer(b, x, slots, fmt::format("Cross_Attention_{}", i), m / "cross_attn_layers" / i, dec);
      x = decoder::decoder_layer(b, x, i, m / "layers" / i, dec);
    }
    b.set_block(-1);
    out = norm(b, x, "Final_RMSNorm", {m / "norm", NormKind::RMSNorm});
  }
  if (patcher) b.freeze_if([&](std::string_view name) { return name.starts_with((root / "patcher").path() + "."); });

  if (in.head == Head::CausalLM) {
    LmHeadSpec head{.module = Scope("lm_head"), .hidden = dec.hidden, .vocab = vocab};
    return lm_head(b, out, "LM_Head", head);
  }
  return out;
}

}  // namespace
}  // namespace blt_impl

const Family& blt_family() {
  static const Family family{"blt", "models/blt/modeling_blt.py", classes("Blt", {heads::ForCausalLM}), blt_impl::build};
  return family;
}

}  // namespace neurarch::families
