// Zamba2 (models/zamba2/modeling_zamba2.py + configuration_zamba2.py, transformers 5.24.0; the shared fixtures are
// 4.57.6): Zamba's stack (zamba.cpp: hybrid layers run a shared transformer block on [hidden, embeddings], project
// it through their own `linear` and add it before their Mamba block) with Mamba-2 mixers (blocks::mamba_mixer,
// version 2: the Mamba2 family's mixer with n_mamba_heads heads, conv1d always with a bias), num_mem_blocks
// shared blocks used in turn, a fused gate_up_proj, per-use LoRA adapters (`gate_up_proj_adapter_list.<use>`, and
// `linear_{q,k,v}_adapter_list` with use_shared_attention_adapter), and RoPE in the shared attention with
// use_mem_rope. The config class overwrites attention_hidden_size (2 x hidden), attention_head_dim
// (2 x hidden / heads) and mamba_headdim (inner / n_mamba_heads); the layers are layers_block_type's entries.
#include <algorithm>
#include <functional>

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "blocks/ssm.hpp"
#include "families/decoder_heads.hpp"
#include "families/family.hpp"

namespace neurarch::families {
namespace zamba2_impl {
namespace {

using namespace blocks;
using graph::NodeType;

struct Dims {
  std::int64_t vocab, hidden, intermediate, heads, kv_heads, head_dim, attention_hidden, positions;
  std::int64_t mem_blocks, adapter_rank;
  bool bias, attention_adapters, rope;
  double attention_dropout;
  std::string activation;
};

// layers_block_type (alias layer_types); "mamba" is the legacy name of "linear_attention". Absent: the 54-layer
// default list of the config class, whatever num_hidden_layers says (the model enumerates this list).
std::vector<std::string> block_types(const Config& c) {
  std::vector<std::string> out;
  if (const auto* listed = c.raw({"layers_block_type", "layer_types"}); listed && listed->is_array()) {
    for (const auto& v : *listed) {
      std::string t = v.is_string() ? v.get<std::string>() : "";
      out.push_back(t == "mamba" ? "linear_attention" : t);
    }
    return out;
  }
  // 1 + 7 x (5 + 1) + 4 + 1 + 3 + 1 + 2 layers: hybrid at 6, 12, ..., 42, then 47 and 51.
  const std::string mamba = "linear_attention", hybrid = "hybrid";
  out.assign(54, mamba);
  for (std::size_t i = 6; i <= 42; i += 6) out[i] = hybrid;
  out[47] = hybrid;
  out[51] = hybrid;
  return out;
}

// "layers.<a>." before "layers.<b>." in string order (save_pretrained and the fixtures sort names as strings).
bool string_before(std::int64_t a, std::int64_t b) { return std::to_string(a) + "." < std::to_string(b) + "."; }

// Which hybrid layer's name save_pretrained keeps for one shared block's tensors. transformers 4.57.6 declares
// tied keys that match the main weights only as `^layers.<i>.shared_transformer.` (so only in the base class,
// where it drops every matching name but the last in string order) and the adapters under a name without the
// layer prefix (never matching): save_pretrained then refuses, and the fixtures keep the first name in string
// order of every group it left aliased.
struct KeptCopies {
  std::int64_t main = -1, adapters = -1;
};

// A bias-free Linear node of the shared block whose weight may alias another layer's copy.
using Declare = std::function<void(const Value&, const Scope&, std::string_view, graph::Shape, bool adapter,
                                   graph::TensorRole, graph::Operand)>;

Value shared_linear(GraphBuilder& b, const Value& x, const std::string& name, const Scope& module, std::int64_t in,
                    std::int64_t out, const Declare& declare) {
  graph::Shape shape = x.shape;
  shape.back() = out;
  auto node = b.node(NodeType::Linear, name, shape, {x}, module);
  declare(node, module, "weight", {out, in}, true, graph::TensorRole::Linear, graph::Operand::Input);
  return node;
}

// The LoRA adapter of use `use`: Sequential(Linear(in, rank), Linear(rank, out)), added to a projection's output.
Value adapter(GraphBuilder& b, const Value& x, const std::string& name, const Scope& list, std::int64_t use,
              std::int64_t in, std::int64_t out, const Dims& d, const Declare& declare) {
  auto down = shared_linear(b, x, name + "_Down", list / use / 0, in, d.adapter_rank, declare);
  return shared_linear(b, down, name + "_Up", list / use / 1, d.adapter_rank, out, declare);
}

Value shared_block(GraphBuilder& b, const Value& x, const Value& embeddings, std::int64_t i, std::int64_t use,
                   const Scope& root, const KeptCopies& kept, const Dims& d) {
  const Scope st = root / "layers" / i / "shared_transformer";
  // The block's weights are one module under every hybrid layer that uses it: the main weights are declared where
  // save_pretrained keeps them and aliased elsewhere. An adapter runs at one use only: that use's node owns it,
  // under the name of the layer whose copy is kept.
  Declare declare = [&](const Value& node, const Scope& module, std::string_view leaf, graph::Shape shape,
                        bool is_adapter, graph::TensorRole role, graph::Operand operand) {
    const std::int64_t owner = is_adapter ? kept.adapters : kept.main;
    const std::string rel = module.path().substr(st.path().size());
    const std::string kept_name = Scope((root / "layers" / owner / "shared_transformer").path() + rel)(leaf);
    if (owner == i || is_adapter)
      b.parameter(node, kept_name, std::move(shape), role, operand);
    else
      b.tied(node, module(leaf), std::move(shape), kept_name, role, operand);
  };
  const Declare main = [&](const Value& node, const Scope& module, std::string_view leaf, graph::Shape shape, bool,
                           graph::TensorRole role, graph::Operand operand) {
    declare(node, module, leaf, std::move(shape), false, role, operand);
  };
  const std::int64_t seq = x.shape.front();
  auto n1 = b.node(NodeType::RMSNorm, fmt::format("Shared_RMSNorm_{}_1", i), {seq, d.attention_hidden},
                   {x, embeddings}, st / "input_layernorm");
  main(n1, st / "input_layernorm", "weight", {d.attention_hidden}, false,
       graph::TensorRole::Norm, graph::Operand::Input);
  if (x.shape.back() + embeddings.shape.back() != d.attention_hidden)
    b.fail(n1, fmt::format("the hidden state and embeddings concatenate to {} channels, but attention_hidden_size is "
                           "{}",
                           x.shape.back() + embeddings.shape.back(), d.attention_hidden));

  const Scope attn = st / "self_attn";
  std::vector<Value> attention_inputs{n1};
  if (d.attention_adapters)
    for (const char* p : {"q", "k", "v"})
      attention_inputs.push_back(adapter(b, n1, fmt::format("Adapter_{}_{}", i, p),
                                         attn / fmt::format("linear_{}_adapter_list", p), use, d.attention_hidden,
                                         d.attention_hidden, d, declare));
  const auto type = d.kv_heads == d.heads ? NodeType::MultiHeadAttention
                    : d.kv_heads == 1     ? NodeType::MultiQueryAttention
                                          : NodeType::GroupedQueryAttention;
  auto a = b.node(type, BlockNames{i}.attention(), {seq, d.hidden}, {n1}, attn);
  for (std::size_t k = 1; k < attention_inputs.size(); ++k) b.at(a).inputs.push_back(attention_inputs[k].node);
  b.at(a).attention = graph::AttentionAttrs{.heads = d.heads, .kv_heads = d.kv_heads, .head_dim = d.head_dim,
                                            .query_len = seq, .kv_len = seq, .causal = true,
                                            .dropout = d.attention_dropout, .rotary = d.rope};
  main(a, attn / "q_proj", "weight", {d.heads * d.head_dim, d.attention_hidden}, false,
       graph::TensorRole::Linear, graph::Operand::Input);
  main(a, attn / "k_proj", "weight", {d.kv_heads * d.head_dim, d.attention_hidden}, false,
       graph::TensorRole::Linear, graph::Operand::Input);
  main(a, attn / "v_proj", "weight", {d.kv_heads * d.head_dim, d.attention_hidden}, false,
       graph::TensorRole::Linear, graph::Operand::Input);
  main(a, attn / "o_proj", "weight", {d.hidden, d.heads * d.head_dim}, false,
       graph::TensorRole::Linear, graph::Operand::Inner);
  if (d.kv_heads <= 0 || d.heads % d.kv_heads != 0)
    b.fail(a, fmt::format("{} KV heads do not divide {} query heads", d.kv_heads, d.heads));
  if (d.attention_adapters && d.kv_heads * d.head_dim != d.attention_hidden)
    b.fail(a, fmt::format("the k/v adapters add attention_hidden_size {} channels to {}-wide k and v",
                          d.attention_hidden, d.kv_heads * d.head_dim));

  auto n2 = b.node(NodeType::RMSNorm, fmt::format("Shared_RMSNorm_{}_2", i), a.shape, {a}, st / "pre_ff_layernorm");
  main(n2, st / "pre_ff_layernorm", "weight", {d.hidden}, false, graph::TensorRole::Norm, graph::Operand::Input);
  const Scope ff = st / "feed_forward";
  // The adapter's output joins gate_up_proj's before the activation: a second input of the feed-forward node.
  auto lora = adapter(b, n2, fmt::format("Adapter_{}_gate_up", i), ff / "gate_up_proj_adapter_list", use, d.hidden,
                      2 * d.intermediate, d, declare);
  auto f = b.node(NodeType::GatedFeedForward, BlockNames{i}.ffn(), n2.shape, {n2, lora}, ff);
  b.at(f).feed_forward = graph::FeedForwardAttrs{d.hidden, d.intermediate, d.activation, true};
  main(f, ff / "gate_up_proj", "weight", {2 * d.intermediate, d.hidden}, false,
       graph::TensorRole::Linear, graph::Operand::Input);
  if (d.bias) main(f, ff / "gate_up_proj", "bias", {2 * d.intermediate}, false, graph::TensorRole::Bias, graph::Operand::Input);
  main(f, ff / "down_proj", "weight", {d.hidden, d.intermediate}, false,
       graph::TensorRole::Linear, graph::Operand::Inner);
  if (d.bias) main(f, ff / "down_proj", "bias", {d.hidden}, false, graph::TensorRole::Bias, graph::Operand::Input);
  return f;
}

Value mamba_layer(GraphBuilder& b, const Value& x, std::int64_t i, const Scope& l, const MambaMixerSpec& mixer) {
  auto h = norm(b, x, BlockNames{i}.norm(1, NormKind::RMSNorm), {l / "input_layernorm", NormKind::RMSNorm});
  MambaMixerSpec m = mixer;
  m.module = l / "mamba";
  h = mamba_mixer(b, h, fmt::format("Mixer_{}", i), m);
  return add(b, h, x, BlockNames{i}.add(1));
}

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config& c = in.config;
  Dims d{};
  d.vocab = c.dim({"vocab_size"}, 32000);
  d.hidden = c.dim({"hidden_size"}, 2560);
  d.intermediate = c.dim({"intermediate_size"}, 4 * d.hidden);
  d.heads = c.dim({"num_attention_heads"}, 32);
  d.kv_heads = c.dim({"num_key_value_heads"}, d.heads);
  d.attention_hidden = 2 * d.hidden;
  d.head_dim = d.heads > 0 ? 2 * d.hidden / d.heads : 0;
  d.mem_blocks = c.dim({"num_mem_blocks"}, 1);
  d.adapter_rank = c.dim({"adapter_rank"}, 128);
  d.bias = c.flag({"add_bias_linear"}, false);
  d.attention_adapters = c.flag({"use_shared_attention_adapter"}, false);
  d.rope = c.flag({"use_mem_rope"}, false);
  d.positions = c.flag({"use_long_context"}, false) ? 16384 : c.dim({"max_position_embeddings"}, 4096);
  d.attention_dropout = c.number({"attention_dropout"}, 0.0);
  d.activation = c.text({"hidden_act"}, "gelu");

