#include "pipeline/trace.hpp"

#include <algorithm>
#include <filesystem>

#include "checkpoint/safetensors.hpp"
#include "core/error.hpp"
#include "lint/lint.hpp"
#include "model/declared_sizes.hpp"

namespace neurarch::pipeline {
namespace fs = std::filesystem;

namespace {
std::optional<checkpoint::Checkpoint> load_checkpoint(const resolve::ResolvedModel& model,
                                                      const TraceOptions& options) {
  if (!options.read_checkpoint) return std::nullopt;
  if (options.checkpoint) {
    if (fs::is_directory(*options.checkpoint)) {
      auto found = checkpoint::read_checkpoint_dir(*options.checkpoint);
      if (!found)
        throw Error(ErrorKind::NotFound, options.checkpoint->string(), "no *.safetensors file in this folder");
      return found;
    }
    return checkpoint::read_safetensors_file(*options.checkpoint);
  }
  if (model.model_dir && fs::is_directory(*model.model_dir)) return checkpoint::read_checkpoint_dir(*model.model_dir);
  return std::nullopt;
}
}  // namespace

report::Report trace(const resolve::ResolvedModel& model, const TraceOptions& options) {
  Config config = Config::parse(model.config_text, model.config_origin);
  // The plan's batch multiplies the activations: refuse an absurd step before building anything.
  if (options.plan)
    model::check_declared_sizes(config, options.build, std::max(options.plan->full.batch, options.plan->lora.batch));
  auto built = model::build_model(config, options.build);

  report::Report r;
  r.model = {model.id, model.revision, built.model_type, built.class_name, model.source, model.config_origin,
             std::string(built.family->reference)};
  r.graph = std::move(built.graph);
  r.config_reads = config.reads();
  r.config = config.json();
  if (auto ckpt = load_checkpoint(model, options)) r.checkpoint = checkpoint::compare(r.graph, *ckpt);
  if (options.plan) r.plan = plan::make_plan(r.graph, *options.plan);
  if (options.lint) r.findings = lint::run(r, {options.build.seq, false});
  return r;
}

}  // namespace neurarch::pipeline
