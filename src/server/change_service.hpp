#pragma once
// The change tracker's store as the server reads it. The tracker (`neurarch-trace track`) writes
// the store; the server only reads, so one connection behind a mutex is enough for page traffic.
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "render/render.hpp"
#include "track/store.hpp"
#include "track/views.hpp"

namespace neurarch::server {

class ChangeService {
 public:
  /// Opens the tracker's store at `path` (migrating it like the tracker would).
  explicit ChangeService(const std::string& path);

  std::optional<nlohmann::json> history(const std::string& repo);
  std::optional<nlohmann::json> advisory(const std::string& id);
  nlohmann::json feed(const track::FeedOptions& options);
  std::string feed_atom(const track::FeedOptions& options);
  std::optional<nlohmann::json> badge(const std::string& repo, std::int64_t now);
  /// Newest first, for the model page; nullopt when the model is not tracked.
  std::optional<std::vector<render::ChangeRow>> rows(const std::string& repo);

 private:
  std::mutex mutex_;
  track::Store store_;
};

}  // namespace neurarch::server
