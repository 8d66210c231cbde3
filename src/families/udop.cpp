// UDOP (models/udop/modeling_udop.py + configuration_udop.py, transformers 4.47.1; 5.24 checked): a T5
// encoder-decoder (t5::build with its Layout) whose encoder also reads the page image. `patch_embed` (a Conv2d,
// kernel = stride = patch_size, aliased as encoder.embed_patches) cuts it into (image_size / patch_size)^2
// patches; combine_image_text_embeddings adds to each OCR token the patch under its box and appends the patches
// after the tokens (padded to the full patch count), then `encoder.cell_2d_embedding` adds x/y tables looked up
// at each box's four edges. Every stack owns `relative_bias`, one table per relative_bias_args entry ("1d": T5's
// bucketed distance, tied to block 0's relative_attention_bias; "horizontal" / "vertical": distances between box
// centres); the encoder sums them into the bias every block adds, the decoder reads none of them (block 0's own
// T5 table serves its blocks). In 5.24 the decoder gains an untied embed_patches it never reads; 4.47's layout
// (the shared ground truth's) has none.
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "blocks/seq2seq.hpp"
#include "core/error.hpp"
#include "families/t5_common.hpp"

namespace neurarch::families {
namespace udop_impl {
namespace {

using namespace blocks;

// One entry of relative_bias_args; RelativePositionBiasBase's defaults (32 buckets, no prefix bucket) stand
// for what the entry leaves out, not the config's relative_attention_num_buckets.
struct BiasTable {
  std::string type;
  std::int64_t rows = 32;
};

std::vector<BiasTable> bias_tables(const Config& c) {
  const auto* args = c.raw({"relative_bias_args"});
  if (!args || !args->is_array())
    return {{"1d", 32}, {"horizontal", 32}, {"vertical", 32}};
  std::vector<BiasTable> tables;
  for (const auto& entry : *args) {
    BiasTable t;
    if (!entry.is_object() || !entry.contains("type") || !entry["type"].is_string())
      throw Error(ErrorKind::InvalidInput, c.origin() + ": key 'relative_bias_args'", "every entry needs a \"type\"");
    t.type = entry["type"].get<std::string>();
    if (t.type != "1d" && t.type != "horizontal" && t.type != "vertical")
      throw Error(ErrorKind::InvalidInput, c.origin() + ": key 'relative_bias_args'",
                  fmt::format("type \"{}\" is none of 1d, horizontal, vertical", t.type));
    if (entry.contains("relative_attention_num_buckets") && entry["relative_attention_num_buckets"].is_number_integer())
      t.rows = entry["relative_attention_num_buckets"].get<std::int64_t>();
    // prefix_bucket adds two rows (prefix -> rest, rest -> prefix) unless `expand` grows them at the first forward.
    const bool prefix = entry.contains("prefix_bucket") && entry["prefix_bucket"].is_boolean() &&
                        entry["prefix_bucket"].get<bool>();
    const bool expand = entry.contains("expand") && entry["expand"].is_boolean() && entry["expand"].get<bool>();
    if (prefix && !expand) t.rows += 2;
    tables.push_back(t);
  }
  return tables;
}

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config& c = in.config;
  const std::int64_t d_model = c.dim({"d_model", "hidden_size"}, 1024);
  const std::int64_t heads = c.dim({"num_heads", "num_attention_heads"}, 16);
  const std::int64_t channels = c.dim({"num_channels"}, 3);
  const std::int64_t configured = c.dim({"image_size"}, 224);
  const std::int64_t patch = c.dim({"patch_size"}, 16);
  const std::int64_t cells = c.dim({"max_2d_position_embeddings"}, 1024);
  const double dropout = c.number({"dropout_rate"}, 0.1);
  const std::vector<BiasTable> tables = bias_tables(c);

  t5::Layout layout{.bias_in_every_layer = false,
                    .defaults = {.vocab = 33201, .d_model = 1024, .d_ff = 4096, .layers = 24, .heads = 16,
                                 .feed_forward_proj = "relu", .tie_word_embeddings = true,
                                 .pretraining_length = 512},
                    .gated_gelu_is_gelu_new = false,
                    .always_tied = true};

