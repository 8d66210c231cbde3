#pragma once
// Software eras and framework presets from data/setups.json: the defaults a torch generation and a
// framework set, each with its source. plan/options.cpp applies them under the user's own options.
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace neurarch::plan {

struct Era {
  std::string name;
  std::int64_t cuda_context_bytes = 0;
  bool keep_gradients = false;
  bool optimizer_foreach = true;
  bool softmax_saves_input = false;
  std::string source;
};

struct Preset {
  std::string framework;  ///< "hf-trainer"
  std::string from;       ///< first version it describes ("4.27")
  std::string era;
  std::map<std::string, std::string> settings;        ///< option name -> canonical text
  std::map<std::string, std::string> qlora_settings;  ///< only for the QLoRA column
  std::map<std::string, std::vector<std::string>> lora_targets;  ///< framework's target name -> module names
  std::string source;
};

/// "litgpt" (its newest preset) or "hf-trainer@4.15" (the preset whose `from` is the latest at or
/// before 4.15). Throws Error(InvalidInput, "framework") when unknown.
const Preset& find_preset(std::string_view framework_at_version);
const Era& find_era(std::string_view name);

}  // namespace neurarch::plan
