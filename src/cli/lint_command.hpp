#pragma once
// `neurarch-trace lint MODEL...`: the verifier alone over many models, as a CI gate.
#include <iosfwd>
#include <string>
#include <vector>

#include "cli/command.hpp"
#include "lint/lint.hpp"

namespace neurarch::cli {

/// Resolves and traces each model, runs the verifier and prints its findings per model (`format`
/// "text" or "json": one array of {model, model_type, class, findings[]}). Returns 0 when no
/// finding is at or above `fail_on` ("error" | "warn" | "info"), 1 when one is, 2 for a bad
/// fail_on or format, and the trace's exit code (2 invalid config, 3 not found, 4 unsupported,
/// 5 I/O) when a model cannot be traced at all; the other models are still checked.
int run_lint_command(const std::vector<std::string>& models, const std::string& fail_on, const std::string& format,
                     std::ostream& out, std::ostream& err, const lint::Options& options = {});

/// Registers `lint MODEL... [--fail-on] [--format] [--seq] [--lora]` on `app`, which runs the above.
Command add_lint_command(CLI::App& app);

}  // namespace neurarch::cli
