#pragma once
// What one `neurarch-trace MODEL [options]` asks for, less the output choices. The command line and
// the Python binding both fill it, so a model traces and plans the same way from either.
#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "plan/plan.hpp"
#include "report/report.hpp"
#include "resolve/resolver.hpp"

namespace neurarch::cli {

/// The planner's options, named after their command-line flags (--lora-rank -> lora_rank).
struct PlanRequest {
  std::int64_t batch = 1;
  std::string attention = "sdpa";  ///< sdpa | eager
  std::string optimizer = "adamw";  ///< adamw | adamw-fused | sgd-momentum | adam-8bit
  bool grad_checkpointing = false;
  std::int64_t lora_rank = 16;
  std::optional<double> lora_dropout;  ///< nullopt: the runtime's default
  std::vector<std::string> lora_targets;
  bool qlora = false;
  bool no_autocast = false;
  std::string cards_file;    ///< "" : the bundled data/cards.json
  std::string runtime_file;  ///< "" : the bundled data/runtime.json
  std::string card;          ///< "" : every card
  std::int64_t epochs = 10, global_batch = 32, samples = 50000;
};

struct TraceRequest {
  std::string class_name;
  std::string revision;
  std::optional<std::int64_t> seq;
  std::optional<std::int64_t> image_size;
  std::optional<std::int64_t> target_seq;  ///< decoder length of encoder-decoders (--target-seq)
  std::string checkpoint;  ///< "" : the model's own folder, when it has one
  bool no_checkpoint = false;
  bool offline = false;  ///< HF_HUB_OFFLINE set in the environment also means offline
  std::optional<PlanRequest> plan;
};

inline const std::vector<std::string> kAttentionNames{"sdpa", "eager"};
inline const std::vector<std::string> kOptimizerNames{"adamw", "adamw-fused", "sgd-momentum", "adam-8bit"};

/// Reads --cards/--runtime files; throws InvalidInput for an attention or optimizer name it does not know.
plan::PlanOptions plan_options(const PlanRequest& request);

/// MODEL as the command line takes it (id[@revision], path, or "-" read from `in`), resolved in the
/// documented order.
resolve::ResolvedModel resolve_model(const std::string& model, const TraceRequest& request, std::istream& in);

/// resolve_model, then traced, with the Hub's cached model facts attached.
report::Report trace(const std::string& model, const TraceRequest& request, std::istream& in);

/// A model whose config text the caller already holds (a config handed over in memory).
report::Report trace(resolve::ResolvedModel model, const TraceRequest& request);

}  // namespace neurarch::cli
