#include "track/revision_reader.hpp"

#include <fmt/format.h>

#include "checkpoint/safetensors.hpp"
#include "core/error.hpp"
#include "core/limits.hpp"
#include "plan/hardware.hpp"
#include "plan/memory.hpp"
#include "pipeline/trace.hpp"
#include "track/lfs.hpp"
#include "track/tokenizer_facts.hpp"

namespace neurarch::track {
namespace {

constexpr const char* kConfigName = "config.json";
constexpr const char* kIndexName = "model.safetensors.index.json";
const char* const kWeightExtensions[] = {".safetensors", ".bin", ".pt", ".pth", ".ckpt", ".gguf", ".h5", ".msgpack", ".onnx"};

bool ends_with(const std::string& s, std::string_view suffix) { return s.ends_with(suffix); }

std::string short_commit(const std::string& commit) { return commit.substr(0, 12); }

TensorTable graph_tensors(const graph::Graph& g) {
  TensorTable t;
  for (const auto& spec : g.tensors)
    if (spec.saved()) t[spec.name] = {spec.shape, std::string(dtype_name(spec.dtype))};
  return t;
}

// The graph and the planner answer; nothing about the model is worked out here.
ConfigFacts config_facts(const std::string& text, const std::string& blob, const std::string& origin) {
  ConfigFacts f;
  f.blob = blob;
  try {
    f.json = Config::parse(text, origin).json();
  } catch (const Error& e) {
    f.error = e.what();
    return f;
  }
  try {
    resolve::ResolvedModel model{origin, "", "git", text, origin, std::nullopt};
    pipeline::TraceOptions options;
    options.read_checkpoint = false;
    options.lint = false;
    const report::Report r = pipeline::trace(model, options);
    f.graph = true;
    f.model_type = r.model.model_type;
    f.class_name = r.model.class_name;
    f.parameters = r.derived_scalars();
    f.tensors = graph_tensors(r.graph);
    if (r.graph.forward.ok) {
      plan::Setup full;
      full.mode = plan::Mode::Full;
      f.memory_batch1 = plan::MemoryModel(r.graph, full, plan::default_runtime()).at(1).peak_allocated;
    }
  } catch (const Error& e) {
    f.error = e.what();
  }
  return f;
}

WeightFile weight_file(RevisionSource& source, const std::string& commit, const SourceFile& file) {
  WeightFile w;
  w.blob = file.blob;
  w.oid = file.blob;
  w.size = file.size;
  const std::string where = fmt::format("{}@{}", file.path, short_commit(commit));
  if (file.lfs) {
    w.lfs = true;
    w.oid = file.lfs->oid;
    w.size = file.lfs->size;
    return w;
  }
  try {
    if (static_cast<std::size_t>(file.size) <= kMaxLfsPointerBytes) {
      const std::string text = source.read(commit, file, kMaxLfsPointerBytes);
      if (looks_like_lfs_pointer(text)) {
        w.lfs = true;
        const LfsPointer p = parse_lfs_pointer(text, where);
        w.oid = p.oid;
        w.size = p.size;
        return w;
      }
    }
    // The file itself is in git: a safetensors header can be read from it.
    if (ends_with(file.path, ".safetensors") && static_cast<std::uint64_t>(file.size) <= kMaxSafetensorsInGitBytes) {
      const std::string bytes = source.read(commit, file, kMaxSafetensorsInGitBytes);
      const auto ckpt = checkpoint::parse_safetensors_header(bytes, bytes.size(), where);
      for (const auto& t : ckpt.tensors) w.tensors[t.name] = {t.shape, std::string(dtype_name(t.dtype))};
      w.headers = true;
    }
  } catch (const Error& e) {
    w.error = e.what();
  }
  return w;
}

std::string text_or_problem(RevisionSource& source, const SourceCommit& commit, const SourceFile& file,
                            std::uint64_t max_bytes, std::vector<std::string>& errors) {
  try {
    std::string text = source.read(commit.commit, file, max_bytes);
    if (looks_like_lfs_pointer(text)) {
      errors.push_back(fmt::format("{}: stored in Git LFS and not fetched in this clone (git lfs pull --include={})",
                                   file.path, file.path));
      return {};
    }
    return text;
  } catch (const Error& e) {
    errors.push_back(e.what());
    return {};
  }
}

}  // namespace

bool is_weight_file(const std::string& path) {
  for (const char* ext : kWeightExtensions)
    if (ends_with(path, ext)) return true;
  return false;
}

RevisionRecord read_revision(RevisionSource& source, const SourceCommit& commit, const RevisionRecord* parent) {
  RevisionRecord r;
  r.commit = commit.commit;
  r.parent = commit.parent;
  r.time = commit.time;
  r.author = commit.author;
  r.title = commit.title;
  r.problems = commit.problems;

  std::vector<SourceFile> files;
  try {
    files = source.files(commit.commit);
  } catch (const Error& e) {
    r.problems.push_back({"", e.what()});
    return r;
  }

  std::string tokenizer_key, template_key;
  const SourceFile* config = nullptr;
  const SourceFile* index = nullptr;
  std::vector<const SourceFile*> tokenizer_files, template_files, weight_files;
  for (const auto& f : files) {
    if (f.path == kConfigName) config = &f;
    if (f.path == kIndexName) index = &f;
    if (is_tokenizer_file(f.path)) {
      tokenizer_files.push_back(&f);
      tokenizer_key += f.path + ":" + f.blob + ";";
    }
    if (is_chat_template_file(f.path)) {
      template_files.push_back(&f);
      template_key += f.path + ":" + f.blob + ";";
    }
    if (is_weight_file(f.path)) weight_files.push_back(&f);
  }

  // config.json and the graph
  if (!config) {
    r.config.error = "no config.json at this revision";
  } else if (parent && parent->config.blob == config->blob) {
    r.config = parent->config;
  } else {
    std::vector<std::string> errors;
    const std::string origin = fmt::format("config.json@{}", short_commit(commit.commit));
    const std::string text = text_or_problem(source, commit, *config, limits::kMaxConfigBytes, errors);
    if (!errors.empty()) {
      r.config.blob = config->blob;
      r.config.error = errors.front();
    } else {
      r.config = config_facts(text, config->blob, origin);
    }
  }
  if (config && !r.config.error.empty()) r.problems.push_back({kConfigName, r.config.error});

  // tokenizer
  if (parent && parent->tokenizer.key == tokenizer_key) {
    r.tokenizer = parent->tokenizer;
  } else {
    std::map<std::string, std::string> texts;
    std::vector<std::string> read_errors;
    for (const auto* f : tokenizer_files) {
      // Binary SentencePiece models are identified by their blob id alone.
      if (ends_with(f->path, ".model")) continue;
      std::string text = text_or_problem(source, commit, *f, kMaxTokenizerFileBytes, read_errors);
      if (!text.empty()) texts.emplace(f->path, std::move(text));
    }
    r.tokenizer = tokenizer_facts(texts);
    r.tokenizer.key = tokenizer_key;
    r.tokenizer.files.clear();
    for (const auto* f : tokenizer_files) r.tokenizer.files.push_back(f->path);
    r.tokenizer.errors.insert(r.tokenizer.errors.begin(), read_errors.begin(), read_errors.end());
  }
  for (const auto& e : r.tokenizer.errors) r.problems.push_back({"tokenizer", e});

  // chat template
  if (parent && parent->chat_template.key == template_key) {
    r.chat_template = parent->chat_template;
  } else {
    std::map<std::string, std::string> texts;
    std::vector<std::string> errors;
    for (const auto* f : template_files) {
      const std::uint64_t limit = f->path == "tokenizer_config.json" ? kMaxTokenizerFileBytes : kMaxChatTemplateBytes;
      std::string text = text_or_problem(source, commit, *f, limit, errors);
      if (!text.empty()) texts.emplace(f->path, std::move(text));
    }
    std::vector<std::string> parse_errors;  // tokenizer_config.json's parse error is already a tokenizer problem
    r.chat_template = chat_template_facts(texts, parse_errors);
    r.chat_template.key = template_key;
    for (const auto& e : errors)
      if (!e.starts_with("tokenizer_config.json")) r.problems.push_back({"chat_template", e});
  }

  // weights
  for (const auto* f : weight_files) {
    const WeightFile* before = nullptr;
    if (parent)
      if (auto it = parent->weights.files.find(f->path); it != parent->weights.files.end() && it->second.blob == f->blob)
        before = &it->second;
    WeightFile w = before ? *before : weight_file(source, commit.commit, *f);
    if (!w.error.empty()) r.problems.push_back({f->path, w.error});
    r.weights.files[f->path] = std::move(w);
  }
  if (index) {
    r.weights.index_blob = index->blob;
    if (parent && parent->weights.index_blob == index->blob) {
      r.weights.index = parent->weights.index;
      r.weights.index_error = parent->weights.index_error;
    } else {
      std::vector<std::string> errors;
      const std::string text = text_or_problem(source, commit, *index, limits::kMaxIndexBytes, errors);
      if (!errors.empty()) {
        r.weights.index_error = errors.front();
      } else {
        try {
          r.weights.index = checkpoint::parse_safetensors_index(text, fmt::format("{}@{}", kIndexName, short_commit(commit.commit)));
        } catch (const Error& e) {
          r.weights.index_error = e.what();
        }
      }
    }
    if (!r.weights.index_error.empty()) r.problems.push_back({kIndexName, r.weights.index_error});
  }
  return r;
}

}  // namespace neurarch::track
