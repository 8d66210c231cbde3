#pragma once
// Turns a failed Hub response into one line the user can act on. The Hub says what went wrong in
// X-Error-Code (RepoNotFound, RevisionNotFound, EntryNotFound, GatedRepo); plain status codes are
// the fallback for mirrors and proxies that do not send it.
#include <string>

#include "hub/http.hpp"

namespace neurarch::hub {

struct FetchContext {
  std::string repo;       ///< org/name
  std::string revision;   ///< as requested ("main" when none)
  std::string file;       ///< what was being fetched, for the message
  const Settings* settings = nullptr;
  std::string cache_note;  ///< what --offline would find, for network failures
};

enum class Failure {
  None,            // the response is usable
  RepoNotFound,    // HubFetcher's nullopt: the resolver words that message
  EntryNotFound,   // the repo and revision exist, the file does not
};

/// Classifies `r`; throws neurarch::Error for everything a caller cannot treat as an answer.
Failure check(const Response& r, const FetchContext& ctx);

}  // namespace neurarch::hub
