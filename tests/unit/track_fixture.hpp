#pragma once
// The scripted model history the change-tracker tests share: a tiny Llama whose repository goes
// through config edits, a tokenizer swap, chat-template edits, a re-sharded LFS checkpoint, real
// safetensors files, a broken config.json and an invalid LFS pointer.
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "support/safetensors_writer.hpp"
#include "support/scripted_repo.hpp"

namespace neurarch::testing {

inline constexpr std::int64_t kDay0 = 1704067200;  // 2024-01-01T00:00:00Z
inline constexpr std::int64_t kDay = 86400;

inline nlohmann::json tiny_llama(std::int64_t intermediate = 128, std::int64_t layers = 2) {
  return {{"architectures", {"LlamaForCausalLM"}},
          {"model_type", "llama"},
          {"hidden_size", 64},
          {"intermediate_size", intermediate},
          {"num_hidden_layers", layers},
          {"num_attention_heads", 4},
          {"num_key_value_heads", 4},
          {"vocab_size", 1000},
          {"max_position_embeddings", 128},
          {"rms_norm_eps", 1e-6},
          {"rope_scaling", {{"type", "linear"}, {"factor", 2.0}}},
          {"torch_dtype", "float32"},
          {"tie_word_embeddings", false}};
}

inline std::string tokenizer_json(const nlohmann::json& vocab, const std::vector<std::pair<std::string, int>>& specials) {
  nlohmann::json added = nlohmann::json::array();
  for (const auto& [content, id] : specials) added.push_back({{"id", id}, {"content", content}, {"special", true}});
  return nlohmann::json{{"version", "1.0"}, {"added_tokens", added}, {"model", {{"type", "BPE"}, {"vocab", vocab}, {"merges", nlohmann::json::array()}}}}
      .dump(2);
}

inline const char* kTemplateV1 = "{% for m in messages %}{{ m['role'] }}: {{ m['content'] }}\n{% endfor %}";
inline const char* kTemplateV2 =
    "{{ bos_token }}\n{% for m in messages %}\n<|{{ m['role'] }}|>\n{{ m['content'] }}<|end|>\n{% endfor %}\n";

inline std::string tokenizer_config(const std::string& eos, const std::string& pad, const char* chat_template) {
  nlohmann::json j = {{"bos_token", "<s>"}, {"eos_token", eos}, {"unk_token", "<unk>"}, {"model_max_length", 128}};
  if (!pad.empty()) j["pad_token"] = pad;
  if (chat_template) j["chat_template"] = chat_template;
  return j.dump(2);
}

inline std::string index_json(const std::vector<std::pair<std::string, std::string>>& map) {
  nlohmann::json weight_map = nlohmann::json::object();
  for (const auto& [tensor, file] : map) weight_map[tensor] = file;
  return nlohmann::json{{"metadata", {{"total_size", 1000}}}, {"weight_map", weight_map}}.dump(2);
}

/// Writes a small real safetensors file and, when `poke` is set, makes its data differ from zeros.
inline void real_safetensors(ScriptedRepo& repo, const std::string& name, const std::vector<FakeTensor>& tensors, bool poke) {
  const auto path = repo.dir() / name;
  write_safetensors(path, tensors);
  if (poke) {
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(-1, std::ios::end);
    f.put('\x7f');
  }
}

/// The whole scripted history, one commit per step; returns the commits oldest first.
/// `steps` < 14 stops early (for incremental runs); `from` > 0 continues an earlier call.
inline std::vector<std::string> script_history(ScriptedRepo& repo, int from = 0, int steps = 14) {
  std::vector<std::string> commits;
  const nlohmann::json vocab1 = {{"<unk>", 0}, {"<s>", 1}, {"</s>", 2}, {"hello", 3}, {"world", 4}};
  const nlohmann::json vocab2 = {{"<unk>", 0}, {"<s>", 1}, {"!", 2}, {"world", 3}, {"hello", 4}, {"<|end|>", 5}};
  const std::vector<std::pair<std::string, int>> specials1 = {{"<unk>", 0}, {"<s>", 1}, {"</s>", 2}};
  const std::vector<std::pair<std::string, int>> specials2 = {{"<unk>", 0}, {"<s>", 1}, {"<|end|>", 5}};
  const std::vector<std::pair<std::string, std::string>> two_shards = {
      {"model.embed_tokens.weight", "model-00001-of-00002.safetensors"},
      {"lm_head.weight", "model-00002-of-00002.safetensors"},
      {"model.norm.weight", "model-00002-of-00002.safetensors"}};
  const std::vector<std::pair<std::string, std::string>> three_shards = {
      {"model.embed_tokens.weight", "model-00001-of-00003.safetensors"},
      {"lm_head.weight", "model-00002-of-00003.safetensors"},
      {"model.norm.weight", "model-00003-of-00003.safetensors"}};
  auto step = [&](int i, auto&& edit, const std::string& message) {
    if (i < from || i >= steps) return;
    edit();
    commits.push_back(repo.commit(message, kDay0 + i * kDay));
  };
  nlohmann::json config = tiny_llama();
  step(0, [&] {
    repo.write("config.json", config.dump(2));
    repo.write("tokenizer.json", tokenizer_json(vocab1, specials1));
    repo.write("tokenizer_config.json", tokenizer_config("</s>", "", kTemplateV1));
    repo.write("model-00001-of-00002.safetensors", lfs_pointer("aa", 256000));
    repo.write("model-00002-of-00002.safetensors", lfs_pointer("bb", 256256));
    repo.write("model.safetensors.index.json", index_json(two_shards));
    repo.write("README.md", "# tiny\n");
  }, "initial upload");
  config["use_cache"] = false;
  config["rope_scaling"]["factor"] = 4.0;
  step(1, [&] { repo.write("config.json", config.dump(2)); }, "config: no cache, longer rope scaling");
  config["intermediate_size"] = 256;
  step(2, [&] { repo.write("config.json", config.dump(2)); }, "wider MLP");
  step(3, [&] {
    repo.write("tokenizer.json", tokenizer_json(vocab2, specials2));
    repo.write("tokenizer_config.json", tokenizer_config("<|end|>", "<unk>", kTemplateV1));
  }, "swap the tokenizer");
  step(4, [&] { repo.write("tokenizer_config.json", tokenizer_config("<|end|>", "<unk>", kTemplateV2)); }, "new chat template");
  step(5, [&] {
    repo.write("tokenizer_config.json", tokenizer_config("<|end|>", "<unk>", nullptr));
    repo.write("chat_template.jinja", kTemplateV2);
  }, "move the chat template to chat_template.jinja");
  step(6, [&] {
    repo.remove("model-00001-of-00002.safetensors");
    repo.remove("model-00002-of-00002.safetensors");
    repo.write("model-00001-of-00003.safetensors", lfs_pointer("cc", 256000));
    repo.write("model-00002-of-00003.safetensors", lfs_pointer("dd", 256000));
    repo.write("model-00003-of-00003.safetensors", lfs_pointer("ee", 256));
    repo.write("model.safetensors.index.json", index_json(three_shards));
  }, "re-shard into three files");
  step(7, [&] {
    auto fewer = three_shards;
    fewer.pop_back();
    repo.write("model.safetensors.index.json", index_json(fewer));
  }, "drop model.norm.weight from the index");
  step(8, [&] {
    for (const char* f : {"model-00001-of-00003.safetensors", "model-00002-of-00003.safetensors",
                          "model-00003-of-00003.safetensors", "model.safetensors.index.json"})
      repo.remove(f);
    real_safetensors(repo, "model.safetensors", {{"model.embed_tokens.weight", {1000, 64}}, {"lm_head.weight", {1000, 64}}}, false);
  }, "a real safetensors file in git");
  step(9, [&] {
    real_safetensors(repo, "model.safetensors", {{"model.embed_tokens.weight", {1000, 64}}, {"lm_head.weight", {1000, 64}}}, true);
  }, "retrained: same shapes, new values");
  step(10, [&] {
    real_safetensors(repo, "model.safetensors",
                     {{"model.embed_tokens.weight", {1024, 64}}, {"lm_head.weight", {1000, 64}, "BF16"}}, true);
  }, "bf16 head, padded embeddings");
  step(11, [&] { repo.write("config.json", "{\"model_type\": \"llama\", \"hidden_size\": 64,\n  \"oops\""); }, "broken config");
  config["num_hidden_layers"] = 3;
  step(12, [&] { repo.write("config.json", config.dump(2)); }, "fix config, three layers");
  step(13, [&] { repo.write("pytorch_model.bin", "version https://git-lfs.github.com/spec/v1\noid md5:1234\nsize 10\n"); },
       "a bad LFS pointer");
  return commits;
}

}  // namespace neurarch::testing
