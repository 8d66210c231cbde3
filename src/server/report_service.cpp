#include "server/report_service.hpp"

#include <fmt/format.h>

#include "core/config.hpp"
#include "core/error.hpp"
#include "core/sha256.hpp"
#include "graph/budget.hpp"
#include "hub/hub.hpp"
#include "model/declared_sizes.hpp"
#include "plan/plan.hpp"
#include "render/render.hpp"
#include "pipeline/trace.hpp"
#include "resolve/resolver.hpp"

namespace neurarch::server {
namespace fs = std::filesystem;

CachedReport::CachedReport(report::Report r, std::string command) : report_(std::move(r)), command_(std::move(command)) {}

const std::string& CachedReport::json() const {
  std::call_once(json_once_, [this] { json_ = render::json(report_); });
  return json_;
}

const std::string& CachedReport::markdown() const {
  std::call_once(markdown_once_, [this] { markdown_ = render::markdown(report_); });
  return markdown_;
}

const std::string& CachedReport::html_fragment() const {
  std::call_once(html_once_, [this] { html_ = render::html(report_, {std::nullopt, command_}); });
  return html_;
}

const std::string& CachedReport::diagram() const {
  std::call_once(diagram_once_, [this] { diagram_ = render::diagram(report_); });
  return diagram_;
}

void validate_model_id(const std::string& id) {
  if (!resolve::is_hub_repo_id(id))
    throw ServiceError{400, "invalid_model_id",
                       "a model id is 'name' or 'org/name': letters, digits, '-', '_' and '.', at most 96 each, "
                       "no '--' or '..', not starting or ending with '-' or '.'"};
}

ServiceError service_error(const std::exception& ex) {
  const auto* e = dynamic_cast<const Error*>(&ex);
  if (!e) return {500, "internal", "internal error"};
  switch (e->kind()) {
    // A pasted config's keys are echoed: one line, whatever they hold.
    case ErrorKind::InvalidInput: return {422, "invalid_config", one_line(e->what())};
    case ErrorKind::Unsupported: return {422, "unsupported_model", one_line(e->what())};
    case ErrorKind::NotFound: return {404, "not_found", one_line(e->what())};
    // An I/O failure is about the server's own files: say nothing of them.
    case ErrorKind::Io: return {500, "io", "the server could not read this model's files"};
  }
  return {500, "internal", "internal error"};
}

ReportService::ReportService(std::optional<fs::path> hub_cache, std::size_t cache_entries, RequestBudget budget)
    : hub_cache_(hub_cache.value_or(resolve::default_hub_cache())),
      capacity_(std::max<std::size_t>(1, cache_entries)),
      budget_(budget) {}

namespace {
// What a cached report weighs: its renderings grow with its nodes and tensors.
std::int64_t units_of(const CachedReport& r) {
  return static_cast<std::int64_t>(r.report().graph.nodes.size() + r.report().graph.tensors.size());
}
}  // namespace

std::shared_ptr<const CachedReport> ReportService::for_model(const std::string& id, const RequestOptions& options) {
  validate_model_id(id);
  resolve::ResolveOptions ro;
  ro.hub_cache = hub_cache_;
  ro.offline = true;  // and no Hub client: a client-named id never becomes a request
  resolve::ResolvedModel m;
  try {
    m = resolve::resolve_repo_id(id, ro);
  } catch (const Error& e) {
    if (e.kind() != ErrorKind::NotFound) throw ServiceError{422, "invalid_config", "the server's copy of this model's config cannot be read"};
    // The resolver's message names local folders; a public answer names only known ids.
    std::string message = fmt::format("'{}' is not in this server's catalogue or model cache", id);
    if (auto near = resolve::nearest_known_ids(id, 3); !near.empty())
      message += fmt::format("; did you mean {}?", fmt::join(near, ", "));
    throw ServiceError{404, "not_found", message};
  }
  Source src{m.id, m.revision, m.source, std::move(m.config_text), std::nullopt};
  if (m.model_dir) src.model_dir = hub::checkpoint_dir(*m.model_dir);
  return get_or_trace(src, options);
}

std::shared_ptr<const CachedReport> ReportService::for_config(const std::string& config_text,
                                                              const RequestOptions& options, const std::string& label) {
  return get_or_trace({label, "", "pasted", config_text, std::nullopt}, options);
}

std::shared_ptr<const CachedReport> ReportService::get_or_trace(const Source& src, const RequestOptions& options) {
  // The identity is part of the key because the report names its model; the config hash is what
  // makes two ids for one file (aliases) or an edited cached file distinct.
  const std::string key =
      fmt::format("{}\n{}\n{}\n{}\n{}", sha256_hex(src.config_text), options.key, src.id, src.source, src.revision);
  {
    std::lock_guard lock(mutex_);
    if (auto it = index_.find(key); it != index_.end()) {
      lru_.splice(lru_.begin(), lru_, it->second);
      ++hits_;
      return it->second->second;
    }
    ++misses_;
  }
  // Traced outside the lock: two first requests for one key may both trace; both answers are equal.
  const std::string command = fmt::format("neurarch-trace {} --plan{}", src.source == "pasted" ? "config.json" : src.id,
                                          options.cli_flags);
  auto fresh = std::make_shared<const CachedReport>(trace(src, options), command);
  std::lock_guard lock(mutex_);
  if (auto it = index_.find(key); it != index_.end()) return it->second->second;
  lru_.emplace_front(key, fresh);
  index_[key] = lru_.begin();
  cached_units_ += units_of(*fresh);
  // Bounded by count and by size; the newest report always stays (its requester is about to read it).
  while (lru_.size() > 1 && (lru_.size() > capacity_ || cached_units_ > budget_.cache_units)) {
    cached_units_ -= units_of(*lru_.back().second);
    index_.erase(lru_.back().first);
    lru_.pop_back();
  }
  return fresh;
}

report::Report ReportService::trace(const Source& src, const RequestOptions& options) const {
  resolve::ResolvedModel m;
  m.id = src.id;
  m.revision = src.revision;
  m.source = src.source;
  m.config_text = src.config_text;
  m.config_origin = src.source == "pasted" ? "config" : "config.json of " + src.id;
  m.model_dir = src.model_dir;
  pipeline::TraceOptions to;
  to.build = options.build;
  // One request's budget: the declared sizes at the requested batch are checked before anything is
  // built, then the builder stops at the budget's nodes, tensors or deadline.
  const graph::BudgetScope budget({budget_.max_nodes, budget_.max_tensors, std::chrono::steady_clock::now() + budget_.time});
  try {
    model::check_declared_sizes(Config::parse(m.config_text, m.config_origin), options.build,
                                std::max(options.plan.full.batch, options.plan.lora.batch));
    auto r = pipeline::trace(m, to);
    graph::check_deadline("tracing the model");
    // A model that does not forward-pass still gets its page; there is just nothing to plan.
    if (r.graph.forward.ok) r.plan = plan::make_plan(r.graph, options.plan);
    graph::check_deadline("planning");
    if (src.model_dir)
      if (auto info = hub::cached_model_info(*src.model_dir))
        r.hub = report::HubFacts{info->sha, info->last_modified, info->gated, info->downloads, info->likes,
                                 info->safetensors_total};
    return r;
  } catch (const Error& e) {
    auto err = service_error(e);
    // Checkpoint headers live under the cache: keep its location out of the answer.
    const std::string root = hub_cache_.string();
    if (!root.empty())
      for (auto at = err.message.find(root); at != std::string::npos; at = err.message.find(root))
        err.message.replace(at, root.size(), "<model cache>");
    throw err;
  }
}

std::vector<std::string> ReportService::known_ids() const { return resolve::known_repo_ids(hub_cache_); }

std::size_t ReportService::hits() const {
  std::lock_guard lock(mutex_);
  return hits_;
}

std::size_t ReportService::misses() const {
  std::lock_guard lock(mutex_);
  return misses_;
}

}  // namespace neurarch::server
