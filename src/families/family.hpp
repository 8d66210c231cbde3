#pragma once
// What a family is: the classes it can build and one function that composes blocks under the
// family's Hugging Face names. Families are listed in families/registry.cpp, nowhere else.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "blocks/blocks.hpp"
#include "core/config.hpp"

namespace neurarch::families {

/// Which head a class puts on the base model.
enum class Head {
  Base,
  CausalLM,
  MaskedLM,
  PreTraining,
  SequenceClassification,
  TokenClassification,
  QuestionAnswering,
  ImageClassification,
  Seq2SeqLM,  ///< encoder-decoder with an LM head on the decoder (T5ForConditionalGeneration)
};

/// Default sequence length when the user gives none: the model's positions, capped here because
/// a 128k-context default would make every memory figure describe a job nobody runs first.
inline constexpr std::int64_t kDefaultSequenceCap = 2048;

struct BuildInput {
  const Config& config;
  std::string class_name;
  Head head = Head::Base;
  std::optional<std::int64_t> requested_seq;
  std::optional<std::int64_t> requested_image_size;
  std::optional<std::int64_t> requested_target_seq;  ///< --target-seq: decoder tokens of encoder-decoders

  /// --seq, else min(max_positions, kDefaultSequenceCap).
  std::int64_t sequence_length(std::int64_t max_positions) const;
  /// --image-size, else the configured size.
  std::int64_t image_size(std::int64_t configured) const;
  /// --target-seq, else `fallback` (the family's choice, from the config).
  std::int64_t target_length(std::int64_t fallback) const;
  /// len(id2label), else num_labels, else 2 (PretrainedConfig's default).
  std::int64_t num_labels() const;
};

struct ClassDef {
  std::string_view name;
  Head head;
};

struct Family {
  std::string_view id;         ///< e.g. "bert"
  std::string_view reference;  ///< the modeling file it mirrors, e.g. "models/bert/modeling_bert.py"
  std::vector<ClassDef> classes;  ///< classes[0] is the base model class
  graph::Value (*build)(const BuildInput&, graph::GraphBuilder&);
};

/// model_type -> family; nullptr when unknown.
const Family* find_family(std::string_view model_type);
/// Every model_type the registry knows, sorted.
std::vector<std::string> supported_model_types();
/// A class name -> its model_type, for configs that lack model_type ("" when unknown).
std::string model_type_for_class(std::string_view class_name);

}  // namespace neurarch::families
