// Aria (models/aria/modeling_aria.py + configuration_aria.py, transformers 4.57.6): an Idefics3 vision
// transformer (vision_config is always read as idefics3_vision; no `vision_model.` wrapper in the checkpoint),
// a projector in which the first patch_to_query_dict[patches] of `query` learned queries cross-attend to the
// hidden state of vision_feature_layer (q/k/v_proj without bias after layer_norm / layer_norm_kv, then an
// nn.MultiheadAttention with its own in_proj and out_proj, then `linear`), are layer-normed and go through a
// bias-free MLP (linear_in -> gelu_new -> linear_out) into the text width, and the Aria text model
// (aria_text.cpp) as the base model under `language_model`. 4.5x names: `model.vision_tower.*`,
// `model.multi_modal_projector.*`, `model.language_model.*`, `lm_head` (tied as text_config says). A patch count
// the dictionary lacks raises in the reference; the graph says so.
#include <algorithm>
#include <charconv>
#include <map>

#include <fmt/format.h>

#include "core/error.hpp"
#include "families/idefics3_vision.hpp"
#include "families/llava_common.hpp"
#include "families/multimodal_common.hpp"

namespace neurarch::families {
namespace aria_impl {
namespace {

using namespace blocks;
using graph::NodeType;

// projector_patch_to_query_dict: patches -> queries ({1225: 128, 4900: 256} when absent).
std::map<std::int64_t, std::int64_t> patch_to_query(const Config& c) {
  const std::string where = c.origin() + ": key 'projector_patch_to_query_dict'";
  const auto* v = c.raw({"projector_patch_to_query_dict"});
  if (!v) return {{1225, 128}, {4900, 256}};
  if (!v->is_object() || v->empty()) throw Error(ErrorKind::InvalidInput, where, "expected an object of patches: queries");
  std::map<std::int64_t, std::int64_t> out;
  for (const auto& [key, value] : v->items()) {
    std::int64_t patches = 0;
    const auto* end = key.data() + key.size();
    const auto parsed = std::from_chars(key.data(), end, patches);
    if (parsed.ec != std::errc() || parsed.ptr != end || patches <= 0 || !value.is_number_integer() ||
        value.get<std::int64_t>() <= 0 || value.get<std::int64_t>() > 1'000'000)
      throw Error(ErrorKind::InvalidInput, where, "expected positive integer patch counts and query counts");
    out[patches] = value.get<std::int64_t>();
  }
  return out;
}

// AriaProjector over the picked hidden state [patches, hidden]; returns [queries, text_hidden].
Value projector(GraphBuilder& b, const Config& c, const Value& kv, std::int64_t hidden, std::int64_t heads,
                std::int64_t text_hidden) {
  const Scope p("multi_modal_projector");
  const Scope cross = p / "cross_attn";
  const auto table = patch_to_query(c);
  std::int64_t max_queries = 0;
  for (const auto& [patches, queries] : table) max_queries = std::max(max_queries, queries);
  const std::int64_t patches = kv.shape.front();
  const auto found = table.find(patches);
  const std::int64_t queries = found == table.end() ? max_queries : found->second;

  // The first `queries` rows of the learned table, repeated per sample.
  auto q = b.node(NodeType::LearnedPosEmbed, "Projector_Query", {queries, hidden}, {kv}, p);
  b.parameter(q, p("query"), {max_queries, hidden}, graph::TensorRole::Other);
  if (found == table.end())
    b.fail(q, fmt::format("{} patches are not in projector_patch_to_query_dict: the reference raises", patches));
  q = norm(b, q, "Projector_Query_LayerNorm", {cross / "layer_norm"});
  const auto kv_normed = norm(b, kv, "Projector_KV_LayerNorm", {cross / "layer_norm_kv"});
  auto attn = b.node(NodeType::MultiHeadAttention, "Projector_Cross_Attention", {queries, hidden}, {q, kv_normed},
                     cross);
  b.at(attn).attention =
      graph::AttentionAttrs{heads, heads, hidden / heads, queries, patches, false, 0, 0.0, false, false};
  b.at(attn).attention->kv_input = kv_normed.node;
  linear_tensors(b, attn, cross / "q_proj", hidden, hidden, false);
  for (const char* proj : {"k_proj", "v_proj"})
    linear_tensors(b, attn, cross / proj, hidden, hidden, false, graph::Operand::Memory);
  // nn.MultiheadAttention then projects the projected q, k and v again.
  const Scope mha = cross / "multihead_attn";
  b.parameter(attn, mha("in_proj_weight"), {3 * hidden, hidden}, graph::TensorRole::Matrix, graph::Operand::Internal);
  b.parameter(attn, mha("in_proj_bias"), {3 * hidden}, graph::TensorRole::Bias);
  linear_tensors(b, attn, mha / "out_proj", hidden, hidden, true, graph::Operand::Inner);
  if (hidden % heads != 0) b.fail(attn, fmt::format("hidden size {} not divisible by {} heads", hidden, heads));
  auto x = dense(b, attn, "Projector_Linear", cross / "linear", hidden, hidden, true);
  x = norm(b, x, "Projector_LayerNorm", {p / "layer_norm"});
  const Scope ffn = p / "feed_forward";
  x = dense(b, x, "Projector_Linear_In", ffn / "linear_in", hidden, text_hidden, false, "gelu_new");
  return dense(b, x, "Projector_Linear_Out", ffn / "linear_out", text_hidden, text_hidden, false);
}

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config& c = in.config;
  llava::Parts p{c.child("vision_config", {{"model_type", "idefics3_vision"}}),
                 c.child("text_config", {{"model_type", "aria_text"}})};
  const auto lm = multimodal::find_language_model(c, "aria_text", Head::CausalLM, "Aria");
  p.text_family = lm.family;
  p.causal_lm = lm.cls;
  const bool with_head = in.head != Head::Base;
  const std::int64_t text_hidden = llava::text_width(in, p);
  const std::int64_t heads = p.vision.dim({"num_attention_heads"}, idefics3_vision_defaults().heads);

