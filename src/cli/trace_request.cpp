#include "cli/trace_request.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "core/error.hpp"
#include "hub/hub.hpp"
#include "pipeline/trace.hpp"

namespace neurarch::cli {
namespace {
namespace fs = std::filesystem;

std::string read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw Error(ErrorKind::NotFound, path, "cannot open");
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

bool offline_requested(const TraceRequest& request) {
  return request.offline || std::getenv("HF_HUB_OFFLINE") != nullptr;
}
}  // namespace

plan::PlanOptions plan_options(const PlanRequest& p) {
  const plan::Runtime runtime =
      p.runtime_file.empty() ? plan::default_runtime() : plan::parse_runtime(read_file(p.runtime_file), p.runtime_file);
  plan::PlanOptions o = plan::plan_options(p.setup, runtime);
  o.cards = p.cards_file.empty() ? plan::default_cards() : plan::parse_cards(read_file(p.cards_file), p.cards_file);
  if (!p.card.empty()) o.cards = {plan::find_card(o.cards, p.card)};
  return o;
}

resolve::ResolvedModel resolve_model(const std::string& model, const TraceRequest& request, std::istream& in) {
  resolve::ResolveOptions ro;
  ro.stdin_stream = &in;
  ro.revision = request.revision;
  ro.offline = offline_requested(request);
  // The Hub is asked only when the path, the local cache and the bundled catalogue have nothing.
  hub::HubOptions ho;
  ho.offline = ro.offline;
  auto client = hub::make_hub_client(ho);
  ro.hub = client.get();
  return resolve::resolve(model, ro);
}

report::Report trace(const std::string& model, const TraceRequest& request, std::istream& in) {
  return trace(resolve_model(model, request, in), request);
}

report::Report trace(resolve::ResolvedModel model, const TraceRequest& request) {
  if (model.model_dir) model.model_dir = hub::checkpoint_dir(*model.model_dir);
  pipeline::TraceOptions to;
  to.build.class_name = request.class_name;
  to.build.seq = request.seq;
  to.build.image_size = request.image_size;
  to.build.target_seq = request.target_seq;
  to.read_checkpoint = !request.no_checkpoint;
  if (!request.checkpoint.empty()) to.checkpoint = fs::path(request.checkpoint);
  if (request.plan) to.plan = plan_options(*request.plan);
  auto r = pipeline::trace(model, to);
  if (model.model_dir)
    if (auto info = hub::cached_model_info(*model.model_dir))
      r.hub = report::HubFacts{info->sha, info->last_modified, info->gated, info->downloads, info->likes,
                               info->safetensors_total};
  return r;
}

}  // namespace neurarch::cli
