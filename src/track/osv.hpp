#pragma once
// OSV advisories (https://ossf.github.io/osv-schema/) for breaking changes: a user pinned to the
// parent revision who moves to the introducing commit or later is affected.
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "track/record.hpp"

namespace neurarch::track {

inline constexpr const char* kOsvSchemaVersion = "1.6.0";

struct AdvisoryContext {
  std::string repo;    ///< "org/name"
  std::string url;     ///< the git repository the commit lives in
  std::string commit;  ///< the introducing commit
  std::string parent;
  std::int64_t time = 0;  ///< the commit's time: published and modified
  std::string title;      ///< the commit's title
};

/// "NEURARCH-" and 16 hex digits of a fingerprint of repo, commit and the change's identity, so
/// re-tracking the same history gives the same ids.
std::string advisory_id(const std::string& repo, const std::string& commit, const Change& change);

nlohmann::json osv_advisory(const AdvisoryContext& context, const Change& change);

/// RFC 3339 in UTC, as OSV wants it: "2024-05-01T12:00:00Z".
std::string rfc3339(std::int64_t seconds);

/// "https://huggingface.co/<repo>" when `url` is a Hub URL or a local path (no web page), else `url`.
std::string web_url(const std::string& repo, const std::string& url);

}  // namespace neurarch::track
