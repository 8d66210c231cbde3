#pragma once
// One revision's files -> its record. Facts of a file whose blob id equals the parent's are
// copied from the parent's record, so a history of small edits reads each changed file once.
#include "track/record.hpp"
#include "track/source.hpp"

namespace neurarch::track {

// Bounds on what is read from untrusted repositories, per file.
inline constexpr std::uint64_t kMaxTokenizerFileBytes = 64ull << 20;  // the largest tokenizer.json files are ~35 MB
inline constexpr std::uint64_t kMaxChatTemplateBytes = 4ull << 20;
inline constexpr std::uint64_t kMaxSafetensorsInGitBytes = 64ull << 20;  // a real file in git, header read from memory

/// True for checkpoint files (by extension): their LFS pointers, or headers, are tracked.
bool is_weight_file(const std::string& path);

/// Reads the record of `commit`. Nothing here throws for bad repository content: unreadable files
/// become Problems on the record. `parent` (may be null) lends the facts of unchanged files.
RevisionRecord read_revision(RevisionSource& source, const SourceCommit& commit, const RevisionRecord* parent);

}  // namespace neurarch::track
