#include "lint/context.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <set>

#include <fmt/format.h>

#include "core/edit_distance.hpp"
#include "lint/facts.hpp"

namespace neurarch::lint {

using graph::Node;
using graph::NodeType;

namespace {

bool is_attention(NodeType t) {
  return t == NodeType::MultiHeadAttention || t == NodeType::GroupedQueryAttention ||
         t == NodeType::MultiQueryAttention;
}

bool is_weight_gemm(NodeType t) {
  return is_attention(t) || t == NodeType::FeedForward || t == NodeType::GatedFeedForward ||
         t == NodeType::MixtureOfExperts || t == NodeType::Linear || t == NodeType::LMHead ||
         t == NodeType::Classifier || t == NodeType::PatchEmbed;
}

Role role_of(const graph::Graph& g) {
  const Node* src = nullptr;
  for (const auto& n : g.nodes)
    if (n.type == NodeType::Output && !n.inputs.empty())
      src = &g.nodes.at(static_cast<std::size_t>(n.inputs.front()));
  if (!src && g.nodes.size() >= 2) src = &g.nodes[g.nodes.size() - 2];
  if (!src) return Role::Features;
  switch (src->type) {
    case NodeType::LMHead: return Role::Logits;
    case NodeType::Classifier: return Role::ClassLogits;
    case NodeType::Pooler: return Role::Pooled;
    case NodeType::Linear: return src->out.size() >= 3 ? Role::Reconstruction : Role::Features;
    default: return Role::Features;
  }
}

}  // namespace

std::string_view role_name(Role r) {
  switch (r) {
    case Role::Logits: return "logits";
    case Role::ClassLogits: return "class logits";
    case Role::Pooled: return "pooled embedding";
    case Role::Features: return "features";
    case Role::Reconstruction: return "reconstruction";
  }
  return "features";
}

Context::Context(const report::Report& r, const Options& o) : r_(r), o_(o), role_(role_of(r.graph)) {}

const nlohmann::json* Context::value(std::string_view key) const {
  if (!r_.config.is_object()) return nullptr;
  auto it = r_.config.find(key);
  if (it == r_.config.end() || it->is_null()) return nullptr;
  return &*it;
}

std::optional<double> Context::number(std::string_view key) const {
  const auto* v = value(key);
  if (!v || !v->is_number()) return std::nullopt;
  return v->get<double>();
}

std::optional<std::int64_t> Context::integer(std::string_view key) const {
  const auto* v = value(key);
  if (!v || !v->is_number()) return std::nullopt;
  if (v->is_number_integer()) return v->get<std::int64_t>();
  double d = v->get<double>();
  if (std::abs(d) > 9.0e18 || d != std::floor(d)) return std::nullopt;
  return static_cast<std::int64_t>(d);
}

const ConfigRead* Context::read(std::string_view key) const {
  for (const auto& c : r_.config_reads)
    if (c.key == key) return &c;
  return nullptr;
}

const ConfigRead* Context::attribute_read(std::string_view attribute) const {
  const auto& other = facts::spellings(attribute);
  auto names = [&](std::string_view k) {
    return k == attribute || std::find(other.begin(), other.end(), k) != other.end();
  };
  for (const auto& c : r_.config_reads)
    if (std::any_of(c.aliases.begin(), c.aliases.end(), names) || names(c.key)) return &c;
  return nullptr;
}

std::string Context::key_for(std::string_view attribute) const {
  if (const auto* r = attribute_read(attribute)) return r->key;
  for (auto k : facts::spellings(attribute))
    if (value(k)) return std::string(k);
  return std::string(attribute);
}

std::optional<double> Context::read_number(std::string_view attribute) const {
  const auto* r = attribute_read(attribute);
  if (!r) return std::nullopt;
  auto j = nlohmann::json::parse(r->value, nullptr, false);
  if (j.is_number()) return j.get<double>();
  return std::nullopt;
}

const Node* Context::first(std::initializer_list<NodeType> types) const {
  for (const auto& n : r_.graph.nodes)
    if (std::find(types.begin(), types.end(), n.type) != types.end()) return &n;
  return nullptr;
}

const Node* Context::first_attention() const {
  for (const auto& n : r_.graph.nodes)
    if (is_attention(n.type) && n.attention) return &n;
  return nullptr;
}

const Node* Context::first_ffn() const {
  for (const auto& n : r_.graph.nodes)
    if (n.feed_forward) return &n;
  return nullptr;
}

const Node* Context::output_source() const {
  for (const auto& n : r_.graph.nodes)
    if (n.type == NodeType::Output && !n.inputs.empty())
      return &r_.graph.nodes.at(static_cast<std::size_t>(n.inputs[0]));
  return nullptr;
}

const Node* Context::token_embedding() const {
  if (r_.graph.input_kind != "tokens") return nullptr;
  const Node* n = first({NodeType::Embedding});
  return n && !n->tensors.empty() ? n : nullptr;
}

std::optional<std::int64_t> Context::vocab() const {
  const Node* n = token_embedding();
  if (!n) return std::nullopt;
  const auto& t = r_.graph.tensors.at(static_cast<std::size_t>(n->tensors.front()));
  if (t.shape.size() != 2) return std::nullopt;
  return t.shape[0];
}

std::int64_t Context::hidden() const {
  if (const Node* a = first_attention(); a && !a->out.empty()) return a->out.back();
  if (const Node* e = token_embedding(); e && !e->out.empty()) return e->out.back();
  return 0;
}

std::int64_t Context::layers() const {
  std::set<int> blocks;
  for (const auto& n : r_.graph.nodes)
    if (n.block >= 0) blocks.insert(n.block);
  return static_cast<std::int64_t>(blocks.size());
}

bool Context::learned_positions() const { return first({NodeType::LearnedPosEmbed}) != nullptr; }

// RoPE is recorded by the attention blocks that apply it (AttentionAttrs::rotary); the config and the
// model type are not asked, so a relative or ALiBi scheme never reads as rotary.
bool Context::rotary() const {
  for (const auto& n : r_.graph.nodes)
    if (n.attention && n.attention->rotary) return true;
  return false;
}

std::optional<std::int64_t> Context::max_positions() const {
  if (auto v = read_number("max_position_embeddings"); v && *v > 0) return static_cast<std::int64_t>(*v);
  for (auto k : facts::spellings("max_position_embeddings"))
    if (auto v = integer(k); v && *v > 0) return *v;
  return std::nullopt;
}

std::optional<std::int64_t> Context::sequence() const {
  if (o_.seq) return o_.seq;
  if (r_.graph.input_kind == "tokens" && r_.graph.input_shape.size() == 1) return r_.graph.input_shape[0];
  return std::nullopt;
}

std::string Context::declared_dtype_text() const {
  for (auto k : {"torch_dtype", "dtype"})
    if (const auto* v = value(k); v && v->is_string()) return v->get<std::string>();
  return {};
}

std::optional<DType> Context::declared_dtype() const {
  auto text = declared_dtype_text();
  if (text.empty()) return std::nullopt;
  return dtype_from_torch(text);
}

double Context::matmul_share(const std::function<bool(const graph::TensorSpec&, const Node&)>& pick) const {
  double total = 0, picked = 0;
  for (const auto& t : r_.graph.tensors) {
    if (t.node < 0 || t.kind != graph::TensorKind::Parameter || !graph::is_matmul_role(t.role)) continue;
    const Node& n = r_.graph.nodes.at(static_cast<std::size_t>(t.node));
    // Heads over a pooled vector run once per input, not once per token: negligible work.
    if (!is_weight_gemm(n.type) || n.out.size() < 2) continue;
    const auto s = static_cast<double>(t.scalars());
    total += s;
    if (pick(t, n)) picked += s;
  }
  return total > 0 ? picked / total : 0.0;
}

std::int64_t round_up(std::int64_t x, std::int64_t m) { return m <= 0 ? x : (x + m - 1) / m * m; }

std::int64_t round_down(std::int64_t x, std::int64_t m) { return m <= 0 ? x : std::max(m, x / m * m); }

std::string percent(double fraction) {
  const double p = fraction * 100.0;
  return p < 1.0 ? fmt::format("{:.1f}%", p) : fmt::format("{:.0f}%", p);
}

std::string_view nearest(std::string_view word, const std::vector<std::string_view>& candidates) {
  // A candidate that spells every part of the word ("gelu_tanh" -> "gelu_pytorch_tanh") beats
  // one that is merely a few letters away ("gelu_fast").
  std::vector<std::string_view> parts;
  for (std::size_t start = 0; start <= word.size();) {
    auto end = word.find('_', start);
    if (end == std::string_view::npos) end = word.size();
    if (end > start) parts.push_back(word.substr(start, end - start));
    start = end + 1;
  }
  std::string_view spelled;
  for (auto cand : candidates) {
    const bool all = std::all_of(parts.begin(), parts.end(), [&](auto p) { return cand.find(p) != cand.npos; });
    if (parts.size() > 1 && all && (spelled.empty() || cand.size() < spelled.size())) spelled = cand;
  }
  if (!spelled.empty()) return spelled;
  std::string_view best;
  std::size_t best_cost = SIZE_MAX;
  for (auto cand : candidates) {
    const std::size_t cost = edit_distance(word, cand);
    if (cost < best_cost) {
      best_cost = cost;
      best = cand;
    }
  }
  return best;
}

std::vector<std::int64_t> divisors_near(std::int64_t n, std::int64_t near, bool allow_one, std::size_t count) {
  std::vector<std::int64_t> all;
  for (std::int64_t d = 1; d * d <= n; ++d)
    if (n % d == 0) {
      if (d > 1 || allow_one) all.push_back(d);
      if (d != n / d) all.push_back(n / d);
    }
  std::sort(all.begin(), all.end(), [near](std::int64_t a, std::int64_t b) {
    auto da = std::abs(a - near), db = std::abs(b - near);
    return da != db ? da < db : a < b;
  });
  if (all.size() > count) all.resize(count);
  std::sort(all.begin(), all.end());
  return all;
}

std::string or_list(const std::vector<std::int64_t>& values) {
  std::string out;
  for (std::size_t i = 0; i < values.size(); ++i)
    out += (i == 0 ? "" : i + 1 == values.size() ? " or " : ", ") + std::to_string(values[i]);
  return out;
}

}  // namespace neurarch::lint
