#include "server/change_service.hpp"

#include <ctime>

#include <fmt/format.h>

namespace neurarch::server {
namespace {

std::string iso_date(std::int64_t seconds) {
  std::time_t t = static_cast<std::time_t>(seconds);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d", &tm);
  return buf;
}

}  // namespace

ChangeService::ChangeService(const std::string& path) : store_(path) {}

std::optional<nlohmann::json> ChangeService::history(const std::string& repo) {
  std::lock_guard lock(mutex_);
  return track::history_json(store_, repo);
}

std::optional<nlohmann::json> ChangeService::advisory(const std::string& id) {
  std::lock_guard lock(mutex_);
  return track::advisory_json(store_, id);
}

nlohmann::json ChangeService::feed(const track::FeedOptions& options) {
  std::lock_guard lock(mutex_);
  return track::feed_json(store_, options);
}

std::string ChangeService::feed_atom(const track::FeedOptions& options) {
  std::lock_guard lock(mutex_);
  return track::feed_atom(store_, options);
}

std::optional<nlohmann::json> ChangeService::badge(const std::string& repo, std::int64_t now) {
  std::lock_guard lock(mutex_);
  return track::badge_json(store_, repo, now);
}

std::optional<std::vector<render::ChangeRow>> ChangeService::rows(const std::string& repo) {
  std::lock_guard lock(mutex_);
  const auto model = store_.model(repo);
  if (!model) return std::nullopt;
  std::vector<render::ChangeRow> out;
  const auto history = store_.history(model->id);
  for (auto it = history.rbegin(); it != history.rend(); ++it)
    for (const auto& c : it->changes) {
      // The renderer escapes; the advisory id leads so a breaking change stands out in the table.
      std::string summary = c.advisory_id.empty() ? c.change.summary
                                                  : fmt::format("{} (breaking: {})", c.change.summary, c.advisory_id);
      out.push_back({iso_date(c.time), c.commit.substr(0, 12), std::move(summary)});
    }
  return out;
}

}  // namespace neurarch::server
