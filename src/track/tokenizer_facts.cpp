#include "track/tokenizer_facts.hpp"

#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/json_depth.hpp"
#include "core/limits.hpp"
#include "track/digest.hpp"

namespace neurarch::track {
namespace {
using nlohmann::json;

const std::set<std::string> kTokenizerFiles = {"tokenizer.json",     "tokenizer_config.json", "special_tokens_map.json",
                                               "added_tokens.json",  "vocab.json",            "vocab.txt",
                                               "merges.txt",         "tokenizer.model",       "spiece.model",
                                               "sentencepiece.bpe.model"};
const char* const kRoles[] = {"bos", "eos", "pad", "unk"};

std::optional<json> parse_json(const std::map<std::string, std::string>& texts, const std::string& name,
                               std::vector<std::string>& errors) {
  const auto it = texts.find(name);
  if (it == texts.end()) return std::nullopt;
  if (nested_deeper_than(it->second, limits::kMaxJsonDepth)) {
    errors.push_back(fmt::format("{}: nested deeper than {} levels", name, limits::kMaxJsonDepth));
    return std::nullopt;
  }
  try {
    json j = json::parse(it->second);
    if (!j.is_object()) {
      errors.push_back(name + ": not a JSON object");
      return std::nullopt;
    }
    return j;
  } catch (const json::parse_error& e) {
    errors.push_back(fmt::format("{}: byte {}: does not parse as JSON", name, e.byte));
    return std::nullopt;
  } catch (const json::exception&) {
    // Good syntax that no double holds (1e400): nlohmann throws out_of_range, not parse_error.
    errors.push_back(name + ": holds a number out of range");
    return std::nullopt;
  }
}

// bos_token and friends are a string, an AddedToken dict {"content": ...}, or null.
std::string token_text(const json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_object() && v.contains("content") && v["content"].is_string()) return v["content"].get<std::string>();
  return "";
}

struct Vocabulary {
  std::map<std::string, std::int64_t> ids;  // base vocabulary: token -> id
  bool known = false;
};

// `"special": true` on an added token; anything else (absent, not a boolean) is not special.
bool marked_special(const json& t) {
  return t.is_object() && t.contains("special") && t["special"].is_boolean() && t["special"].get<bool>();
}

Vocabulary base_vocabulary(const std::optional<json>& tokenizer_json, const std::map<std::string, std::string>& texts,
                           std::vector<std::string>& errors) {
  Vocabulary v;
  // Every access checks the type first: these files come from any repository (json::value throws on a non-object).
  if (tokenizer_json && tokenizer_json->contains("model") && (*tokenizer_json)["model"].is_object()) {
    const json& vocab = (*tokenizer_json)["model"].value("vocab", json());
    if (vocab.is_object()) {  // BPE, WordPiece, WordLevel: token -> id
      for (const auto& [token, id] : vocab.items())
        if (id.is_number_integer()) v.ids[token] = id.get<std::int64_t>();
      v.known = true;
    } else if (vocab.is_array()) {  // Unigram: [[token, score], ...], the id is the position
      std::int64_t id = 0;
      for (const auto& entry : vocab) {
        if (entry.is_array() && !entry.empty() && entry[0].is_string()) v.ids[entry[0].get<std::string>()] = id;
        ++id;
      }
      v.known = true;
    }
    if (v.known) return v;
  }
  if (auto vocab_json = parse_json(texts, "vocab.json", errors)) {
    for (const auto& [token, id] : vocab_json->items())
      if (id.is_number_integer()) v.ids[token] = id.get<std::int64_t>();
    v.known = true;
  } else if (const auto it = texts.find("vocab.txt"); it != texts.end()) {
    std::int64_t id = 0;
    std::size_t start = 0;
    const std::string& text = it->second;
    while (start < text.size()) {
      std::size_t end = text.find('\n', start);
      if (end == std::string::npos) end = text.size();
      std::string token = text.substr(start, end - start);
      if (!token.empty() && token.back() == '\r') token.pop_back();
      v.ids.emplace(token, id++);
      start = end + 1;
    }
    v.known = true;
  }
  return v;
}

}  // namespace

bool is_tokenizer_file(const std::string& path) { return kTokenizerFiles.count(path) > 0; }
bool is_chat_template_file(const std::string& path) {
  return path == "chat_template.jinja" || path == "chat_template.json" || path == "tokenizer_config.json";
}

