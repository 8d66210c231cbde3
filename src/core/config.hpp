#pragma once
// A read-only view over a model's config.json that records every key it is asked for.
// Families ask with the reference implementation's aliases and default written at the call
// site, e.g. `c.dim({"n_embd", "hidden_size"}, 768)`, so the default lives next to its use.
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

// Only the forward declarations: every family includes this header, and the whole JSON library costs
// each file about a second of template instantiation even precompiled (g++ 12 -ftime-report).
#include <nlohmann/json_fwd.hpp>

namespace neurarch {

/// One key read by a family: what was found and whether it came from the file or a default.
struct ConfigRead {
  std::string key;
  std::string value;  ///< JSON text of the value used
  bool from_file = false;
  /// Every spelling the family accepted for this value (its alias list, `key` among them), as transformers'
  /// attribute_map lets GPT-2's n_embd answer to hidden_size: how the verifier finds the key behind a quantity.
  std::vector<std::string> aliases;
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

  /// True when the key is present and not null. Records the key: the answer steers the build.
  bool has(std::string_view key) const;
  /// A size (hidden_size, vocab_size...): positive, bounded. No default = required key.
  std::int64_t dim(Keys keys, std::optional<std::int64_t> fallback = std::nullopt) const;
  /// Any integer, possibly zero or negative (token ids, counts that may be 0).
  std::int64_t integer(Keys keys, std::optional<std::int64_t> fallback = std::nullopt) const;
  double number(Keys keys, std::optional<double> fallback = std::nullopt) const;
  bool flag(Keys keys, std::optional<bool> fallback = std::nullopt) const;
  std::string text(Keys keys, std::optional<std::string> fallback = std::nullopt) const;
  /// The raw JSON value of the first present, non-null alias, or nullptr. Records the key read.
  const nlohmann::json* raw(Keys keys) const;
  /// For readers built on raw() (lists, nested values): the default used for an absent key, so the
  /// log shows the value the family applied rather than the absence.
  void record_default(std::string_view key, const nlohmann::json& value) const { record(key, value, false); }
  /// The sub-config under `key` (text_config, vision_config...) as a Config whose reads go to this
  /// config's log as "key.name". Absent or null: an empty object, so every read takes the sub-config
  /// class's default, as the reference's config classes do. Not an object: an error naming the key.
  Config child(std::string_view key) const;
  /// As child(key), with `defaults` standing in for an absent or null key (a composite config class
  /// that builds its sub-config from its own default dict); reads from it are reported as defaults.
  Config child(std::string_view key, nlohmann::json defaults) const;

  const std::string& origin() const { return origin_; }
  const nlohmann::json& json() const { return *json_; }
  /// Every key read so far, through this config or any config made from it by child().
  const std::vector<ConfigRead>& reads() const { return *reads_; }
  /// model_type, "" when absent.
  std::string model_type() const;
  /// architectures[0], "" when absent.
  std::string first_architecture() const;

 private:
  const nlohmann::json* find(Keys keys, std::string& found_key) const;
  std::string where(std::string_view key) const;
  void record(std::string_view key, const nlohmann::json& value, bool from_file, Keys aliases = {}) const;
  Config sub(nlohmann::json object, std::string_view key, bool from_file) const;

  std::shared_ptr<const nlohmann::json> json_;  ///< never null; shared by copies (read-only)
  std::string origin_;
  // Shared with the children, so the parent's log holds every read of the whole config.
  std::shared_ptr<std::vector<ConfigRead>> reads_ = std::make_shared<std::vector<ConfigRead>>();
  std::string prefix_;    ///< "vision_config." in a child: the path of its keys in the parent's log
  bool from_file_ = true;  ///< false in a child made from stand-in defaults

};

}  // namespace neurarch