  MambaMixerSpec mixer{.version = 2,
                       .hidden = d.hidden,
                       .inner = static_cast<std::int64_t>(c.number({"mamba_expand"}, 2) * static_cast<double>(d.hidden)),
                       .state = c.dim({"mamba_d_state"}, 64),
                       .conv_kernel = c.dim({"mamba_d_conv"}, 4),
                       .heads = c.dim({"n_mamba_heads"}, 8),
                       .groups = c.dim({"mamba_ngroups"}, 1),
                       .bias = d.bias,
                       .conv_bias = true};
  mixer.head_dim = mixer.heads > 0 ? mixer.inner / mixer.heads : 0;

  const auto types = block_types(c);
  const auto layers = static_cast<std::int64_t>(types.size());
  std::vector<std::int64_t> hybrid;
  for (std::int64_t i = 0; i < layers; ++i)
    if (types[static_cast<std::size_t>(i)] == "hybrid") hybrid.push_back(i);

  const Scope root = in.head == Head::Base ? Scope() : Scope("model");
  // Per shared block: the hybrid layers using it, and which of their names save_pretrained keeps (KeptCopies).
  const std::int64_t blocks_used = std::max<std::int64_t>(d.mem_blocks, 1);
  std::vector<KeptCopies> kept(static_cast<std::size_t>(blocks_used));
  for (std::size_t h = 0; h < hybrid.size(); ++h) {
    auto& k = kept[h % static_cast<std::size_t>(blocks_used)];
    const std::int64_t i = hybrid[h];
    if (k.adapters < 0 || string_before(i, k.adapters)) k.adapters = i;
    const bool last = in.head == Head::Base;
    if (k.main < 0 || (last ? string_before(k.main, i) : string_before(i, k.main))) k.main = i;
  }

