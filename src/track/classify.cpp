#include "track/classify.hpp"

#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "track/json_diff.hpp"
#include "track/text_diff.hpp"

namespace neurarch::track {
namespace {
using nlohmann::json;

// Tensor lists in a change are bounded: a hidden-size edit reshapes every tensor of a 70B model.
constexpr std::size_t kMaxListedTensors = 200;

std::string shape_text(const std::vector<std::int64_t>& shape) { return fmt::format("[{}]", fmt::join(shape, ", ")); }

std::string human_bytes(std::int64_t bytes) {
  const double b = static_cast<double>(bytes);
  if (std::llabs(bytes) >= (std::int64_t{1} << 30)) return fmt::format("{:.2f} GiB", b / (1 << 30));
  if (std::llabs(bytes) >= (std::int64_t{1} << 20)) return fmt::format("{:.1f} MiB", b / (1 << 20));
  return fmt::format("{} B", bytes);
}

std::string tensor_count(std::size_t n) { return fmt::format("{} tensor{}", n, n == 1 ? "" : "s"); }

json fact_json(const TensorFact& f) { return {{"shape", f.shape}, {"dtype", f.dtype}}; }

Change make(std::string category, std::string kind, std::string subject, json before, json after, Severity severity,
            std::string summary, std::string detail = {}) {
  return {std::move(category), std::move(kind), std::move(subject), std::move(before), std::move(after), severity,
          std::move(summary), std::move(detail)};
}

struct TensorDelta {
  std::vector<std::string> added, removed, reshaped, retyped;
};

TensorDelta tensor_delta(const TensorTable& a, const TensorTable& b) {
  TensorDelta d;
  for (const auto& [name, fa] : a) {
    auto it = b.find(name);
    if (it == b.end()) {
      d.removed.push_back(name);
      continue;
    }
    if (fa.shape != it->second.shape) d.reshaped.push_back(name);
    if (fa.dtype != it->second.dtype) d.retyped.push_back(name);
  }
  for (const auto& [name, fb] : b)
    if (!a.count(name)) d.added.push_back(name);
  return d;
}

// One change per kind of tensor difference, listing the tensors (bounded) on each side.
void tensor_changes(const TensorTable& a, const TensorTable& b, const std::string& category, const std::string& where,
                    Severity added_severity, const std::string& cause, std::vector<Change>& out) {
  const TensorDelta d = tensor_delta(a, b);
  auto side = [&](const std::vector<std::string>& names, const TensorTable& table) {
    json j = json::object();
    for (std::size_t i = 0; i < names.size() && i < kMaxListedTensors; ++i)
      if (auto it = table.find(names[i]); it != table.end()) j[names[i]] = fact_json(it->second);
    return j;
  };
  const auto count = tensor_count;
  if (!d.removed.empty()) {
    const auto& e = d.removed.front();
    out.push_back(make(category, "tensors-removed", count(d.removed.size()), side(d.removed, a), nullptr, Severity::Breaking,
                       fmt::format("{} removed from the {}, e.g. {} {}{}", count(d.removed.size()), where, e,
                                   shape_text(a.at(e).shape), cause)));
  }
  if (!d.added.empty()) {
    const auto& e = d.added.front();
    out.push_back(make(category, "tensors-added", count(d.added.size()), nullptr, side(d.added, b), added_severity,
                       fmt::format("{} added to the {}, e.g. {} {}{}", count(d.added.size()), where, e,
                                   shape_text(b.at(e).shape), cause)));
  }
  if (!d.reshaped.empty()) {
    const auto& e = d.reshaped.front();
    out.push_back(make(category, "tensors-reshaped", count(d.reshaped.size()), side(d.reshaped, a), side(d.reshaped, b),
                       Severity::Breaking,
                       fmt::format("{} reshaped in the {}, e.g. {} {} -> {}{}", count(d.reshaped.size()), where, e,
                                   shape_text(a.at(e).shape), shape_text(b.at(e).shape), cause)));
  }
  if (!d.retyped.empty()) {
    const auto& e = d.retyped.front();
    out.push_back(make(category, "tensors-retyped", count(d.retyped.size()), side(d.retyped, a), side(d.retyped, b),
                       Severity::Breaking,
                       fmt::format("{} changed dtype in the {}, e.g. {} {} -> {}{}", count(d.retyped.size()), where, e,
                                   a.at(e).dtype, b.at(e).dtype, cause)));
  }
}

void config_and_graph(const RevisionRecord& before, const RevisionRecord& after, const RevisionRecord* baseline,
                      std::vector<Change>& out) {
  const ConfigFacts& b = after.config;
  const bool had_config = !before.config.blob.empty();
  if (b.blob.empty()) {
    if (had_config)
      out.push_back(make("config", "config-removed", "config.json", nullptr, nullptr, Severity::Breaking,
                         "config.json was removed: transformers cannot load this revision"));
    return;
  }
  if (!b.json) {
    if (before.config.blob != b.blob)
      out.push_back(make("config", "config-unreadable", "config.json", nullptr, nullptr, Severity::Breaking,
                         "config.json does not parse: " + b.error));
    return;
  }
  const ConfigFacts* a = baseline && baseline->config.json ? &baseline->config : nullptr;
  if (!a) {
    out.push_back(make("config", "config-added", "config.json", nullptr, nullptr, Severity::Info, "config.json added"));
    return;
  }
  if (!before.config.json && had_config)
    out.push_back(make("config", "config-readable-again", "config.json", nullptr, nullptr, Severity::Info,
                       fmt::format("config.json parses again; compared with revision {}", baseline->commit.substr(0, 12))));
  if (a->blob == b.blob) return;

  std::vector<std::string> changed_keys;
  for (auto& d : json_key_diff(*a->json, *b.json)) {
    const std::string verb = d.kind == "key-added" ? "added" : d.kind == "key-removed" ? "removed" : "changed";
    std::string summary = d.kind == "key-changed"
                              ? fmt::format("config {} changed: {} -> {}", d.path, d.before.dump(), d.after.dump())
                          : d.kind == "key-added" ? fmt::format("config {} added: {}", d.path, d.after.dump())
                                                  : fmt::format("config {} removed (was {})", d.path, d.before.dump());
    changed_keys.push_back(d.path);
    out.push_back(make("config", d.kind, d.path, d.before, d.after, Severity::Info, std::move(summary)));
  }

  if (a->graph && b.graph) {
    const std::string cause = changed_keys.empty() ? "" : fmt::format(" (config: {})", fmt::join(changed_keys, ", "));
    if (a->model_type != b.model_type || a->class_name != b.class_name)
      out.push_back(make("graph", "architecture-changed", "class", json{{"model_type", a->model_type}, {"class", a->class_name}},
                         json{{"model_type", b.model_type}, {"class", b.class_name}}, Severity::Breaking,
                         fmt::format("the config now builds {} ({}) instead of {} ({})", b.class_name, b.model_type,
                                     a->class_name, a->model_type)));
    tensor_changes(a->tensors, b.tensors, "graph", "rebuilt graph", Severity::Breaking, cause, out);
    if (a->parameters != b.parameters) {
      const double pct = a->parameters ? 100.0 * static_cast<double>(b.parameters - a->parameters) / static_cast<double>(a->parameters) : 0;
      out.push_back(make("graph", "parameters-changed", "parameters", a->parameters, b.parameters, Severity::Info,
                         fmt::format("parameters {} -> {} ({:+.2f} %)", a->parameters, b.parameters, pct)));
    }
    if (a->memory_batch1 != b.memory_batch1)
      out.push_back(make("graph", "memory-changed", "full fine-tune peak at batch 1", a->memory_batch1, b.memory_batch1,
                         Severity::Notice,
                         fmt::format("full fine-tune memory at batch 1: {} -> {}", human_bytes(a->memory_batch1),
                                     human_bytes(b.memory_batch1))));
  } else if (a->graph && !b.graph) {
    out.push_back(make("graph", "graph-unbuildable", "config.json", nullptr, nullptr, Severity::Notice,
                       "the graph can no longer be rebuilt from config.json: " + b.error));
  } else if (!a->graph && b.graph) {
    out.push_back(make("graph", "graph-buildable", "config.json", nullptr, nullptr, Severity::Info,
                       fmt::format("the graph can be rebuilt again: {} ({})", b.class_name, b.model_type)));
  }
}

json role_json(const SpecialRole& r) { return {{"token", r.token}, {"id", r.id ? json(*r.id) : json(nullptr)}}; }
std::string role_text(const SpecialRole& r) { return r.id ? fmt::format("{:?} (id {})", r.token, *r.id) : fmt::format("{:?} (id unknown)", r.token); }

void tokenizer(const TokenizerFacts& a, const TokenizerFacts& b, std::vector<Change>& out) {
  if (a.key == b.key) return;
  const std::set<std::string> fa(a.files.begin(), a.files.end()), fb(b.files.begin(), b.files.end());
  for (const auto& f : fa)
    if (!fb.count(f)) out.push_back(make("tokenizer", "file-removed", f, nullptr, nullptr, Severity::Info, f + " removed"));
  for (const auto& f : fb)
    if (!fa.count(f)) out.push_back(make("tokenizer", "file-added", f, nullptr, nullptr, Severity::Info, f + " added"));
  if (!b.errors.empty()) {
    out.push_back(make("tokenizer", "tokenizer-unreadable", "tokenizer", nullptr, b.errors, Severity::Notice,
                       "the tokenizer cannot be compared: " + b.errors.front()));
    return;
  }
  if (!a.errors.empty()) {
    out.push_back(make("tokenizer", "tokenizer-readable-again", "tokenizer", a.errors, nullptr, Severity::Info,
                       "the tokenizer files read again; the previous revision's could not be compared"));
    return;
  }

  auto vocab_json = [](const TokenizerFacts& t) {
    return json{{"size", t.vocab_size ? json(*t.vocab_size) : json(nullptr)}, {"digest", t.vocab_digest}};
  };
  auto size_text = [](const std::optional<std::int64_t>& n) { return n ? std::to_string(*n) : std::string("unknown"); };
  if (!a.vocab_digest.empty() && !b.vocab_digest.empty() && a.vocab_digest != b.vocab_digest) {
    out.push_back(make("tokenizer", "vocabulary-changed", "vocabulary", vocab_json(a), vocab_json(b), Severity::Breaking,
                       fmt::format("the base vocabulary's token ids changed ({} -> {} tokens): text tokenized with the "
                                   "previous tokenizer means something else now",
                                   size_text(a.vocab_size), size_text(b.vocab_size))));
  } else if (a.vocab_size != b.vocab_size) {
    out.push_back(make("tokenizer", "vocab-size-changed", "vocabulary", vocab_json(a), vocab_json(b), Severity::Info,
                       fmt::format("vocabulary size {} -> {}", size_text(a.vocab_size), size_text(b.vocab_size))));
  }

  for (const auto& [token, id] : a.special_tokens) {
    auto it = b.special_tokens.find(token);
    if (it == b.special_tokens.end())
      out.push_back(make("tokenizer", "special-token-removed", token, id, nullptr, Severity::Breaking,
                         fmt::format("special token {:?} (id {}) removed", token, id)));
    else if (it->second != id)
      out.push_back(make("tokenizer", "special-token-id-changed", token, id, it->second, Severity::Breaking,
                         fmt::format("special token {:?} moved from id {} to {}", token, id, it->second)));
  }
  for (const auto& [token, id] : b.special_tokens)
    if (!a.special_tokens.count(token))
      out.push_back(make("tokenizer", "special-token-added", token, nullptr, id, Severity::Info,
                         fmt::format("special token {:?} added with id {}", token, id)));

  std::set<std::string> roles;
  for (const auto& [role, r] : a.roles) roles.insert(role);
  for (const auto& [role, r] : b.roles) roles.insert(role);
  for (const auto& role : roles) {
    const auto ia = a.roles.find(role), ib = b.roles.find(role);
    const std::string subject = role + "_token";
    if (ib == b.roles.end()) {
      out.push_back(make("tokenizer", "role-unset", subject, role_json(ia->second), nullptr, Severity::Breaking,
                         fmt::format("{} is no longer set (was {})", subject, role_text(ia->second))));
    } else if (ia == a.roles.end()) {
      out.push_back(make("tokenizer", "role-set", subject, nullptr, role_json(ib->second), Severity::Notice,
                         fmt::format("{} is now {}", subject, role_text(ib->second))));
    } else if (!(ia->second == ib->second)) {
      const bool same_id = ia->second.id && ib->second.id && *ia->second.id == *ib->second.id;
      out.push_back(make("tokenizer", same_id ? "role-token-changed" : "role-id-changed", subject, role_json(ia->second),
                         role_json(ib->second), same_id ? Severity::Notice : Severity::Breaking,
                         fmt::format("{} {} -> {}", subject, role_text(ia->second), role_text(ib->second))));
    }
  }
}

void chat_template(const ChatTemplateFacts& a, const ChatTemplateFacts& b, std::vector<Change>& out) {
  if (a.key == b.key) return;
  bool any = false;
  for (const auto& [name, text] : a.templates) {
    auto it = b.templates.find(name);
    if (it == b.templates.end()) {
      any = true;
      out.push_back(make("chat_template", "chat-template-removed", name, a.source, nullptr, Severity::Breaking,
                         fmt::format("chat template '{}' removed (was in {})", name, a.source)));
    } else if (it->second != text) {
      any = true;
      const std::string file = b.source == "tokenizer_config.json" ? "chat_template (tokenizer_config.json)" : b.source;
      out.push_back(make("chat_template", "chat-template-changed", name, a.source, b.source, Severity::Breaking,
                         fmt::format("chat template '{}' changed ({})", name, b.source),
                         unified_diff(text, it->second, file)));
    }
  }
  for (const auto& [name, text] : b.templates)
    if (!a.templates.count(name)) {
      any = true;
      out.push_back(make("chat_template", "chat-template-added", name, nullptr, b.source, Severity::Notice,
                         fmt::format("chat template '{}' added in {}", name, b.source), unified_diff("", text, b.source)));
    }
  if (!any && a.source != b.source && !a.templates.empty())
    out.push_back(make("chat_template", "chat-template-moved", "default", a.source, b.source, Severity::Info,
                       fmt::format("the chat template moved from {} to {}, unchanged", a.source, b.source)));
}

json file_json(const WeightFile& f) { return {{"oid", f.oid}, {"size", f.size}, {"lfs", f.lfs}}; }

// The union of every safetensors file's header, when every one of them could be read.
std::optional<TensorTable> checkpoint_tensors(const WeightsFacts& w) {
  TensorTable all;
  bool any = false;
  for (const auto& [path, f] : w.files) {
    if (!path.ends_with(".safetensors")) continue;
    if (!f.headers) return std::nullopt;
    any = true;
    all.insert(f.tensors.begin(), f.tensors.end());
  }
  if (!any) return std::nullopt;
  return all;
}

std::set<std::string> safetensors_files(const WeightsFacts& w) {
  std::set<std::string> s;
  for (const auto& [path, f] : w.files)
    if (path.ends_with(".safetensors")) s.insert(path);
  return s;
}

void weights(const WeightsFacts& a, const WeightsFacts& b, std::vector<Change>& out) {
  std::vector<std::string> content_changed;  // safetensors files present on both sides with new bytes
  for (const auto& [path, fa] : a.files) {
    auto it = b.files.find(path);
    if (it == b.files.end()) {
      out.push_back(make("weights", "file-removed", path, file_json(fa), nullptr, Severity::Info,
                         fmt::format("{} removed ({} bytes)", path, fa.size)));
    } else if (it->second.blob != fa.blob) {
      const WeightFile& fb = it->second;
      if (!fb.error.empty()) {
        out.push_back(make("weights", "pointer-invalid", path, file_json(fa), nullptr, Severity::Notice,
                           fmt::format("{} cannot be read: {}", path, fb.error)));
        continue;
      }
      if (fa.oid != fb.oid || fa.size != fb.size) {
        out.push_back(make("weights", "file-changed", path, file_json(fa), file_json(fb), Severity::Info,
                           fmt::format("{} changed: {} ({} bytes) -> {} ({} bytes)", path, fa.oid, fa.size, fb.oid, fb.size)));
        if (path.ends_with(".safetensors")) content_changed.push_back(path);
      }
    }
  }
  for (const auto& [path, fb] : b.files)
    if (!a.files.count(path)) {
      if (!fb.error.empty())
        out.push_back(make("weights", "pointer-invalid", path, nullptr, nullptr, Severity::Notice,
                           fmt::format("{} cannot be read: {}", path, fb.error)));
      else
        out.push_back(make("weights", "file-added", path, nullptr, file_json(fb), Severity::Info,
                           fmt::format("{} added ({} bytes)", path, fb.size)));
    }

  const auto files_a = safetensors_files(a), files_b = safetensors_files(b);
  const bool resharded = !files_a.empty() && !files_b.empty() && files_a != files_b;
  const auto ta = checkpoint_tensors(a), tb = checkpoint_tensors(b);
  if (ta && tb) {
    const std::size_t before = out.size();
    tensor_changes(*ta, *tb, "weights", "checkpoint", Severity::Notice, "", out);
    const bool tensors_differ = out.size() != before;
    if (resharded)
      out.push_back(make("weights", "resharded", "safetensors files", json(files_a), json(files_b), Severity::Info,
                         fmt::format("re-sharded: {} file(s) -> {} file(s)", files_a.size(), files_b.size())));
    if (!tensors_differ && (!content_changed.empty() || resharded))
      out.push_back(make("weights", "values-changed", "checkpoint", nullptr, json(content_changed), Severity::Notice,
                         fmt::format("same {} tensors with the same shapes and dtypes, new values{}", tb->size(),
                                     resharded ? " (re-sharded files)" : "")));
    return;
  }
  if (a.index && b.index) {
    std::vector<std::string> removed, added;
    for (const auto& [name, file] : *a.index)
      if (!b.index->count(name)) removed.push_back(name);
    for (const auto& [name, file] : *b.index)
      if (!a.index->count(name)) added.push_back(name);
    auto list = [](const std::vector<std::string>& v) {
      return json(std::vector<std::string>(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(std::min(v.size(), kMaxListedTensors))));
    };
    if (!removed.empty())
      out.push_back(make("weights", "tensors-removed", tensor_count(removed.size()), list(removed), nullptr,
                         Severity::Breaking,
                         fmt::format("{} no longer in the checkpoint index, e.g. {}", tensor_count(removed.size()), removed.front())));
    if (!added.empty())
      out.push_back(make("weights", "tensors-added", tensor_count(added.size()), nullptr, list(added),
                         Severity::Notice,
                         fmt::format("{} added to the checkpoint index, e.g. {}", tensor_count(added.size()), added.front())));
    if (resharded)
      out.push_back(make("weights", "resharded", "safetensors files", json(files_a), json(files_b), Severity::Notice,
                         fmt::format("re-sharded: {} file(s) -> {} file(s), {} tensors in the index; the headers are in "
                                     "LFS, so whether values changed cannot be told from pointers",
                                     files_a.size(), files_b.size(), b.index->size())));
    else if (!content_changed.empty())
      out.push_back(make("weights", "values-changed", "checkpoint", nullptr, json(content_changed), Severity::Notice,
                         fmt::format("new contents in {} file(s) with the same tensor names; shapes are in LFS and "
                                     "were not read",
                                     content_changed.size())));
    return;
  }
  if (!content_changed.empty() && !resharded)
    out.push_back(make("weights", "values-changed", "checkpoint", nullptr, json(content_changed), Severity::Notice,
                       fmt::format("new contents in {} checkpoint file(s); shapes are in LFS and were not read",
                                   content_changed.size())));
  else if (resharded)
    out.push_back(make("weights", "resharded", "safetensors files", json(files_a), json(files_b), Severity::Notice,
                       fmt::format("re-sharded: {} file(s) -> {} file(s)", files_a.size(), files_b.size())));
}

}  // namespace

std::vector<Change> classify(const RevisionRecord& before, const RevisionRecord& after, const RevisionRecord* config_baseline) {
  std::vector<Change> out;
  config_and_graph(before, after, config_baseline, out);
  tokenizer(before.tokenizer, after.tokenizer, out);
  chat_template(before.chat_template, after.chat_template, out);
  weights(before.weights, after.weights, out);
  return out;
}

}  // namespace neurarch::track
