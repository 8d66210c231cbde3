// Sizes and ids that stop the model from being built, loaded or run: the graph's own forward
// check, head arithmetic, token ids past the vocabulary, tied tensors of different shapes,
// routers asked for more experts than exist, names transformers does not know.
#include <algorithm>

#include <fmt/format.h>

#include "lint/facts.hpp"
#include "lint/rules.hpp"

namespace neurarch::lint::checks {

using graph::Node;

namespace {

bool contains(std::string_view text, std::string_view part) { return text.find(part) != std::string_view::npos; }

// The graph only says why a node cannot run; map the common reasons to the change that fixes them.
std::string forward_fix(std::string_view reason, const Context& c) {
  if (contains(reason, "learned positions"))
    return fmt::format("run with a --seq the position table covers, or raise {} and train the added rows",
                       c.key_for("max_position_embeddings"));
  if (contains(reason, "refuses a"))
    return "run at the configured image_size (--image-size), or call forward() with interpolate_pos_encoding=True";
  if (contains(reason, "smaller than one"))
    return "use an --image-size of at least one patch (patch_size)";
  if (contains(reason, "square"))
    return "use a square image whose side is a multiple of patch_size";
  if (contains(reason, "not divisible by") && contains(reason, "heads"))
    return fmt::format("make {} a multiple of {}", c.key_for("hidden_size"), c.key_for("num_attention_heads"));
  if (contains(reason, "KV heads"))
    return fmt::format("set {} to a divisor of {}", c.key_for("num_key_value_heads"), c.key_for("num_attention_heads"));
  if (contains(reason, "pad_token_id")) return "set pad_token_id to a row of the vocabulary (below vocab_size)";
  if (contains(reason, "num_labels")) return "set num_labels (or id2label) to the count the head requires";
  return "change the config key that sets the mismatched size; the layer table shows every node's input and "
         "output shape";
}

}  // namespace

Hits graph_forward(const Context& c) {
  const auto& f = c.graph().forward;
  if (f.ok || f.node < 0 || static_cast<std::size_t>(f.node) >= c.graph().nodes.size()) return {};
  const Node& n = c.graph().nodes[static_cast<std::size_t>(f.node)];
  return {{n.name, fmt::format("the forward pass stops here: {}", f.reason), forward_fix(f.reason, c)}};
}

Hits heads_divide_hidden(const Context& c) {
  const Node* a = c.first_attention();
  if (!a || a->out.empty()) return {};
  const std::int64_t hidden = a->out.back(), heads = a->attention->heads;
  if (heads <= 0 || hidden % heads == 0) return {};
  // An explicit head width that the family honoured (head_dim; T5's d_kv) decouples the attention
  // width from hidden_size.
  for (auto key : {"head_dim", "d_kv"})
    if (auto hd = c.integer(key); hd && *hd == a->attention->head_dim) return {};
  // Families whose reference truncates the head width (head_dim = hidden // heads, the Llama lineage:
  // Glm4MoeConfig()'s 96 heads on 4096 build 42-wide heads) run; those that refuse fail the graph's
  // forward check too. A model the graph can run is not "will not run".
  if (c.graph().forward.ok) return {};
  const std::string hk = c.key_for("hidden_size"), nk = c.key_for("num_attention_heads");
  const auto near = divisors_near(hidden, heads, false);
  return {{a->name,
           fmt::format("{} {} is not divisible by {} {} ({} / {} = {:.2f}) and the config sets no head_dim", hk,
                       hidden, nk, heads, hidden, heads, static_cast<double>(hidden) / static_cast<double>(heads)),
           fmt::format("set {} to {} or {}, or {} to a divisor of {} such as {}", hk, round_down(hidden, heads),
                       round_up(hidden, heads), nk, hidden, or_list(near))}};
}

Hits kv_heads_divide_heads(const Context& c) {
  const Node* a = c.first_attention();
  if (!a) return {};
  const std::int64_t heads = a->attention->heads, kv = a->attention->kv_heads;
  if (kv <= 0 || heads % kv == 0) return {};
  const auto near = divisors_near(heads, kv, true);
  return {{a->name,
           fmt::format("{} {} does not divide {} {}: each key/value head must serve a whole group of query heads",
                       c.key_for("num_key_value_heads"), kv, c.key_for("num_attention_heads"), heads),
           fmt::format("set {} to a divisor of {} such as {}", c.key_for("num_key_value_heads"), heads, or_list(near))}};
}

Hits head_dim_ignored(const Context& c) {
  const Node* a = c.first_attention();
  auto declared = c.integer("head_dim");
  if (!a || !declared || *declared == a->attention->head_dim) return {};
  return {{a->name,
           fmt::format("head_dim {} in the config, but {} derives head_dim {} ({} / {}) and ignores the key: a "
                       "checkpoint saved with {}-wide heads will not load",
                       *declared, c.model_type(), a->attention->head_dim, c.key_for("hidden_size"),
                       c.key_for("num_attention_heads"), *declared),
           fmt::format("remove head_dim, or use a model_type whose attention reads it (e.g. llama); with {} the "
                       "heads are {} wide",
                       c.model_type(), a->attention->head_dim)}};
}

Hits special_token_outside_vocab(const Context& c) {
  auto vocab = c.vocab();
  const Node* emb = c.token_embedding();
  if (!vocab || !emb) return {};
  Hits hits;
  for (auto key : {"pad_token_id", "bos_token_id", "eos_token_id", "sep_token_id", "cls_token_id", "mask_token_id",
                   "unk_token_id", "decoder_start_token_id"}) {
    const auto* v = c.value(key);
    if (!v) continue;
    std::vector<std::int64_t> ids;
    if (v->is_number_integer()) ids.push_back(v->get<std::int64_t>());
    if (v->is_array())
      for (const auto& e : *v)
        if (e.is_number_integer()) ids.push_back(e.get<std::int64_t>());
    for (auto id : ids)
      if (id >= *vocab) {
        hits.push_back({emb->name,
                        fmt::format("{} {} is not a row of the {}-row embedding ({} {}): looking it up fails with "
                                    "an index error",
                                    key, id, *vocab, c.key_for("vocab_size"), *vocab),
                        fmt::format("set {} to the tokenizer's id for that token (below {}), or grow the embedding "
                                    "to at least {} rows with resize_token_embeddings",
                                    key, *vocab, id + 1)});
        break;
      }
  }
  return hits;
}

Hits tied_embedding_shape(const Context& c) {
  const auto& g = c.graph();
  for (const auto& t : g.tensors) {
    if (t.tied_to.empty()) continue;
    const auto* target = g.find_tensor(t.tied_to);
    if (!target || target->shape == t.shape) continue;
    const std::string node = t.node >= 0 ? g.nodes.at(static_cast<std::size_t>(t.node)).name : std::string();
    return {{node,
             fmt::format("{} {} is tied to {} {}: a tied weight must have the same shape", t.name,
                         fmt::format("[{}]", fmt::join(t.shape, ", ")), t.tied_to,
                         fmt::format("[{}]", fmt::join(target->shape, ", "))),
             "set tie_word_embeddings to false (the head gets its own weight), or make the embedding width equal "
             "to the hidden size the head reads"}};
  }
  return {};
}

Hits moe_top_k(const Context& c) {
  if (!c.graph().has_experts()) return {};
  std::optional<std::int64_t> k, experts;
  std::string kk, ek;
  for (auto key : {"num_experts_per_tok", "moe_top_k", "num_selected_experts", "moe_k"}) {
    if (auto v = c.integer(key); v && !k) {
      k = v;
      kk = key;
    }
  }
  for (auto key : {"num_local_experts", "num_experts", "n_routed_experts", "moe_num_experts"}) {
    if (auto v = c.integer(key); v && !experts) {
      experts = v;
      ek = key;
    }
  }
  if (!k || !experts || *experts <= 0) return {};
  const Node* moe = c.first({graph::NodeType::MixtureOfExperts});
  const std::string node = moe ? moe->name : std::string();
  if (*k > *experts)
    return {{node,
             fmt::format("{} {} is more than {} {}: the router's top-k cannot pick more experts than exist "
                         "(torch.topk raises)",
                         kk, *k, ek, *experts),
             fmt::format("set {} to at most {} (Mixtral routes each token to 2 of 8)", kk, *experts)}};
  if (*k <= 0)
    return {{node, fmt::format("{} {} routes each token to no expert", kk, *k),
             fmt::format("set {} to 1 or more (at most {})", kk, *experts)}};
  return {};
}

Hits activation_unknown(const Context& c) {
  Hits hits;
  for (auto key : {"hidden_act", "activation_function", "activation", "hidden_activation", "pooler_act"}) {
    const auto* r = c.read(key);
    const auto* v = c.value(key);
    if (!r || !r->from_file || !v || !v->is_string()) continue;
    const auto name = v->get<std::string>();
    const auto& known = facts::activation_names();
    if (std::find(known.begin(), known.end(), name) != known.end()) continue;
    const Node* at = std::string_view(key) == "pooler_act" ? c.first({graph::NodeType::Pooler}) : c.first_ffn();
    hits.push_back({at ? at->name : std::string(),
                    fmt::format("{} '{}' is not an activation transformers knows (ACT2FN): building the model "
                                "raises KeyError",
                                key, name),
                    fmt::format("set {} to a transformers activation name, e.g. '{}'", key,
                                nearest(name, known))});
  }
  return hits;
}

Hits torch_dtype_unknown(const Context& c) {
  const std::string text = c.declared_dtype_text();
  if (text.empty() || facts::is_torch_dtype_name(text)) return {};
  const std::string key = c.value("torch_dtype") ? "torch_dtype" : "dtype";
  std::string_view suggestion = nearest(text, {"float32", "float16", "bfloat16"});
  if (text.find("bf") != std::string::npos) suggestion = "bfloat16";
  return {{"",
           fmt::format("{} '{}' is not a torch dtype: from_pretrained(torch_dtype=\"auto\") fails on it", key,
                       text),
           fmt::format("write \"{}\": \"{}\"", key, suggestion)}};
}

}  // namespace neurarch::lint::checks
