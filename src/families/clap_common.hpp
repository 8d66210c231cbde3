#pragma once
// CLAP's text tower and projection layer (models/clap/modeling_clap.py, transformers 4.47.1), shared by ClapModel
// and the text tower built alone (ClapTextModel, ClapTextModelWithProjection): RoBERTa (bert::roberta_layout) with
// its pooler, whose embeddings save position_ids and token_type_ids (persistent buffers, unlike RoBERTa's); and
// ClapProjectionLayer: linear1, projection_hidden_act, linear2.
#include <cstdint>
#include <string>

#include "families/family.hpp"

namespace neurarch::families::clap {

using blocks::GraphBuilder;
using blocks::Scope;
using blocks::Value;

/// ClapTextModel's modules at the current scope, from the text config `c`; returns its pooled output [hidden].
Value text_tower(const BuildInput& in, GraphBuilder& b, const Config& c);

/// A ClapProjectionLayer under `module`: `width` -> `dim` through `act`, then `dim` -> `dim`.
Value projection(GraphBuilder& b, const Value& x, const std::string& label, const Scope& module, std::int64_t width,
                 std::int64_t dim, const std::string& act);

}  // namespace neurarch::families::clap
