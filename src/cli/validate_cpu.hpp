#pragma once
// `neurarch-trace validate DIR` when DIR holds CPU-measured rows (*.jsonl from tools/measure_cpu).
#include <ostream>
#include <string>

namespace neurarch::cli {

/// Plans every row with the CPU runtime profile (data/runtime-cpu.json, or `profile_file`) and
/// prints the per-phase comparison, ending with the `cpu:` line. Exit 0 when the targets are met,
/// 1 when not, the error's code on bad input.
int run_validate_cpu(const std::string& dir, const std::string& config_root, const std::string& profile_file,
                     std::ostream& out, std::ostream& err);

}  // namespace neurarch::cli
