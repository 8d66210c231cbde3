#include "checkpoint/compare.hpp"

#include <array>
#include <map>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace neurarch::checkpoint {
namespace {

// Buffers that older transformers releases saved and current ones declare non-persistent: a file
// holding them is old, not wrong.
struct LegacyBuffer {
  std::string_view suffix;
  std::string_view explanation;
};
constexpr std::array<LegacyBuffer, 5> kLegacyBuffers{{
    {".attn.bias", "causal-mask buffer that older transformers saved (non-persistent now)"},
    {".attn.masked_bias", "mask-fill constant that older transformers saved (non-persistent now)"},
    {"position_ids", "position-id buffer that older transformers saved (non-persistent now)"},
    {".rotary_emb.inv_freq", "RoPE frequency buffer that older transformers saved (non-persistent now)"},
    {"token_type_ids", "token-type buffer that older transformers saved (non-persistent now)"},
}};

std::string legacy_explanation(const std::string& name) {
  for (const auto& l : kLegacyBuffers)
    if (name.size() >= l.suffix.size() && name.compare(name.size() - l.suffix.size(), l.suffix.size(), l.suffix) == 0)
      return std::string(l.explanation);
  return {};
}

TensorFacts facts(const graph::TensorSpec& t) { return {t.name, t.shape, t.dtype}; }
TensorFacts facts(const CheckpointTensor& t) { return {t.name, t.shape, t.dtype}; }

// A file saved from the base class lacks the head class's prefix ("h.0.attn" vs
// "transformer.h.0.attn"); one saved from a head class has a prefix the base class lacks.
// Picks the rename that matches the most names, if it matches any that did not match before.
struct Rename {
  std::string strip;  ///< removed from file names
  std::string add;    ///< prepended to file names
};

std::optional<Rename> best_rename(const std::map<std::string, const graph::TensorSpec*>& ours,
                                  const Checkpoint& file) {
  std::set<std::string> prefixes;
  for (const auto& [name, t] : ours)
    if (auto dot = name.find('.'); dot != std::string::npos) prefixes.insert(name.substr(0, dot + 1));
  for (const auto& t : file.tensors)
    if (auto dot = t.name.find('.'); dot != std::string::npos) prefixes.insert(t.name.substr(0, dot + 1));

  auto score = [&](const Rename& r) {
    int hits = 0;
    for (const auto& t : file.tensors) {
      std::string n = t.name;
      if (!r.strip.empty()) {
        if (!n.starts_with(r.strip)) continue;
        n = n.substr(r.strip.size());
      }
      if (ours.count(r.add + n)) ++hits;
    }
    return hits;
  };
  int base = score({});
  std::optional<Rename> best;
  int best_hits = base;
  for (const auto& p : prefixes) {
    for (const Rename& r : {Rename{"", p}, Rename{p, ""}}) {
      int hits = score(r);
      if (hits > best_hits) {
        best_hits = hits;
        best = r;
      }
    }
  }
  return best;
}

// A file in a layout the reference converts on load (Graph::checkpoint_renames) is compared under the
// names it loads as; the note says which conversions applied.
Checkpoint converted_names(const graph::Graph& graph, const Checkpoint& file, std::vector<std::string>& notes) {
  Checkpoint out = file;
  std::set<std::string> used;
  for (auto& t : out.tensors)
    for (const auto& r : graph.checkpoint_renames)
      if (t.name == r.from || t.name.starts_with(r.from + ".")) {
        t.name = r.to + t.name.substr(r.from.size());
        used.insert(fmt::format("{}. -> {}.", r.from, r.to));
        break;
      }
  if (!used.empty())
    notes.push_back(fmt::format("the checkpoint uses an older layout that transformers renames on load ({}); it is "
                                "compared under the loaded names",
                                fmt::join(used, ", ")));
  return out;
}

}  // namespace

Comparison compare(const graph::Graph& graph, const Checkpoint& original) {
  Comparison out;
  out.checkpoint_scalars = original.total_scalars;
  out.files = original.files;
  const Checkpoint file = converted_names(graph, original, out.notes);

  std::map<std::string, const graph::TensorSpec*> ours;  // every name we know, tied aliases too
  for (const auto& t : graph.tensors) ours[t.name] = &t;

  auto rename = best_rename(ours, file);
  if (rename) {
    if (!rename->add.empty())
      out.notes.push_back(fmt::format("the checkpoint's names lack the '{}' prefix: it was saved from the base model "
                                      "class and still loads into this class",
                                      rename->add));
    else
      out.notes.push_back(fmt::format("the checkpoint's names carry a '{}' prefix: it was saved from a class with a "
                                      "head; the base model loads it by dropping the prefix",
                                      rename->strip));
  }

  std::set<std::string> matched;
  int tied_stored = 0;
  for (const auto& t : file.tensors) {
    std::string name = t.name;
    if (rename && (rename->strip.empty() || name.starts_with(rename->strip))) {
      std::string stripped = rename->strip.empty() ? name : name.substr(rename->strip.size());
      if (ours.count(rename->add + stripped)) name = rename->add + stripped;
    }
    auto it = ours.find(name);
    if (it == ours.end()) {
      out.unexpected.push_back({facts(t), legacy_explanation(t.name)});
      continue;
    }
    const graph::TensorSpec& mine = *it->second;
    matched.insert(name);
    if (!mine.saved()) ++tied_stored;
    bool shape_differs = mine.shape != t.shape;
    bool dtype_differs = mine.dtype != t.dtype;
    if (shape_differs || dtype_differs)
      out.mismatched.push_back({t.name, facts(mine), facts(t),
                                shape_differs && dtype_differs ? "shape and dtype"
                                : shape_differs                ? "shape"
                                                               : "dtype"});
  }
  if (tied_stored > 0)
    out.notes.push_back(fmt::format("the checkpoint stores {} tied tensor(s) anyway (e.g. a tied LM head): the file's "
                                    "total counts them twice",
                                    tied_stored));
  for (const auto& t : graph.tensors)
    if (t.saved() && !matched.count(t.name)) out.missing.push_back(facts(t));
  return out;
}

}  // namespace neurarch::checkpoint
