#pragma once
// What a family is: the classes it can build and one function that composes blocks under the
// family's Hugging Face names. Families are listed in families/families.def, nowhere else.
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <span>
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
  std::string name;
  Head head;
};

/// A head class's name after the model's prefix, and the head it puts on the base model
/// ("ForCausalLM" -> Head::CausalLM), as transformers' Generic<Head> classes name them.
struct HeadClass {
  std::string_view suffix;
  Head head;
};

/// The usual suffixes. A class whose head differs from these is written inline ({"ForCTC", Head::CausalLM}).
namespace heads {
inline constexpr HeadClass ForCausalLM{"ForCausalLM", Head::CausalLM};
inline constexpr HeadClass LMHeadModel{"LMHeadModel", Head::CausalLM};
inline constexpr HeadClass ForMaskedLM{"ForMaskedLM", Head::MaskedLM};
inline constexpr HeadClass ForPreTraining{"ForPreTraining", Head::PreTraining};
inline constexpr HeadClass ForSequenceClassification{"ForSequenceClassification", Head::SequenceClassification};
inline constexpr HeadClass ForTokenClassification{"ForTokenClassification", Head::TokenClassification};
inline constexpr HeadClass ForQuestionAnswering{"ForQuestionAnswering", Head::QuestionAnswering};
inline constexpr HeadClass ForImageClassification{"ForImageClassification", Head::ImageClassification};
inline constexpr HeadClass ForVideoClassification{"ForVideoClassification", Head::ImageClassification};
/// Encoder-decoders' LM head (T5ForConditionalGeneration, BartForConditionalGeneration).
inline constexpr HeadClass ForConditionalGeneration{"ForConditionalGeneration", Head::Seq2SeqLM};
/// Vision-language models' ForConditionalGeneration: a causal LM over the text (LlavaForConditionalGeneration).
inline constexpr HeadClass VisionLanguageGeneration{"ForConditionalGeneration", Head::CausalLM};
/// Speech encoders' CTC head: per-frame token logits, planned as an LM head.
inline constexpr HeadClass ForCTC{"ForCTC", Head::CausalLM};
/// Detection heads (class logits and boxes per query), built as the family's pre-training head.
inline constexpr HeadClass ForObjectDetection{"ForObjectDetection", Head::PreTraining};
/// The encoder of an encoder-decoder on its own (T5EncoderModel).
inline constexpr HeadClass EncoderModel{"EncoderModel", Head::Base};
/// A tower with its projection (CLIPVisionModelWithProjection).
inline constexpr HeadClass ModelWithProjection{"ModelWithProjection", Head::Base};

/// Encoders with BERT's four task heads.
inline constexpr HeadClass kEncoder[] = {ForMaskedLM, ForSequenceClassification, ForTokenClassification,
                                         ForQuestionAnswering};
/// RoBERTa and its copies: BERT's heads plus a causal LM head.
inline constexpr HeadClass kRoberta[] = {ForMaskedLM, ForCausalLM, ForSequenceClassification, ForTokenClassification,
                                         ForQuestionAnswering};
/// Decoders with LlamaForCausalLM's siblings (GenericForSequenceClassification and friends).
inline constexpr HeadClass kDecoder[] = {ForCausalLM, ForSequenceClassification, ForTokenClassification,
                                         ForQuestionAnswering};
/// wav2vec2's descendants: CTC and utterance classification.
inline constexpr HeadClass kSpeech[] = {ForCTC, ForSequenceClassification};
}  // namespace heads

/// `<prefix>Model` (the base class) followed by `<prefix><suffix>` for each head, in order.
std::vector<ClassDef> classes(std::string_view prefix, std::span<const HeadClass> heads = {});
std::vector<ClassDef> classes(std::string_view prefix, std::initializer_list<HeadClass> heads);

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
