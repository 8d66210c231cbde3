// Nystromformer (models/nystromformer/modeling_nystromformer.py, transformers 4.47.1): BERT's
// tensors with Nystrom-approximated attention. A depthwise conv over the values
// (conv_kernel_size, 65 by default) adds one tensor per layer. Unless num_landmarks equals
// segment_means_seq_len (exact attention), landmarks are means over fixed segments of
// segment_means_seq_len tokens, so other lengths do not reshape. Positions: max + 2 rows from
// 2; no pooler, no cross-attention; YOSO-style heads, QA forced to 2 labels.
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "families/bert_common.hpp"

namespace neurarch::families {
namespace nystromformer_impl {
namespace {

void conv_and_landmarks(const BuildInput& in, graph::GraphBuilder& b, const graph::Value& attention,
                        const graph::Scope& self, std::int64_t heads) {
  const Config& c = in.config;
  // conv_kernel_size defaults to 65; only an explicit null turns the conv off.
  const bool conv_off = c.json().contains("conv_kernel_size") && !c.has("conv_kernel_size");
  // The depthwise conv runs over the values, inside the op.
  if (!conv_off)
    b.parameter(attention, self("conv.weight"), {heads, 1, c.dim({"conv_kernel_size"}, 65), 1}, graph::TensorRole::Conv,
                graph::Operand::Internal);
  // The reference then indexes the config object like a dict, which raises.
  if (c.flag({"inv_coeff_init_option"}, false))
    b.fail(attention, "inv_coeff_init_option=true: the reference reads config[\"inv_init_coeff_option\"] and raises");
  const std::int64_t landmarks = c.dim({"num_landmarks"}, 64);
  const std::int64_t segment = c.dim({"segment_means_seq_len"}, 64);
  const std::int64_t seq = attention.shape.size() >= 2 ? attention.shape[attention.shape.size() - 2] : 0;
  const std::int64_t block = landmarks * (segment / landmarks);
  if (landmarks != segment && (block == 0 || seq % block != 0))
    b.fail(attention, fmt::format("{} landmarks averaged over segments of segment_means_seq_len={} tokens cannot "
                                  "reshape a {}-token sequence",
                                  landmarks, segment, seq));
}

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  // NystromformerConfig: 510 positions, a 30000-token vocabulary, pad id 1, gelu_new.
  static const bert::Layout layout{
      .prefix = "nystromformer",
      .defaults = {.vocab = 30000, .max_positions = 510, .pad = 1, .activation = "gelu_new"},
      .heads = bert::HeadStyle::BertWithFirstTokenClassifier,
      .pooler = bert::PoolerUse::Never,
      .qa_forces_two_labels = true,
      .position_start = 2,
      .relative_attention = false,
      .cross_attention = false,
      .attention_extras = conv_and_landmarks};
  return bert::build(in, b, layout);
}

}  // namespace
}  // namespace nystromformer_impl

const Family& nystromformer_family() {
  static const Family family{"nystromformer", "models/nystromformer/modeling_nystromformer.py",
                             classes("Nystromformer", heads::kEncoder), nystromformer_impl::build};
  return family;
}

}  // namespace neurarch::families
