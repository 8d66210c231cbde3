// X-MOD (models/xmod/modeling_xmod.py, transformers 4.47.1): RoBERTa with a bottleneck adapter
// per language after every FFN (output.adapter_modules.<lang>.dense1/dense2, hidden /
// adapter_reduction_factor wide); each sample runs the adapter of its lang_ids. The adapter
// input is normalised by its own adapter_layer_norm or, by default, by output.LayerNorm, which
// post-norm layers then apply a second time. pre_norm moves attention.output.LayerNorm and
// output.LayerNorm in front of their sublayers and adds encoder.LayerNorm.
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "families/bert_common.hpp"

namespace neurarch::families {
namespace xmod_impl {
namespace {

using namespace blocks;

std::vector<std::string> languages(const Config& c) {
  std::vector<std::string> out;
  if (const auto* list = c.raw({"languages"}); list && list->is_array())
    for (const auto& l : *list)
      if (l.is_string()) out.push_back(l.get<std::string>());
  if (out.empty() && !c.raw({"languages"})) out.push_back("en_XX");  // XmodConfig's default
  return out;
}

Value language_adapter(const BuildInput& in, GraphBuilder& b, const Value& x, const Scope& layer, std::int64_t i) {
  const Config& c = in.config;
  const std::int64_t hidden = x.shape.back();
  const std::int64_t bottleneck = hidden / c.dim({"adapter_reduction_factor"}, 2);
  const bool ln_before = c.flag({"ln_before_adapter"}, true);
  Scope output = layer / "output";
  Value h = x;
  if (c.flag({"adapter_layer_norm"}, false)) {
    h = norm(b, h, fmt::format("Adapter_LayerNorm_{}", i), {output / "adapter_layer_norm"});
  } else if (c.flag({"adapter_reuse_layer_norm"}, true)) {
    // output.LayerNorm's weights, declared where that norm is placed.
    h = b.node(graph::NodeType::LayerNorm, fmt::format("Adapter_LayerNorm_{}", i), h.shape, {h}, output / "LayerNorm");
  }
  const std::vector<std::string> langs = languages(c);
  if (langs.empty()) {
    b.fail(h, "languages is empty: the model has no adapter to run");
    return h;
  }
  // Every language keeps its adapter; a sample runs only the one its lang_ids names.
  Scope adapters = output / "adapter_modules";
  FeedForwardSpec spec{.hidden = hidden,
                       .intermediate = bottleneck,
                       .activation = c.text({"hidden_act"}, "gelu"),
                       .module = adapters,
                       .up = adapters / langs[0] / "dense1",
                       .down = adapters / langs[0] / "dense2"};
  auto a = feed_forward(b, h, fmt::format("Adapter_{}", i), spec);
  for (std::size_t l = 1; l < langs.size(); ++l) {
    linear_tensors(b, a, adapters / langs[l] / "dense1", hidden, bottleneck, true, graph::Operand::Idle);
    linear_tensors(b, a, adapters / langs[l] / "dense2", bottleneck, hidden, true, graph::Operand::Idle);
  }
  return add(b, a, ln_before ? h : x, fmt::format("Adapter_Add_{}", i));
}

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  // XmodConfig: BERT's sizes with RoBERTa's pad id.
  static const bert::Layout post{.prefix = "roberta",
                                 .defaults = {.pad = 1},
                                 .heads = bert::HeadStyle::Roberta,
                                 .pooler = bert::PoolerUse::BaseOnly,
                                 .roberta_positions = true,
                                 .ffn_extras = language_adapter};
  static const bert::Layout pre = [] {
    bert::Layout l = post;
    l.pre_norm = bert::PreNormNames{.attention = "output.LayerNorm", .ffn = "output.LayerNorm",
                                    .final = "encoder.LayerNorm"};
    return l;
  }();
  if (!in.config.has("default_language"))
    b.note("default_language is unset: the forward needs lang_ids to pick each sample's adapter");
  return bert::build(in, b, in.config.flag({"pre_norm"}, false) ? pre : post);
}

}  // namespace
}  // namespace xmod_impl

const Family& xmod_family() {
  static const Family family{"xmod", "models/xmod/modeling_xmod.py", classes("Xmod", heads::kRoberta), xmod_impl::build};
  return family;
}

}  // namespace neurarch::families
