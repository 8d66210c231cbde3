#include "cli/trace_request.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "core/error.hpp"
#include "hub/hub.hpp"
#include "report/trace.hpp"

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

void require_one_of(const std::string& key, const std::string& value, const std::vector<std::string>& names) {
  if (std::find(names.begin(), names.end(), value) == names.end())
    throw Error(ErrorKind::InvalidInput, key, fmt::format("'{}' is not one of {}", value, fmt::join(names, ", ")));
}

bool offline_requested(const TraceRequest& request) {
  return request.offline || std::getenv("HF_HUB_OFFLINE") != nullptr;
}
}  // namespace

plan::PlanOptions plan_options(const PlanRequest& p) {
  require_one_of("attention", p.attention, kAttentionNames);
  require_one_of("optimizer", p.optimizer, kOptimizerNames);
  plan::PlanOptions o;
  plan::Setup s;
  s.batch = p.batch;
  s.attention = p.attention == "eager" ? plan::AttentionImpl::Eager : plan::AttentionImpl::SDPA;
  s.optimizer = p.optimizer == "adamw-fused"    ? plan::Optimizer::AdamWFused
                : p.optimizer == "sgd-momentum" ? plan::Optimizer::SGDMomentum
                : p.optimizer == "adam-8bit"    ? plan::Optimizer::Adam8bit
                                                : plan::Optimizer::AdamW;
  s.grad_checkpointing = p.grad_checkpointing;
  s.autocast_bf16 = !p.no_autocast;
  s.lora_rank = p.lora_rank;
  s.lora_targets = p.lora_targets;
  if (!p.runtime_file.empty()) {
    o.runtime = plan::parse_runtime(read_file(p.runtime_file), p.runtime_file);
    o.runtime_set = true;
  }
  s.lora_dropout = p.lora_dropout ? *p.lora_dropout
                                  : (o.runtime_set ? o.runtime : plan::default_runtime()).lora_default_dropout;
  o.full = s;
  o.full.mode = plan::Mode::Full;
  o.lora = s;
  o.lora.mode = p.qlora ? plan::Mode::QLoRA : plan::Mode::LoRA;
  o.cards = p.cards_file.empty() ? plan::default_cards() : plan::parse_cards(read_file(p.cards_file), p.cards_file);
  if (!p.card.empty()) o.cards = {plan::find_card(o.cards, p.card)};
  o.run = {p.epochs, p.global_batch, p.samples};
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
  report::TraceOptions to;
  to.build.class_name = request.class_name;
  to.build.seq = request.seq;
  to.build.image_size = request.image_size;
  to.build.target_seq = request.target_seq;
  to.read_checkpoint = !request.no_checkpoint;
  if (!request.checkpoint.empty()) to.checkpoint = fs::path(request.checkpoint);
  if (request.plan) to.plan = plan_options(*request.plan);
  auto r = report::trace(model, to);
  if (model.model_dir)
    if (auto info = hub::cached_model_info(*model.model_dir))
      r.hub = report::HubFacts{info->sha, info->last_modified, info->gated, info->downloads, info->likes,
                               info->safetensors_total};
  return r;
}

}  // namespace neurarch::cli