  const std::int64_t seq = in.sequence_length(d.positions);
  auto x = b.input({seq}, "tokens");
  x = token_embedding(b, x, "Token_Embedding", root / "embed_tokens", d.vocab, d.hidden);
  if (seq > d.positions)
    b.note(fmt::format("sequence of {} tokens is past max_position_embeddings ({})", seq, d.positions));
  const Value embeddings = x;
  if (d.mem_blocks <= 0) b.fail(x, fmt::format("num_mem_blocks is {}; the shared blocks cycle needs one", d.mem_blocks));

  for (std::int64_t i = 0, use = 0; i < layers; ++i) {
    b.set_block(static_cast<int>(i));
    const Scope l = root / "layers" / i;
    const std::string& type = types[static_cast<std::size_t>(i)];
    if (type == "hybrid") {
      const auto& k = kept[static_cast<std::size_t>(use % blocks_used)];
      auto t = shared_block(b, x, embeddings, i, use, root, k, d);
      t = dense(b, t, fmt::format("Hybrid_Linear_{}", i), l / "linear", d.hidden, d.hidden, false);
      x = add(b, t, x, fmt::format("Hybrid_Add_{}", i));
      x = mamba_layer(b, x, i, l / "mamba_decoder", mixer);
      ++use;
    } else {
      x = mamba_layer(b, x, i, l, mixer);
      if (type != "linear_attention")
        b.fail(x, fmt::format("layers_block_type[{}] is '{}', neither mamba / linear_attention nor hybrid", i, type));
    }
  }
  b.set_block(-1);
  x = norm(b, x, "Final_RMSNorm", {root / "final_layernorm", NormKind::RMSNorm});

  const std::string tied = c.flag({"tie_word_embeddings"}, true) ? (root / "embed_tokens")("weight") : "";
  return decoder_heads(b, x, in, {.hidden = d.hidden, .vocab = d.vocab, .tied_embedding = tied});
}

}  // namespace
}  // namespace zamba2_impl

const Family& zamba2_family() {
  static const Family family{"zamba2", "models/zamba2/modeling_zamba2.py",
                             classes("Zamba2", {heads::ForCausalLM, heads::ForSequenceClassification}), zamba2_impl::build};
  return family;
}

}  // namespace neurarch::families
