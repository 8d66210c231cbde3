#pragma once
// The report seen through the questions rules ask: which key did the family read for a quantity,
// what does the graph's output feed, how wide is the first attention node. Rules stay one small
// function each because the lookups live here.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/dtype.hpp"
#include "lint/lint.hpp"

namespace neurarch::lint {


/// What the graph's output is for, read from the node that feeds Output. A feature backbone
/// (DINOv2) ends in its final norm by design; only logits feed a loss directly.
enum class Role {
  Logits,          ///< LMHead: scores over the vocabulary
  ClassLogits,     ///< Classifier: scores over labels
  Pooled,          ///< Pooler: one embedding per input
  Features,        ///< hidden states (norm, residual): read by heads the user attaches
  Reconstruction,  ///< pixels or other dense outputs (MIM decoders)
};
std::string_view role_name(Role r);

class Context {
 public:
  Context(const report::Report& r, const Options& o);

  const report::Report& report() const { return r_; }
  const graph::Graph& graph() const { return r_.graph; }
  const nlohmann::json& config() const { return r_.config; }
  const Options& options() const { return o_; }
  const std::string& model_type() const { return r_.model.model_type; }
  const std::string& class_name() const { return r_.model.class_name; }
  Role role() const { return role_; }

  // --- the raw config ---
  /// The key's value when present and not null.
  const nlohmann::json* value(std::string_view key) const;
  std::optional<double> number(std::string_view key) const;
  /// An integral number (768 or 768.0); nullopt otherwise.
  std::optional<std::int64_t> integer(std::string_view key) const;
  /// What the family recorded reading for `key`, or nullptr.
  const ConfigRead* read(std::string_view key) const;
  /// The read behind a standard attribute (hidden_size, num_attention_heads, ... as facts::spellings lists
  /// them): the first read whose aliases (the family's own spellings) include the attribute or one of its
  /// spellings; nullptr when the family read none.
  const ConfigRead* attribute_read(std::string_view attribute) const;
  /// The key a message should name for `attribute`: the one the family read, else the first of its spellings
  /// the config holds, else the attribute itself.
  std::string key_for(std::string_view attribute) const;
  /// attribute_read(attribute)'s value as a number (from the file or the family's default).
  std::optional<double> read_number(std::string_view attribute) const;

  // --- the graph ---
  const graph::Node* first(std::initializer_list<graph::NodeType> types) const;
  const graph::Node* first_attention() const;
  const graph::Node* first_ffn() const;
  const graph::Node* output_source() const;  ///< the node that feeds Output
  const graph::Node* token_embedding() const;
  const graph::Node* patch_embed() const { return first({graph::NodeType::PatchEmbed}); }
  /// Rows of the token embedding table; nullopt for pixel models.
  std::optional<std::int64_t> vocab() const;
  /// The model width: the first attention node's output, else the token embedding's.
  std::int64_t hidden() const;
  /// Distinct repeated blocks in the graph.
  std::int64_t layers() const;
  bool learned_positions() const;
  /// RoPE: an attention node says so, or a token model has no position table and no relative buckets.
  bool rotary() const;
  /// max_position_embeddings (or its alias) as the family used it.
  std::optional<std::int64_t> max_positions() const;
  /// Options::seq, else the token input the report was traced at.
  std::optional<std::int64_t> sequence() const;
  /// torch_dtype (or dtype) as written, "" when absent.
  std::string declared_dtype_text() const;
  std::optional<DType> declared_dtype() const;
  /// Share of the per-token weight-GEMM work (weight scalars of nodes that run once per token)
  /// held by tensors `pick` selects; 0 when the graph has no such work.
  double matmul_share(const std::function<bool(const graph::TensorSpec&, const graph::Node&)>& pick) const;

 private:
  const report::Report& r_;
  const Options& o_;
  Role role_ = Role::Features;
};

/// Smallest multiple of m that is >= x.
std::int64_t round_up(std::int64_t x, std::int64_t m);
/// Largest multiple of m that is <= x (m when x < m).
std::int64_t round_down(std::int64_t x, std::int64_t m);
/// 0.3123 -> "31%".
std::string percent(double fraction);
/// The candidate closest to `word` by edit distance (suggestions in fixes).
std::string_view nearest(std::string_view word, const std::vector<std::string_view>& candidates);
/// Divisors of n closest to `near` (1 left out unless `allow_one`), for "use N heads instead" fixes.
std::vector<std::int64_t> divisors_near(std::int64_t n, std::int64_t near, bool allow_one, std::size_t count = 3);
/// {2, 5, 10} -> "2, 5 or 10".
std::string or_list(const std::vector<std::int64_t>& values);

}  // namespace neurarch::lint
