#pragma once
// What one `neurarch-trace MODEL [options]` asks for, less the output choices. The command line and
// the Python binding both fill it, so a model traces and plans the same way from either.
#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "plan/options.hpp"
#include "plan/plan.hpp"
#include "report/report.hpp"
#include "resolve/resolver.hpp"

namespace neurarch::cli {

/// The planner's options: every training-setup option by its name in plan/options.hpp's table, plus
/// the files and card the command line and the Python binding take.
struct PlanRequest {
  plan::SetupChoices setup;
  std::string cards_file;    ///< "" : the bundled data/cards.json
  std::string runtime_file;  ///< "" : the bundled data/runtime.json
  std::string card;          ///< "" : every card
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

/// Reads --cards/--runtime files, then plan::plan_options over the choices.
plan::PlanOptions plan_options(const PlanRequest& request);

/// MODEL as the command line takes it (id[@revision], path, or "-" read from `in`), resolved in the
/// documented order.
resolve::ResolvedModel resolve_model(const std::string& model, const TraceRequest& request, std::istream& in);

/// resolve_model, then traced, with the Hub's cached model facts attached.
report::Report trace(const std::string& model, const TraceRequest& request, std::istream& in);

/// A model whose config text the caller already holds (a config handed over in memory).
report::Report trace(resolve::ResolvedModel model, const TraceRequest& request);

}  // namespace neurarch::cli
