// RoFormer (models/roformer/modeling_roformer.py, transformers 4.47.1): BERT's post-norm layers with
// rotary positions and no position table in the embeddings. encoder.embed_positions holds the
// sinusoid table ([max_position_embeddings, head_dim], requires_grad False, saved) that rotates q and
// k of every self-attention (and v with rotary_value); cross-attention is not rotated. Tokens embed in
// embedding_size (default hidden_size), projected by embeddings_project when the two differ; the MLM
// head maps back to embedding_size. No pooler; sequence classification reads the first token
// through dense + hidden_act + out_proj. Eager attention only.
#include "families/bert_common.hpp"

namespace neurarch::families {
namespace roformer_impl {
namespace {

using namespace blocks;

void rotate_self_attention(const BuildInput&, GraphBuilder& b, const Value& attention, const Scope&, std::int64_t) {
  auto& at = *b.at(attention).attention;
  if (at.kv_input < 0) at.rotary = true;
}

// Looked up once per forward and shared by every layer; it lives under the encoder, not the embeddings.
Value sinusoid_table(const BuildInput& in, GraphBuilder& b, const Value& x, const Scope& emb) {
  const Config& c = in.config;
  const std::int64_t head_dim = c.dim({"hidden_size"}, 768) / c.dim({"num_attention_heads"}, 12);
  const std::string& path = emb.path();  // "<root>.embeddings" or "embeddings"
  const std::string root = path.size() > 11 ? path.substr(0, path.size() - 11) : std::string();
  b.parameter(x, ((root.empty() ? Scope("encoder") : Scope(root) / "encoder") / "embed_positions")("weight"),
              {c.dim({"max_position_embeddings"}, 1536), head_dim}, graph::TensorRole::Embedding);
  return x;
}

Value build(const BuildInput& in, GraphBuilder& b) {
  static const bert::Layout layout{
      .prefix = "roformer",
      .defaults = {.vocab = 50000, .max_positions = 1536, .embedding_size = 0},
      .heads = bert::HeadStyle::BertWithFirstTokenClassifier,
      .pooler = bert::PoolerUse::Never,
      .absolute_positions = false,
      .sdpa = false,
      .extra_embeddings = sinusoid_table,
      .attention_extras = rotate_self_attention};
  if (in.config.flag({"rotary_value"}, false))
    b.note("rotary_value: RoFormer also rotates v, which the activation count does not add");
  auto out = bert::build(in, b, layout);
  b.freeze_if([](std::string_view name) { return name.ends_with("encoder.embed_positions.weight"); });
  return out;
}

}  // namespace
}  // namespace roformer_impl

const Family& roformer_family() {
  static const Family family{"roformer", "models/roformer/modeling_roformer.py",
                             classes("RoFormer", heads::kRoberta), roformer_impl::build};
  return family;
}

}  // namespace neurarch::families