  Value out;
  {
    std::optional<graph::Nested> model;
    if (with_head) model.emplace(b, graph::Nest{.module = "model", .label = ""});
    clip::Tower tower;
    {
      graph::Nested nest(b, {.module = "vision_tower", .label = "Vision_", .first_block = 0});
      tower = clip::navit_tower(in, b, p.vision, Scope(), idefics3_vision_defaults());
    }
    const auto states = static_cast<std::int64_t>(tower.hidden_states.size());
    const std::int64_t layer = c.integer({"vision_feature_layer"}, -1);
    const std::int64_t index = layer < 0 ? states + layer : layer;
    if (index < 0 || index >= states)
      throw Error(ErrorKind::InvalidInput, c.origin() + ": key 'vision_feature_layer'",
                  fmt::format("layer {} is outside the tower's {} hidden states", layer, states));
    const Value picked = tower.hidden_states[static_cast<std::size_t>(index)];
    const Value x = projector(b, c, picked, tower.hidden, heads, text_hidden);
    const std::int64_t tokens = x.shape.front();
    b.note(fmt::format("one {0}x{0} image: {1} patches through the vision tower, {2} learned queries in the prompt; "
                       "--image-size sets the image's side",
                       tower.input.shape.back(), picked.shape.front(), tokens));
    const std::int64_t seq = llava::prompt_length(in, b, p.text, tokens);
    out = llava::language_model(in, b, p, llava::Layout::Model, seq);
    llava::scatter_into_prompt(b, x, tokens);
  }
  if (with_head) out = llava::top_lm_head(b, out, p.text);
  return out;
}

}  // namespace
}  // namespace aria_impl

const Family& aria_family() {
  static const Family family{"aria", "models/aria/modeling_aria.py",
                             classes("Aria", {heads::VisionLanguageGeneration}), aria_impl::build};
  return family;
}

}  // namespace neurarch::families
