#pragma once
// Shared by the lint_*_test.cpp files: trace a config given as JSON text (the way `neurarch-trace -`
// would) and ask which rules fire. Configs are small, registered model types only.
#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "lint/lint.hpp"
#include "pipeline/trace.hpp"

namespace lint_test {

using nlohmann::json;
using neurarch::report::Finding;

struct Traced {
  std::optional<std::int64_t> seq;
  std::optional<std::int64_t> image_size;
};

inline neurarch::report::Report trace(const json& config, const Traced& t = {}) {
  neurarch::resolve::ResolvedModel m{"test", "", "stdin", config.dump(), "<test>", std::nullopt};
  neurarch::pipeline::TraceOptions o;
  o.build.seq = t.seq;
  o.build.image_size = t.image_size;
  o.read_checkpoint = false;
  return neurarch::pipeline::trace(m, o);
}

inline std::vector<Finding> lint(const json& config, const neurarch::lint::Options& o = {}, const Traced& t = {}) {
  return neurarch::lint::run(trace(config, t), o);
}

inline std::vector<Finding> of(const std::vector<Finding>& findings, const std::string& rule) {
  std::vector<Finding> out;
  std::copy_if(findings.begin(), findings.end(), std::back_inserter(out),
               [&](const Finding& f) { return f.rule == rule; });
  return out;
}

inline bool fires(const std::string& rule, const json& config, const neurarch::lint::Options& o = {},
                  const Traced& t = {}) {
  return !of(lint(config, o, t), rule).empty();
}

/// `base` with `changes` written over it (null values are kept as explicit nulls).
inline json with(json base, const json& changes) {
  for (auto it = changes.begin(); it != changes.end(); ++it) base[it.key()] = it.value();
  return base;
}

// Small but healthy configs of registered families: every rule must stay silent on them.
inline json llama(const json& changes = json::object()) {
  return with({{"model_type", "llama"}, {"architectures", {"LlamaForCausalLM"}}, {"vocab_size", 512},
               {"hidden_size", 128}, {"intermediate_size", 256}, {"num_hidden_layers", 2},
               {"num_attention_heads", 4}, {"num_key_value_heads", 2}, {"max_position_embeddings", 256},
               {"rms_norm_eps", 1e-5}, {"rope_theta", 10000.0}, {"torch_dtype", "bfloat16"}, {"bos_token_id", 1},
               {"eos_token_id", 2}},
              changes);
}

inline json mistral(const json& changes = json::object()) {
  return with(llama({{"model_type", "mistral"}, {"architectures", {"MistralForCausalLM"}}, {"sliding_window", 64}}),
              changes);
}

inline json qwen2(const json& changes = json::object()) {
  return with(llama({{"model_type", "qwen2"}, {"architectures", {"Qwen2ForCausalLM"}}, {"use_sliding_window", false},
                     {"sliding_window", 4096}, {"max_window_layers", 2}}),
              changes);
}

inline json gpt2(const json& changes = json::object()) {
  return with({{"model_type", "gpt2"}, {"architectures", {"GPT2LMHeadModel"}}, {"vocab_size", 512}, {"n_embd", 128},
               {"n_layer", 2}, {"n_head", 4}, {"n_positions", 256}, {"bos_token_id", 0}, {"eos_token_id", 0},
               {"activation_function", "gelu_new"}, {"layer_norm_epsilon", 1e-5}},
              changes);
}

inline json bert(const json& changes = json::object()) {
  return with({{"model_type", "bert"}, {"architectures", {"BertForMaskedLM"}}, {"vocab_size", 512},
               {"hidden_size", 128}, {"num_hidden_layers", 2}, {"num_attention_heads", 4},
               {"intermediate_size", 256}, {"max_position_embeddings", 128}, {"pad_token_id", 0},
               {"hidden_act", "gelu"}, {"layer_norm_eps", 1e-12}, {"hidden_dropout_prob", 0.0},
               {"attention_probs_dropout_prob", 0.0}},
              changes);
}

inline json dinov2(const json& changes = json::object()) {
  return with({{"model_type", "dinov2"}, {"architectures", {"Dinov2Model"}}, {"hidden_size", 128},
               {"num_hidden_layers", 2}, {"num_attention_heads", 4}, {"image_size", 56}, {"patch_size", 14},
               {"layer_norm_eps", 1e-6}},
              changes);
}

inline json vit(const json& changes = json::object()) {
  return with({{"model_type", "vit"}, {"architectures", {"ViTForImageClassification"}}, {"hidden_size", 128},
               {"num_hidden_layers", 2}, {"num_attention_heads", 4}, {"intermediate_size", 256},
               {"image_size", 64}, {"patch_size", 16}, {"layer_norm_eps", 1e-12}},
              changes);
}

}  // namespace lint_test
