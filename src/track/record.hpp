#pragma once
// What the tracker knows about one revision of a model repository, and what changed between two.
// A record holds facts, not files: the next run diffs a new revision against the stored record
// of its parent without reading the parent's files again.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace neurarch::track {

struct TensorFact {
  std::vector<std::int64_t> shape;
  std::string dtype;  ///< safetensors spelling: "BF16"
  bool operator==(const TensorFact&) const = default;
};
using TensorTable = std::map<std::string, TensorFact>;

/// config.json and the graph rebuilt from it (pipeline::trace and the planner, never re-derived).
struct ConfigFacts {
  std::string blob;            ///< git object id of config.json; "" when absent
  std::optional<nlohmann::json> json;  ///< the parsed config; nullopt when absent or unreadable
  std::string error;           ///< why it could not be read or built; "" when fine
  // Set when the graph could be built:
  bool graph = false;
  std::string model_type, class_name;
  std::int64_t parameters = 0;            ///< saved scalars, as save_pretrained writes them
  std::int64_t memory_batch1 = 0;         ///< full fine-tune peak allocated bytes at batch 1
  TensorTable tensors;
};

struct SpecialRole {
  std::string token;              ///< "" when the role is unset
  std::optional<std::int64_t> id; ///< nullopt when the token's id cannot be found
  bool operator==(const SpecialRole&) const = default;
};

struct TokenizerFacts {
  std::string key;  ///< blob ids of every tokenizer file joined: equal keys mean equal facts
  std::vector<std::string> files;
  std::optional<std::int64_t> vocab_size;   ///< base vocabulary plus added tokens outside it
  std::string vocab_digest;                 ///< of the base vocabulary's token -> id map; "" when unknown
  std::map<std::string, std::int64_t> special_tokens;  ///< content -> id
  std::map<std::string, SpecialRole> roles;            ///< "bos" | "eos" | "pad" | "unk" -> token and id
  std::vector<std::string> errors;                     ///< per file: why it could not be read
};

struct ChatTemplateFacts {
  std::string key;     ///< blob ids of the files it was read from
  std::string source;  ///< "chat_template.jinja" | "tokenizer_config.json" | "" when none
  std::map<std::string, std::string> templates;  ///< name ("default", "tool_use", ...) -> text
};

struct WeightFile {
  std::string blob;      ///< git object id of the file (the pointer when it is an LFS pointer)
  bool lfs = false;
  std::string oid;       ///< LFS: "sha256:<hex>"; otherwise the git blob id
  std::int64_t size = 0; ///< bytes of the real file
  bool headers = false;  ///< safetensors headers were read (the file itself is in git)
  TensorTable tensors;   ///< when headers were read
  std::string error;     ///< an unreadable pointer or header; "" when fine
};

struct WeightsFacts {
  std::map<std::string, WeightFile> files;  ///< path -> file
  std::string index_blob;  ///< git object id of model.safetensors.index.json; "" when absent
  std::optional<std::map<std::string, std::string>> index;  ///< its weight_map: tensor -> file
  std::string index_error;
};

struct Problem {
  std::string file;     ///< the file, or "" for the revision as a whole
  std::string message;
  bool operator==(const Problem&) const = default;
};

struct RevisionRecord {
  std::string commit;
  std::string parent;     ///< first parent; "" for a root commit
  std::int64_t time = 0;  ///< committer time, seconds since the epoch
  std::string author;
  std::string title;      ///< first line of the message
  ConfigFacts config;
  TokenizerFacts tokenizer;
  ChatTemplateFacts chat_template;
  WeightsFacts weights;
  std::vector<Problem> problems;
};

enum class Severity { Info, Notice, Breaking };
const char* severity_name(Severity s);
Severity severity_from_name(const std::string& name);

/// One classified difference between a revision and its parent.
struct Change {
  std::string category;  ///< "config" | "graph" | "tokenizer" | "chat_template" | "weights"
  std::string kind;      ///< e.g. "key-changed", "tensor-reshaped", "special-token-id-changed"
  std::string subject;   ///< the key path, tensor, file or role it is about
  nlohmann::json before, after;  ///< null when absent on that side
  Severity severity = Severity::Info;
  std::string summary;   ///< one line for people
  std::string detail;    ///< longer text (a template diff); "" when none
  bool breaking() const { return severity == Severity::Breaking; }
};

nlohmann::json to_json(const RevisionRecord& r);
RevisionRecord record_from_json(const nlohmann::json& j);
nlohmann::json to_json(const Change& c);
Change change_from_json(const nlohmann::json& j);

}  // namespace neurarch::track
