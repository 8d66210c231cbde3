#pragma once
// The one table of training-setup options: name, type, range, default, help, and how each front end
// spells it (command line, server JSON / query, Python keyword, a published row's field). The CLI,
// the server, the Python binding and `validate` all read an option through this table, then
// `plan_options` turns the choices into the planner's PlanOptions: framework preset first, then the
// era's defaults, then every explicit choice.
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "plan/plan.hpp"

namespace neurarch::plan {

enum class OptionKind { Integer, Number, Boolean, Choice, TextList };

struct OptionSpec {
  std::string_view name;  ///< canonical: the server's JSON key and the Python keyword ("lora_rank")
  OptionKind kind;
  std::vector<std::string_view> choices;  ///< Choice
  double min = 0, max = 0;                ///< Integer / Number; TextList: most items
  std::string_view default_text;          ///< shown in help ("" : set by the framework preset or the era)
  std::string_view help;
  std::string_view cli;        ///< "--lora-rank"
  std::string_view row_field;  ///< a published row's field that states it ("" : none)
};

/// Every option, in the order help lists them.
const std::vector<OptionSpec>& setup_options();
/// By canonical name; nullptr when unknown.
const OptionSpec* find_option(std::string_view name);

/// Old spellings that set a canonical option: --no-autocast / no_autocast=True / autocast=false
/// mean precision fp32.
struct OptionAlias {
  std::string_view name;   ///< "no_autocast" (Python), "autocast" (server JSON)
  std::string_view cli;    ///< "--no-autocast" or ""
  std::string_view sets;   ///< canonical option
  std::string_view when_true, when_false;  ///< value it sets ("" : nothing)
};
const std::vector<OptionAlias>& option_aliases();

/// The options a user chose, as canonical text ("precision" -> "bf16"), each checked against the table.
class SetupChoices {
 public:
  /// Throws Error(InvalidInput, the option's name) for an unknown option or a value out of its range.
  void set(std::string_view name, std::string_view text);
  /// A list option (lora_targets) from items.
  void set_list(std::string_view name, const std::vector<std::string>& items);
  /// Through an alias (e.g. "no_autocast", true); throws for an unknown alias.
  void set_alias(std::string_view alias, bool value);
  bool has(std::string_view name) const { return values_.count(std::string(name)) > 0; }
  const std::string* get(std::string_view name) const;
  const std::map<std::string, std::string>& values() const { return values_; }

 private:
  std::map<std::string, std::string> values_;
};

/// The planner's options from the choices (cards, runtime and run sizes are filled by the caller or
/// left at their defaults). Reads the framework presets and eras of data/setups.json.
PlanOptions plan_options(const SetupChoices& choices, const Runtime& runtime);

/// Canonical text of a boolean or number, as `SetupChoices` stores it.
std::string option_text(bool value);
std::string option_text(double value);

}  // namespace neurarch::plan
