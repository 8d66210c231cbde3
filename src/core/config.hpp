#pragma once
// A read-only view over a model's config.json that records every key it is asked for.
// Families ask with the reference implementation's aliases and default written at the call
// site, e.g. `c.dim({"n_embd", "hidden_size"}, 768)`, so the default lives next to its use.
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace neurarch {

/// One key read by a family: what was found and whether it came from the file or a default.
struct ConfigRead {
  std::string key;
  std::string value;  ///< JSON text of the value used
  bool from_file = false;
};

/// Python's json module writes NaN, Infinity and -Infinity, which JSON does not allow. Rewrites
/// those bare tokens (outside strings) to null, 1e308 and -1e308 so a config saved by Python parses.
std::string standardize_python_json(std::string_view text);

class Config {
 public:
  using Keys = std::initializer_list<std::string_view>;

  /// Parses config.json text; `origin` names the file in every error ("config.json:3:14: ...").
  static Config parse(std::string_view text, std::string origin);
  Config(nlohmann::json object, std::string origin);

  /// True when the first present alias is not null.
  bool has(std::string_view key) const;
  /// A size (hidden_size, vocab_size...): positive, bounded. No default = required key.
  std::int64_t dim(Keys keys, std::optional<std::int64_t> fallback = std::nullopt) const;
  /// Any integer, possibly zero or negative (token ids, counts that may be 0).
  std::int64_t integer(Keys keys, std::optional<std::int64_t> fallback = std::nullopt) const;
  double number(Keys keys, std::optional<double> fallback = std::nullopt) const;
  bool flag(Keys keys, std::optional<bool> fallback = std::nullopt) const;
  std::string text(Keys keys, std::optional<std::string> fallback = std::nullopt) const;
  /// The raw JSON value of the first present, non-null alias, or nullptr.
  const nlohmann::json* raw(Keys keys) const;

  const std::string& origin() const { return origin_; }
  const nlohmann::json& json() const { return json_; }
  const std::vector<ConfigRead>& reads() const { return reads_; }
  /// model_type, "" when absent.
  std::string model_type() const;
  /// architectures[0], "" when absent.
  std::string first_architecture() const;

 private:
  const nlohmann::json* find(Keys keys, std::string& found_key) const;
  std::string where(std::string_view key) const;
  void record(std::string_view key, const nlohmann::json& value, bool from_file) const;

  nlohmann::json json_;
  std::string origin_;
  mutable std::vector<ConfigRead> reads_;
};

}  // namespace neurarch
