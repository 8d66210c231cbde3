#pragma once
// Tokenizer and chat-template facts from the files transformers' tokenizers read. Only the facts a
// pinned user can be broken by are kept: vocabulary size and identity, special tokens and the ids
// of bos/eos/pad/unk, and the chat template text.
#include <map>
#include <string>

#include "track/record.hpp"

namespace neurarch::track {

/// True for the files these facts come from (by file name at the repository root).
bool is_tokenizer_file(const std::string& path);
bool is_chat_template_file(const std::string& path);

/// `texts`: file name -> bytes, for the tokenizer files present at a revision. Files that do not
/// parse are named in `errors` and otherwise ignored, so one bad file does not hide the others.
TokenizerFacts tokenizer_facts(const std::map<std::string, std::string>& texts);

/// chat_template.jinja wins over tokenizer_config.json's chat_template, as in transformers.
/// Unreadable files are appended to `errors`.
ChatTemplateFacts chat_template_facts(const std::map<std::string, std::string>& texts, std::vector<std::string>& errors);

}  // namespace neurarch::track
