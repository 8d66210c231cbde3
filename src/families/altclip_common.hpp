#pragma once
// AltCLIP's text encoder (models/altclip/modeling_altclip.py, transformers 4.47.1), shared by AltCLIPModel and
// AltCLIPTextModel: an XLM-R trunk under `roberta` without its pooler (XLM-R large's defaults, one token type,
// positions numbered from pad_token_id + 1); every token's last state is layer-normed (pre_LN) and mapped to
// project_dim (transformation, with bias), and the first token of that is the pooled output.
#include "families/family.hpp"

namespace neurarch::families::altclip {

/// AltRobertaSeriesModel's modules (roberta, pre_LN, transformation) at the current scope, from the text config
/// `text.config`; returns the first token's transformed state [project_dim].
graph::Value text_tower(const BuildInput& text, graph::GraphBuilder& b);

}  // namespace neurarch::families::altclip
