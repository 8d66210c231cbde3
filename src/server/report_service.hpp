#pragma once
// Model ids and pasted configs -> reports with their plan, cached by (config hash, options) so a
// hot page costs a hash and a map lookup. Offline by construction: ids resolve only against the
// bundled catalogue and the local Hugging Face cache; the server never fetches what a client names.
#include <cstddef>
#include <filesystem>
#include <list>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "report/report.hpp"
#include "server/options.hpp"
#include "server/request_options.hpp"

namespace neurarch::server {

/// One traced report and its renderings, each made once on first use.
class CachedReport {
 public:
  CachedReport(report::Report r, std::string command);
  const report::Report& report() const { return report_; }
  const std::string& json() const;
  const std::string& markdown() const;
  const std::string& html_fragment() const;  ///< render::html without a change history
  const std::string& diagram() const;        ///< render::diagram: the architecture as SVG
  /// The neurarch-trace line that reproduces this report.
  const std::string& command() const { return command_; }

 private:
  report::Report report_;
  std::string command_;
  mutable std::once_flag json_once_, markdown_once_, html_once_, diagram_once_;
  mutable std::string json_, markdown_, html_, diagram_;
};

/// A client error the routes answer with `status` and a JSON or HTML body.
struct ServiceError {
  int status;
  std::string code;     ///< stable, machine-readable: "not_found", "invalid_config", ...
  std::string message;  ///< one line, no server paths
};

class ReportService {
 public:
  ReportService(std::optional<std::filesystem::path> hub_cache, std::size_t cache_entries, RequestBudget budget = {});

  /// Throws ServiceError (400 bad id, 404 unknown, 422 unsupported or broken config, or past the budget).
  std::shared_ptr<const CachedReport> for_model(const std::string& id, const RequestOptions& options);
  /// A pasted config.json (its text); `label` names it in the report ("pasted config").
  std::shared_ptr<const CachedReport> for_config(const std::string& config_text, const RequestOptions& options,
                                                 const std::string& label = "pasted config");
  /// Every id the server can answer for: the bundled catalogue and the local cache.
  std::vector<std::string> known_ids() const;

  std::size_t hits() const;
  std::size_t misses() const;

 private:
  struct Source {
    std::string id, revision, source, config_text;
    std::optional<std::filesystem::path> model_dir;
  };
  std::shared_ptr<const CachedReport> get_or_trace(const Source& src, const RequestOptions& options);
  report::Report trace(const Source& src, const RequestOptions& options) const;

  std::filesystem::path hub_cache_;
  std::size_t capacity_;
  RequestBudget budget_;
  std::int64_t cached_units_ = 0;  ///< nodes + tensors of the reports in lru_
  mutable std::mutex mutex_;
  // Least recently used at the back.
  std::list<std::pair<std::string, std::shared_ptr<const CachedReport>>> lru_;
  std::unordered_map<std::string, decltype(lru_)::iterator> index_;
  std::size_t hits_ = 0, misses_ = 0;
};

/// "org/name" or "name" by the Hub's grammar; throws ServiceError 400 otherwise.
void validate_model_id(const std::string& id);
/// Maps a neurarch::Error from tracing to a status and a message fit for a public answer.
ServiceError service_error(const std::exception& e);

}  // namespace neurarch::server