TokenizerFacts tokenizer_facts(const std::map<std::string, std::string>& texts) {
  TokenizerFacts f;
  for (const auto& [name, text] : texts) f.files.push_back(name);
  const auto tokenizer_json = parse_json(texts, "tokenizer.json", f.errors);
  const auto tokenizer_config = parse_json(texts, "tokenizer_config.json", f.errors);
  const auto special_map = parse_json(texts, "special_tokens_map.json", f.errors);
  const auto added_json = parse_json(texts, "added_tokens.json", f.errors);
  const Vocabulary vocab = base_vocabulary(tokenizer_json, texts, f.errors);

  // Added tokens: every source transformers merges, special or not (ids are what matter).
  std::map<std::string, std::int64_t> added;
  std::set<std::string> special;
  if (tokenizer_json && (*tokenizer_json).contains("added_tokens") && (*tokenizer_json)["added_tokens"].is_array()) {
    for (const auto& t : (*tokenizer_json)["added_tokens"]) {
      if (!t.is_object() || !t.contains("content") || !t["content"].is_string() || !t.contains("id") ||
          !t["id"].is_number_integer())
        continue;
      const std::string content = t["content"].get<std::string>();
      added[content] = t["id"].get<std::int64_t>();
      if (marked_special(t)) special.insert(content);
    }
  }
  if (tokenizer_config && tokenizer_config->contains("added_tokens_decoder") &&
      (*tokenizer_config)["added_tokens_decoder"].is_object()) {
    for (const auto& [id_text, t] : (*tokenizer_config)["added_tokens_decoder"].items()) {
      std::int64_t id = 0;
      try {
        id = std::stoll(id_text);
      } catch (const std::exception&) {
        f.errors.push_back(fmt::format("tokenizer_config.json: added_tokens_decoder key '{}' is not an id", id_text));
        continue;
      }
      const std::string content = token_text(t);
      if (content.empty()) continue;
      added[content] = id;
      if (marked_special(t)) special.insert(content);
    }
  }
  if (added_json)
    for (const auto& [content, id] : added_json->items())
      if (id.is_number_integer()) added[content] = id.get<std::int64_t>();

  // Roles: tokenizer_config.json first, special_tokens_map.json as the fallback, as transformers loads them.
  for (const char* role : kRoles) {
    const std::string key = std::string(role) + "_token";
    std::string token;
    if (tokenizer_config && tokenizer_config->contains(key)) token = token_text((*tokenizer_config)[key]);
    if (token.empty() && special_map && special_map->contains(key)) token = token_text((*special_map)[key]);
    if (token.empty()) continue;
    special.insert(token);
    SpecialRole r{token, std::nullopt};
    if (auto it = added.find(token); it != added.end())
      r.id = it->second;
    else if (auto jt = vocab.ids.find(token); jt != vocab.ids.end())
      r.id = jt->second;
    f.roles[role] = r;
  }
  if (special_map && special_map->contains("additional_special_tokens") && (*special_map)["additional_special_tokens"].is_array())
    for (const auto& t : (*special_map)["additional_special_tokens"])
      if (auto text = token_text(t); !text.empty()) special.insert(text);

  for (const auto& token : special) {
    if (auto it = added.find(token); it != added.end())
      f.special_tokens[token] = it->second;
    else if (auto jt = vocab.ids.find(token); jt != vocab.ids.end())
      f.special_tokens[token] = jt->second;
  }

  if (vocab.known) {
    std::set<std::int64_t> ids;
    Fnv1a digest;
    for (const auto& [token, id] : vocab.ids) {
      ids.insert(id);
      digest.add(token);
      digest.add(std::to_string(id));
    }
    for (const auto& [token, id] : added) ids.insert(id);
    f.vocab_size = static_cast<std::int64_t>(ids.size());
    f.vocab_digest = digest.hex();
  }
  return f;
}

ChatTemplateFacts chat_template_facts(const std::map<std::string, std::string>& texts, std::vector<std::string>& errors) {
  ChatTemplateFacts f;
  if (const auto it = texts.find("chat_template.jinja"); it != texts.end()) {
    f.source = "chat_template.jinja";
    f.templates["default"] = it->second;
    return f;
  }
  auto from_value = [&](const json& v, const std::string& source) {
    if (v.is_string()) {
      f.templates["default"] = v.get<std::string>();
    } else if (v.is_array()) {  // [{"name": "default", "template": "..."}, {"name": "tool_use", ...}]
      for (const auto& t : v)
        if (t.is_object() && t.contains("name") && t.contains("template") && t["name"].is_string() && t["template"].is_string())
          f.templates[t["name"].get<std::string>()] = t["template"].get<std::string>();
    }
    if (!f.templates.empty()) f.source = source;
  };
  for (const char* name : {"chat_template.json", "tokenizer_config.json"}) {
    auto j = parse_json(texts, name, errors);
    if (j && j->contains("chat_template")) from_value((*j)["chat_template"], name);
    if (!f.templates.empty()) break;
  }
  return f;
}

}  // namespace neurarch::track
