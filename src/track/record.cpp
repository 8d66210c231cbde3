#include "track/record.hpp"

namespace neurarch::track {
namespace {
using nlohmann::json;

json tensors_json(const TensorTable& t) {
  json out = json::object();
  for (const auto& [name, fact] : t) out[name] = {{"shape", fact.shape}, {"dtype", fact.dtype}};
  return out;
}

TensorTable tensors_from(const json& j) {
  TensorTable t;
  if (!j.is_object()) return t;
  for (const auto& [name, fact] : j.items())
    t[name] = {fact.at("shape").get<std::vector<std::int64_t>>(), fact.at("dtype").get<std::string>()};
  return t;
}

json optional_int(const std::optional<std::int64_t>& v) { return v ? json(*v) : json(nullptr); }
std::optional<std::int64_t> int_from(const json& j) {
  if (j.is_number_integer()) return j.get<std::int64_t>();
  return std::nullopt;
}

}  // namespace

const char* severity_name(Severity s) {
  switch (s) {
    case Severity::Info: return "info";
    case Severity::Notice: return "notice";
    case Severity::Breaking: return "breaking";
  }
  return "info";
}

Severity severity_from_name(const std::string& name) {
  if (name == "breaking") return Severity::Breaking;
  if (name == "notice") return Severity::Notice;
  return Severity::Info;
}

json to_json(const RevisionRecord& r) {
  json config = {{"blob", r.config.blob}, {"error", r.config.error}, {"graph", r.config.graph}};
  config["json"] = r.config.json ? *r.config.json : json(nullptr);
  if (r.config.graph) {
    config["model_type"] = r.config.model_type;
    config["class"] = r.config.class_name;
    config["parameters"] = r.config.parameters;
    config["memory_batch1"] = r.config.memory_batch1;
    config["tensors"] = tensors_json(r.config.tensors);
  }
  json roles = json::object();
  for (const auto& [role, v] : r.tokenizer.roles) roles[role] = {{"token", v.token}, {"id", optional_int(v.id)}};
  json tokenizer = {{"key", r.tokenizer.key},
                    {"files", r.tokenizer.files},
                    {"vocab_size", optional_int(r.tokenizer.vocab_size)},
                    {"vocab_digest", r.tokenizer.vocab_digest},
                    {"special_tokens", r.tokenizer.special_tokens},
                    {"roles", roles},
                    {"errors", r.tokenizer.errors}};
  json weights_files = json::object();
  for (const auto& [path, f] : r.weights.files) {
    json w = {{"blob", f.blob}, {"lfs", f.lfs}, {"oid", f.oid}, {"size", f.size}, {"headers", f.headers},
              {"error", f.error}};
    if (f.headers) w["tensors"] = tensors_json(f.tensors);
    weights_files[path] = std::move(w);
  }
  json weights = {{"files", weights_files}, {"index_blob", r.weights.index_blob}, {"index_error", r.weights.index_error}};
  weights["index"] = r.weights.index ? json(*r.weights.index) : json(nullptr);
  json problems = json::array();
  for (const auto& p : r.problems) problems.push_back({{"file", p.file}, {"message", p.message}});
  return {{"commit", r.commit},
          {"parent", r.parent},
          {"time", r.time},
          {"author", r.author},
          {"title", r.title},
          {"config", config},
          {"tokenizer", tokenizer},
          {"chat_template", {{"key", r.chat_template.key}, {"source", r.chat_template.source}, {"templates", r.chat_template.templates}}},
          {"weights", weights},
          {"problems", problems}};
}

RevisionRecord record_from_json(const json& j) {
  RevisionRecord r;
  r.commit = j.at("commit").get<std::string>();
  r.parent = j.at("parent").get<std::string>();
  r.time = j.at("time").get<std::int64_t>();
  r.author = j.at("author").get<std::string>();
  r.title = j.at("title").get<std::string>();
  const json& c = j.at("config");
  r.config.blob = c.at("blob").get<std::string>();
  r.config.error = c.at("error").get<std::string>();
  if (!c.at("json").is_null()) r.config.json = c.at("json");
  r.config.graph = c.at("graph").get<bool>();
  if (r.config.graph) {
    r.config.model_type = c.at("model_type").get<std::string>();
    r.config.class_name = c.at("class").get<std::string>();
    r.config.parameters = c.at("parameters").get<std::int64_t>();
    r.config.memory_batch1 = c.at("memory_batch1").get<std::int64_t>();
    r.config.tensors = tensors_from(c.at("tensors"));
  }
  const json& t = j.at("tokenizer");
  r.tokenizer.key = t.at("key").get<std::string>();
  r.tokenizer.files = t.at("files").get<std::vector<std::string>>();
  r.tokenizer.vocab_size = int_from(t.at("vocab_size"));
  r.tokenizer.vocab_digest = t.at("vocab_digest").get<std::string>();
  r.tokenizer.special_tokens = t.at("special_tokens").get<std::map<std::string, std::int64_t>>();
  for (const auto& [role, v] : t.at("roles").items())
    r.tokenizer.roles[role] = {v.at("token").get<std::string>(), int_from(v.at("id"))};
  r.tokenizer.errors = t.at("errors").get<std::vector<std::string>>();
  const json& ct = j.at("chat_template");
  r.chat_template.key = ct.at("key").get<std::string>();
  r.chat_template.source = ct.at("source").get<std::string>();
  r.chat_template.templates = ct.at("templates").get<std::map<std::string, std::string>>();
  const json& w = j.at("weights");
  for (const auto& [path, f] : w.at("files").items()) {
    WeightFile file;
    file.blob = f.at("blob").get<std::string>();
    file.lfs = f.at("lfs").get<bool>();
    file.oid = f.at("oid").get<std::string>();
    file.size = f.at("size").get<std::int64_t>();
    file.headers = f.at("headers").get<bool>();
    file.error = f.at("error").get<std::string>();
    if (file.headers) file.tensors = tensors_from(f.at("tensors"));
    r.weights.files[path] = std::move(file);
  }
  if (!w.at("index").is_null()) r.weights.index = w.at("index").get<std::map<std::string, std::string>>();
  r.weights.index_blob = w.at("index_blob").get<std::string>();
  r.weights.index_error = w.at("index_error").get<std::string>();
  for (const auto& p : j.at("problems")) r.problems.push_back({p.at("file").get<std::string>(), p.at("message").get<std::string>()});
  return r;
}

json to_json(const Change& c) {
  return {{"category", c.category}, {"kind", c.kind},       {"subject", c.subject},
          {"before", c.before},     {"after", c.after},     {"severity", severity_name(c.severity)},
          {"breaking", c.breaking()}, {"summary", c.summary}, {"detail", c.detail}};
}

Change change_from_json(const json& j) {
  Change c;
  c.category = j.at("category").get<std::string>();
  c.kind = j.at("kind").get<std::string>();
  c.subject = j.at("subject").get<std::string>();
  c.before = j.at("before");
  c.after = j.at("after");
  c.severity = severity_from_name(j.at("severity").get<std::string>());
  c.summary = j.at("summary").get<std::string>();
  c.detail = j.at("detail").get<std::string>();
  return c;
}

}  // namespace neurarch::track