  layout.encoder_input = [&](GraphBuilder& g, const Value& tokens) {
    const std::int64_t size = in.image_size(configured);
    auto pixels = g.input({channels, size, size}, "pixels", "pixel_values");
    const Scope proj = Scope("patch_embed") / "proj";
    auto patches = patch_embed(g, pixels, "Patch_Embedding", {.projection = proj, .channels = channels,
                                                                 .dim = d_model, .patch = patch});
    g.tied(patches, "encoder.embed_patches.proj.weight", {d_model, channels, patch, patch}, proj("weight"), graph::TensorRole::Conv);
    g.tied(patches, "encoder.embed_patches.proj.bias", {d_model}, proj("bias"), graph::TensorRole::Bias);
    if (size != configured)
      g.fail(patches, fmt::format("UdopPatchEmbeddings accepts only {}x{} images (image_size), not {}x{}",
                                  configured, configured, size, size));
    // Each token gains the patch under its box; the patches follow the tokens.
    const std::int64_t text = tokens.shape.front();
    const std::int64_t seq = text + patches.shape.front();
    auto joined = g.node(graph::NodeType::Add, "Join_Text_And_Patches", {seq, d_model}, {tokens, patches});
    const Scope cell = Scope("encoder") / "cell_2d_embedding";
    auto boxes = g.node(graph::NodeType::Embedding, "Cell_2D_Embedding", {seq, d_model}, {joined}, cell);
    g.parameter(boxes, (cell / "x_position_embeddings")("weight"), {cells, d_model}, graph::TensorRole::Embedding);
    g.parameter(boxes, (cell / "y_position_embeddings")("weight"), {cells, d_model}, graph::TensorRole::Embedding);
    g.at(tokens).dropout = 0.0;
    auto out = add(g, boxes, joined, "Add_Cell_Embedding");
    g.at(out).dropout = dropout;
    return out;
  };

  layout.stack_bias = [&](GraphBuilder& g, const Value& bias, const Scope& stack, bool decoder) {
    const Scope aggregated = stack / "relative_bias" / "biases";
    const std::string block0 = (stack / "block" / 0 / "layer" / 0 / "SelfAttention" / "relative_attention_bias")("weight");
    Value sum = bias;
    for (std::size_t k = 0; k < tables.size(); ++k) {
      const Scope table = aggregated / static_cast<std::int64_t>(k) / "relative_attention_bias";
      // 4.47's UdopStack._tie_weights ties every 1d table to block 0's.
      if (tables[k].type == "1d") {
        g.tied(bias, table("weight"), {tables[k].rows, heads}, block0, graph::TensorRole::Embedding);
        if (tables[k].rows != c.integer({"relative_attention_num_buckets"}, 32))
          g.fail(bias, fmt::format("the 1d relative bias has {} buckets but block 0's table {}; the tie needs one shape",
                                   tables[k].rows, c.integer({"relative_attention_num_buckets"}, 32)));
        continue;
      }
      if (decoder) {
        // The decoder's stack owns these tables but its forward never reads them: idle.
        g.parameter(bias, table("weight"), {tables[k].rows, heads}, graph::TensorRole::Embedding, graph::Operand::Idle);
        continue;
      }
      auto extra = relative_position_bias(g, bias, fmt::format("{}_Relative_Bias_{}", tables[k].type, k),
                                          {table, tables[k].rows, heads, bias.shape[1], bias.shape[2]});
      sum = g.node(graph::NodeType::Add, fmt::format("Relative_Bias_Sum_{}", k), bias.shape, {sum, extra});
    }
    return sum;
  };

  return t5::build(in, b, layout);
}

}  // namespace
}  // namespace udop_impl

const Family& udop_family() {
  static const Family family{"udop", "models/udop/modeling_udop.py",
                             classes("Udop", {heads::ForConditionalGeneration, heads::EncoderModel}), udop_impl::build};
  return family;
}

}  // namespace neurarch::families
