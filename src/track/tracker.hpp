#pragma once
// `track`: reads the revisions a store does not have yet, classifies each against its parent
// and stores records, changes and advisories. A second run over an unchanged repository reads
// nothing but the tip.
#include <cstddef>
#include <string>
#include <vector>

#include "track/progress_bar.hpp"
#include "track/source.hpp"
#include "track/store.hpp"

namespace neurarch::track {

struct TrackOptions {
  std::string repo;             ///< "org/name" under which the history is stored
  std::string source_kind = "git";
  ProgressBar* progress = nullptr;
  std::size_t commit_every = 64;  ///< revisions per transaction: an interrupted run keeps what it did
};

struct RevisionProblem {
  std::string commit;
  Problem problem;
};

struct TrackResult {
  std::string repo;
  std::string tip;
  std::size_t new_revisions = 0;
  std::size_t changes = 0;
  std::size_t breaking = 0;
  std::vector<RevisionProblem> problems;
};

TrackResult track(RevisionSource& source, Store& store, const TrackOptions& options);

}  // namespace neurarch::track
