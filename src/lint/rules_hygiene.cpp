// Training hygiene: contexts past what the positions were trained for, dropout left on under
// LoRA, deep stacks without depth-scaled init, keys the family never reads, label maps that
// disagree with the head they size.
#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "lint/facts.hpp"
#include "lint/rules.hpp"
#include "lint/thresholds.hpp"

namespace neurarch::lint::checks {

using graph::Node;
using graph::NodeType;

namespace {

bool is_norm(NodeType t) { return t == NodeType::LayerNorm || t == NodeType::RMSNorm; }

// One residual stream: the blocks under one module list ("model.layers", "encoder.block",
// "vision_tower.vision_model.encoder.layers"). Composite and encoder-decoder models have several, each
// as deep as its own blocks; pre-norm when its first block normalises before the first sublayer.
struct ResidualStream {
  std::string modules;
  std::int64_t depth = 0;
  bool pre_norm = false;
};

// "model.layers.3.self_attn" -> "model.layers": the path up to the first all-digit component.
std::string module_list(const std::string& path) {
  std::size_t start = 0;
  while (start < path.size()) {
    const std::size_t end = std::min(path.find('.', start), path.size());
    if (end > start && std::all_of(path.begin() + static_cast<std::ptrdiff_t>(start),
                                   path.begin() + static_cast<std::ptrdiff_t>(end),
                                   [](char ch) { return ch >= '0' && ch <= '9'; }))
      return path.substr(0, start == 0 ? 0 : start - 1);
    start = end + 1;
  }
  return path;
}

std::vector<ResidualStream> residual_streams(const Context& c) {
  // Per block: whether its first node is a norm, and the module list of its first node with a path
  // (residual adds have none).
  std::map<int, std::pair<bool, std::string>> blocks;
  for (const auto& n : c.graph().nodes) {
    if (n.block < 0) continue;
    auto& [starts_with_norm, modules] = blocks.try_emplace(n.block, is_norm(n.type), std::string()).first->second;
    if (modules.empty() && !n.path.empty()) modules = module_list(n.path);
  }
  std::vector<ResidualStream> streams;
  for (const auto& entry : blocks) {
    // Named copies, not a structured binding: clang 14 cannot capture a binding in a lambda.
    const bool starts_with_norm = entry.second.first;
    const std::string& modules = entry.second.second;
    auto it = std::find_if(streams.begin(), streams.end(), [&](const ResidualStream& s) { return s.modules == modules; });
    if (it == streams.end()) {
      streams.push_back({modules, 0, starts_with_norm});
      it = streams.end() - 1;
    }
    ++it->depth;
  }
  return streams;
}

// Positions a RoPE model covers: max_position_embeddings, times the factor of a scaling block that
// does not already name the original context (llama3/yarn configs declare the extended length).
std::int64_t rope_context(const Context& c, std::int64_t positions, std::string& how) {
  const auto* s = c.value("rope_scaling");
  if (!s || !s->is_object()) return positions;
  auto type = s->value("rope_type", s->value("type", std::string()));
  if (type == "dynamic") {
    how = " (dynamic rope_scaling extends it as needed)";
    return INT64_MAX;
  }
  if (s->contains("original_max_position_embeddings")) return positions;
  auto f = s->find("factor");
  if (f == s->end() || !f->is_number() || f->get<double>() < 1) return positions;
  how = fmt::format(" x rope_scaling factor {:g}", f->get<double>());
  return static_cast<std::int64_t>(static_cast<double>(positions) * f->get<double>());
}

struct Dropout {
  std::string key;
  double value;
  bool by_default;  ///< the family's default, not written in the config
};

// Dropout the family applies: keys it read (its defaults included), then the usual keys written in
// the config, then the graph's own per-node rates for families that record them there.
std::vector<Dropout> active_dropout(const Context& c) {
  std::vector<Dropout> out;
  auto seen = [&](std::string_view k) {
    return std::any_of(out.begin(), out.end(), [&](const Dropout& d) { return d.key == k; });
  };
  for (const auto& r : c.report().config_reads) {
    if (r.key.find("drop") == std::string::npos) continue;
    auto v = nlohmann::json::parse(r.value, nullptr, false);
    if (v.is_number() && v.get<double>() > 0) out.push_back({r.key, v.get<double>(), !r.from_file});
  }
  for (auto k : {"hidden_dropout_prob", "attention_probs_dropout_prob", "hidden_dropout", "attention_dropout",
                 "dropout", "attn_pdrop", "resid_pdrop", "embd_pdrop", "activation_dropout", "dropout_rate",
                 "dropout_prob", "ffn_dropout"})
    if (auto v = c.number(k); v && *v > 0 && !seen(k)) out.push_back({k, *v, false});
  if (out.empty())
    for (const auto& n : c.graph().nodes) {
      const double rate = n.dropout > 0 ? n.dropout : n.attention ? n.attention->dropout : 0.0;
      if (rate > 0) {
        out.push_back({fmt::format("dropout on {} (the family's default)", n.name), rate, false});
        break;
      }
    }
  return out;
}

}  // namespace

Hits positions_below_seq(const Context& c) {
  auto seq = c.sequence();
  auto positions = c.max_positions();
  // Learned tables fail in the graph itself (graph-forward); this rule is for positions computed on the fly.
  if (!seq || !positions || !c.rotary()) return {};
  std::string how;
  const std::int64_t covered = rope_context(c, *positions, how);
  if (*seq <= covered) return {};
  return {{"",
           fmt::format("--seq {} is longer than the {} positions the model was trained on ({} {}{}): RoPE runs "
                       "past it, but attention quality falls off beyond the trained context",
                       *seq, covered, c.key_for("max_position_embeddings"), *positions, how),
           fmt::format("keep --seq at {} or less, or extend the context with rope_scaling, e.g. "
                       "{{\"rope_type\": \"dynamic\", \"factor\": {:.1f}}}, and fine-tune at the new length",
                       covered, std::ceil(static_cast<double>(*seq) / static_cast<double>(covered)))}};
}

Hits dropout_with_lora(const Context& c) {
  if (!c.options().lora) return {};
  auto drops = active_dropout(c);
  if (drops.empty()) return {};
  std::vector<std::string> parts, names;
  for (const auto& d : drops) {
    parts.push_back(fmt::format("{}={:g}{}", d.key, d.value, d.by_default ? " (default)" : ""));
    if (d.key.find(' ') == std::string::npos) names.push_back(d.key);
  }
  return {{"",
           fmt::format("dropout is on in the frozen base during LoRA training ({}): every step perturbs the "
                       "features the adapters are fitted to, and each dropout keeps a mask for backward",
                       fmt::join(parts, ", ")),
           fmt::format("set {} to 0.0 for the LoRA run and regularise with the adapters' own lora_dropout "
                       "(e.g. 0.05)",
                       names.empty() ? std::string("the base model's dropout")
                                     : fmt::format("{}", fmt::join(names, ", ")))}};
}

Hits depth_scaled_init(const Context& c) {
  if (facts::scales_init_by_depth(c.model_type()) || facts::inits_by_fan_in(c.model_type())) return {};
  // Layer scale (DINOv2, CaiT) shrinks every residual branch at init, which serves the same purpose.
  if (c.first({NodeType::LayerScale})) return {};
  // The deepest pre-norm stream: variance grows along one stream, not across a model's towers or stacks.
  std::int64_t layers = 0;
  for (const auto& s : residual_streams(c))
    if (s.pre_norm) layers = std::max(layers, s.depth);
  if (layers < limits::kDeepStackLayers) return {};
  const double range = c.number("initializer_range").value_or(c.number("init_std").value_or(0.02));
  return {{"",
           fmt::format("{} pre-norm residual layers, and {}'s init gives every residual output projection the same "
                       "std (initializer_range {:g}): trained from scratch, the residual stream's variance grows "
                       "with depth",
                       layers, c.model_type(), range),
           fmt::format("when training from scratch, initialise the attention output and MLP down projections with "
                       "std initializer_range / sqrt(2 x {}) = {:.4f} (GPT-2's scheme); pretrained weights need "
                       "nothing",
                       layers, range / std::sqrt(2.0 * static_cast<double>(layers)))}};
}

Hits unread_dimension_key(const Context& c) {
  static const std::vector<std::pair<std::string_view, std::string_view>> quantities{
      {"hidden size", "hidden_size"},
      {"attention heads", "num_attention_heads"},
      {"key/value heads", "num_key_value_heads"},
      {"layers", "num_hidden_layers"},
      {"feed-forward width", "intermediate_size"},
      {"positions", "max_position_embeddings"},
      {"vocabulary", "vocab_size"},
  };
  Hits hits;
  for (const auto& [what, attribute] : quantities) {
    const ConfigRead* used = c.attribute_read(attribute);
    // Only when the family fell back to a default: a stale duplicate next to a read key is harmless.
    if (!used || used->from_file) continue;
    for (auto k : facts::spellings(attribute)) {
      const auto* v = c.value(k);
      if (!v || c.read(k) || k == used->key) continue;
      hits.push_back({"",
                      fmt::format("{} {} is not read by {}: it builds its {} from {} = {} (the default)", k, v->dump(),
                                  c.model_type(), what, used->key, used->value),
                      fmt::format("rename {} to {}", k, used->key)});
    }
  }
  return hits;
}

Hits label_maps_inconsistent(const Context& c) {
  if (c.role() != Role::ClassLogits) return {};
  const auto* id2label = c.value("id2label");
  const auto* label2id = c.value("label2id");
  const std::size_t n = id2label && id2label->is_object() ? id2label->size() : 0;
  const Node* head = c.first({NodeType::Classifier});
  const std::string node = head ? head->name : std::string();
  if (auto labels = c.integer("num_labels"); labels && n > 0 && static_cast<std::size_t>(*labels) != n)
    return {{node,
             fmt::format("num_labels {} disagrees with id2label's {} entries: transformers keeps id2label and sizes "
                         "the classifier for {} labels",
                         *labels, n, n),
             fmt::format("list exactly the {} labels in id2label and label2id, or remove num_labels", *labels)}};
  if (n > 0 && label2id && label2id->is_object() && label2id->size() != n)
    return {{node,
             fmt::format("id2label has {} entries but label2id has {}: predictions and training labels map through "
                         "different tables",
                         n, label2id->size()),
             "make label2id the exact inverse of id2label"}};
  return {};
}

}  // namespace neurarch::lint::checks
